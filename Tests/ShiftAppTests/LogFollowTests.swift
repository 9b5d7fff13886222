import Foundation
import ShiftCore
import Testing
import TestSupport

/// `shiftctl log --follow` as a live view: one process follows, another commits, and the
/// follower prints the other's change while it runs; Ctrl-C (SIGINT) ends it with status 0.
@Suite struct LogFollowTests {
    /// The stores the follower is tried on: the two files, and a schedule on the test server
    /// when there is one.
    static let stores: [String] = ["schedule.json", "schedule.sqlite"] + (PostgresTestServer.enabled ? ["postgres"] : [])

    @Test(arguments: stores)
    func aFollowerPrintsAnotherProcesssChangesUntilCtrlC(_ kind: String) async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let store = kind == "postgres" ? try PostgresTestServer.freshScheduleURL() : kind
        for arguments in [["init", "--time-zone", "UTC"], ["type", "add", "D", "--time", "08:00-16:00"], ["person", "add", "Alice"],
                          ["schedule", "add", "--type", "D", "--date", "2026-03-01", "--person", "Alice"]] {
            let result = try sandbox.run(arguments: ["--store", store] + arguments)
            try #require(result.status == 0, "\(arguments): \(result.stderr)")
        }

        let follower = try Follower(sandbox, ["--store", store, "log", "--follow", "--format", "json", "--limit", "1"])
        defer { follower.stop() }
        let backlog = try await follower.lines(atLeast: 1)
        #expect(try entry(backlog[0])["scheduledShiftDate"] as? String == "2026-03-01", "the newest entry comes first")

        for (n, date) in ["2026-03-02", "2026-03-03"].enumerated() {
            let add = try sandbox.run(arguments: ["--store", store, "--as", "other", "schedule", "add", "--type", "D", "--date", date, "--person", "Alice"])
            try #require(add.status == 0, "\(add.stderr)")
            let lines = try await follower.lines(atLeast: 2 + n)
            let new = try entry(lines[1 + n])
            #expect(new["scheduledShiftDate"] as? String == date)
            #expect(new["changeType"] as? String == "created")
            #expect(new["userId"] as? String == "other")
        }

        let ended = try await follower.interrupt()
        #expect(ended.status == 0, "Ctrl-C ends the follower cleanly: \(ended.stderr)")
        #expect(ended.reason == .exit)
        #expect(ended.stderr.isEmpty, "\(ended.stderr)")
        #expect(try await follower.lines(atLeast: 0).count == 3, "each entry once")
    }

    @Test func followingATextLogShowsOneLinePerEntry() async throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        #expect(try sandbox.run("schedule", "add", "--type", "D", "--date", "2026-03-02", "--person", "Alice").status == 0)
        let follower = try Follower(sandbox, ["log", "-f"])
        defer { follower.stop() }
        let first = try await follower.lines(atLeast: 1)
        #expect(first[0].contains("tester  created  2026-03-02  - -> D Alice"), "\(first)")
        #expect(try sandbox.run("schedule", "add", "--type", "N", "--date", "2026-03-03", "--person", "Bob").status == 0)
        let lines = try await follower.lines(atLeast: 2)
        #expect(lines[1].contains("created  2026-03-03  - -> N Bob"), "\(lines)")
        #expect(try await follower.interrupt().status == 0)
    }

    @Test func followingShowsRequestStateChangesAsTheyHappen() async throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        let shift = try sandbox.run("schedule", "add", "--type", "D", "--date", "2031-03-03", "--person", "Bob", "--format", "json")
        let id = try #require(try json(shift.stdout)["id"] as? String)
        let follower = try Follower(sandbox, ["log", "-f", "--limit", "1"])
        defer { follower.stop() }
        _ = try await follower.lines(atLeast: 1)
        let offer = try sandbox.run("request", "offer", id, "--as", "Bob", "--format", "json")
        let request = try #require(try json(offer.stdout)["id"] as? String)
        var lines = try await follower.lines(atLeast: 2)
        #expect(lines[1].hasSuffix("Bob  offer made  2031-03-03  - -> pending  request \(request.prefix(8))"), "\(lines)")
        #expect(try sandbox.run("request", "cancel", request, "--as", "Bob", "--reason", "kept it").status == 0)
        lines = try await follower.lines(atLeast: 3)
        #expect(lines[2].hasSuffix("Bob  offer cancelled  2031-03-03  pending -> cancelled  request \(request.prefix(8)): kept it"), "\(lines)")
        #expect(try await follower.interrupt().status == 0)
    }

    @Test func followRefusesToAndAMissingStore() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        let to = try sandbox.run("log", "--follow", "--to", "2026-03-01")
        #expect(to.status != 0)
        #expect(to.stderr.contains("--to cannot be used with --follow"), "\(to.stderr)")
        let missing = try sandbox.run("--store", "none.json", "log", "--follow")
        #expect(missing.status == 2)
        #expect(missing.stderr.split(separator: "\n").count == 1, "one line: \(missing.stderr)")
        #expect(missing.stdout.isEmpty)
    }

    private func entry(_ line: String) throws -> [String: Any] { try json(line) }
}

/// A `shiftctl` that keeps running, its output in files the test reads while it runs.
private final class Follower: Sendable {
    let process: Process
    let out: String
    let err: String

    init(_ sandbox: Sandbox, _ arguments: [String]) throws {
        process = Process()
        process.executableURL = CLI.executable
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: sandbox.path)
        var environment = ["PATH": "/usr/bin:/bin", "HOME": sandbox.path, "USER": "tester", "COLUMNS": "80", "TZ": "UTC"]
        environment.merge(Sandbox.sanitizerOptions) { $1 }
        process.environment = environment
        out = sandbox.path + "/.follow-out-\(UUID().uuidString)"
        err = sandbox.path + "/.follow-err-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        _ = FileManager.default.createFile(atPath: err, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    /// The lines printed so far, once there are at least `count` (waits up to 30 s).
    func lines(atLeast count: Int) async throws -> [String] {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let text = String(decoding: FileManager.default.contents(atPath: out) ?? Data(), as: UTF8.self)
            let lines = text.split(separator: "\n").map(String.init)
            if lines.count >= count { return lines }
            guard ContinuousClock.now < deadline, process.isRunning else {
                let errors = String(decoding: FileManager.default.contents(atPath: err) ?? Data(), as: UTF8.self)
                throw PostgresTestError("waited for \(count) lines, got \(lines.count): \(text) \(errors)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Sends SIGINT (Ctrl-C) and waits for the process to end (up to 30 s).
    func interrupt() async throws -> (status: Int32, reason: Process.TerminationReason, stderr: String) {
        kill(process.processIdentifier, SIGINT)
        let deadline = ContinuousClock.now + .seconds(30)
        while process.isRunning {
            guard ContinuousClock.now < deadline else { throw PostgresTestError("the follower did not end on SIGINT") }
            try await Task.sleep(for: .milliseconds(50))
        }
        return (process.terminationStatus, process.terminationReason,
                String(decoding: FileManager.default.contents(atPath: err) ?? Data(), as: UTF8.self))
    }

    /// Ends the process if a failed test left it running.
    func stop() {
        if process.isRunning { process.terminate() }
    }
}
