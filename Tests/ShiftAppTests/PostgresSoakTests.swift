import Foundation
import ShiftCore
import ShiftStoragePostgres
import Synchronization
import Testing
import TestSupport

/// Faults and a history check on the PostgreSQL store: writer processes (`shiftctl`, stock rules)
/// book and remove shifts at random, many of them conflicting on purpose (four people, a week);
/// meanwhile clients are SIGKILLed at random moments and the server is crashed
/// (`pg_ctl stop -m immediate`) and restarted. Every operation is recorded as invoked, then ok,
/// failed or unknown; the final schedule and change log are then checked against that history.
///
/// The suite runs a short pass on a cluster of its own (it crashes that server, so never the
/// shared test server). `scripts/pg-soak.sh` runs the long one; docs/guarantees.md has its figures.
/// `SHIFT_SOAK_SECONDS` (default 15), `SHIFT_SOAK_WRITERS` (3), `SHIFT_SOAK_KILL_MS` (a client
/// kill about this often, 700), `SHIFT_SOAK_CRASH_SECONDS` (a server crash about this often, 6),
/// `SHIFT_SEED` repeats a run's choices.
@Suite(.enabled(if: PostgresSoak.serverInstalled, "Debian's postgresql is not installed: apt-get install postgresql"))
struct PostgresSoakTests {
    @Test func everyAcknowledgedWriteSurvivesKilledClientsAndServerCrashes() throws {
        let settings = PostgresSoak.Settings()
        let soak = try PostgresSoak(settings)
        defer { soak.shutDown() }
        try soak.setUp()
        soak.run()
        let figures = try soak.check()
        let line = figures.summary(settings)
        print(line)
        if let report = ProcessInfo.processInfo.environment["SHIFT_SOAK_REPORT"] {
            try Data((line + "\n").utf8).write(to: URL(fileURLWithPath: report))
        }
        #expect(figures.problems.isEmpty, "seed \(settings.seed): \(figures.problems.prefix(20))")
        #expect(figures.lostAcknowledged == 0)
        #expect(figures.hardViolations == 0)
        #expect(figures.ok > 0, "some writes must succeed")
        #expect(figures.clientKills > 0)
        #expect(figures.serverCrashes > 0)
    }
}

/// One soak: its own cluster, its writers, its history.
final class PostgresSoak: Sendable {
    struct Settings: Sendable {
        var seconds = max(1, environmentCount("SHIFT_SOAK_SECONDS", default: 15))
        var writers = max(1, environmentCount("SHIFT_SOAK_WRITERS", default: 3))
        var killMilliseconds = max(2, environmentCount("SHIFT_SOAK_KILL_MS", default: 700))
        var crashSeconds = max(1, environmentCount("SHIFT_SOAK_CRASH_SECONDS", default: 6))
        var seed = SplitMix64.seed
    }

    /// What became of one operation.
    enum Outcome: String, Sendable { case invoked, ok, failed, unknown }

    struct Operation: Sendable {
        let id: Int
        /// `add` (a shift for `person` on `date`, its notes `op:ID`) or `remove` (of `shift`, the
        /// reason `op:ID`).
        let kind: String
        let person: String
        let date: String
        let shift: String?
        var outcome: Outcome = .invoked
        /// The shift an acknowledged add made.
        var made: String?
        var detail = ""
    }

    static let serverInstalled: Bool = {
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        return folders.contains { FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/\($0)/bin/initdb") }
            || PostgresTestServer.inCI
    }()

    static let people = ["Ann", "Ben", "Cem", "Dia"]
    static let dates = (2...8).map { String(format: "2026-03-%02d", $0) }
    static let types = ["D", "L"]

    let settings: Settings
    let sandbox: Sandbox
    let clusterFolder: String
    let url: String
    private let state: Mutex<State>

    private struct State {
        var operations: [Operation] = []
        var running: [Int: Process] = [:]
        var generator: SplitMix64
        var clientKills = 0
        var killsWithWork = 0
        var serverCrashes = 0
        var crashesWithWork = 0
        var done = false
    }

    init(_ settings: Settings) throws {
        self.settings = settings
        sandbox = try Sandbox()
        clusterFolder = sandbox.path + "-pg"
        let started = Self.cluster("start", clusterFolder)
        guard started.status == 0, let line = started.output.split(separator: "\n").first(where: { $0.contains("SHIFT_TEST_POSTGRES=") }) else {
            throw PostgresTestError("could not start a cluster: \(started.output)")
        }
        url = String(line.split(separator: "=", maxSplits: 1)[1]) + "?schedule=soak"
        state = Mutex(State(generator: SplitMix64(seed: settings.seed)))
    }

    func shutDown() {
        _ = Self.cluster("stop", clusterFolder)
        sandbox.remove()
    }

    /// The schedule: the stock rules, two overlapping shift types, four people.
    func setUp() throws {
        var steps = [["init", "--time-zone", "UTC"], ["type", "add", "D", "--time", "08:00-16:00"], ["type", "add", "L", "--time", "12:00-20:00"]]
        steps += Self.people.map { ["person", "add", $0] }
        for arguments in steps {
            let result = try sandbox.run(arguments: ["--store", url] + arguments)
            guard result.status == 0 else { throw PostgresTestError("\(arguments): \(result.stderr)") }
        }
    }

    /// Runs the writers, the killer and the crasher for `settings.seconds`.
    func run() {
        let group = DispatchGroup()
        func thread(_ body: @escaping @Sendable () -> Void) {
            group.enter()
            Thread {
                body()
                group.leave()
            }.start()
        }
        for writer in 0..<settings.writers { thread { self.write(writer) } }
        thread { self.killClients() }
        thread { self.crashServer() }
        Thread.sleep(forTimeInterval: Double(settings.seconds))
        state.withLock { $0.done = true }
        group.wait()
        // The server is up for the check.
        _ = Self.cluster("restart", clusterFolder)
    }

    private var isDone: Bool { state.withLock { $0.done } }

    /// One writer: an operation at a time, each a `shiftctl` process.
    private func write(_ writer: Int) {
        while !isDone {
            let operation = state.withLock { state -> Operation in
                let id = state.operations.count
                let acknowledged = state.operations.compactMap(\.made)
                let person = Self.people.randomElement(using: &state.generator)!
                let date = Self.dates.randomElement(using: &state.generator)!
                let removes = !acknowledged.isEmpty && Int.random(in: 0..<10, using: &state.generator) < 3
                let operation = Operation(id: id, kind: removes ? "remove" : "add", person: person, date: date,
                                          shift: removes ? acknowledged.randomElement(using: &state.generator) : nil)
                state.operations.append(operation)
                return operation
            }
            let arguments: [String] = if operation.kind == "remove" {
                ["--store", url, "--format", "json", "schedule", "remove", operation.shift!, "--reason", "op:\(operation.id)"]
            } else {
                ["--store", url, "--format", "json", "schedule", "add", "--type", Self.types[operation.id % 2], "--date", operation.date,
                 "--person", operation.person, "--notes", "op:\(operation.id)"]
            }
            let (outcome, made, detail) = launch(arguments, writer: writer)
            state.withLock { state in
                state.operations[operation.id].outcome = outcome
                state.operations[operation.id].made = operation.kind == "add" && outcome == .ok ? made : nil
                state.operations[operation.id].detail = detail
            }
        }
    }

    /// Runs one client to its end: exit 0 is ok; 1 (the rules refused) or 2 (nothing written:
    /// no server, a conflict that outlasted the retries) is failed; a kill, or a connection lost
    /// during the commit (`may or may not be saved`), is unknown.
    private func launch(_ arguments: [String], writer: Int) -> (Outcome, String?, String) {
        let process = Process()
        process.executableURL = CLI.executable
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: sandbox.path)
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": sandbox.path, "USER": "soak\(writer)", "TZ": "UTC"]
            .merging(Sandbox.sanitizerOptions) { $1 }
        // Files, not pipes: a server restarted meanwhile could hold a pipe's end open.
        let out = sandbox.path + "/.writer-\(writer).out"
        let err = sandbox.path + "/.writer-\(writer).err"
        do {
            for file in [out, err] { _ = FileManager.default.createFile(atPath: file, contents: nil) }
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
            process.standardInput = FileHandle.nullDevice
            try process.run()
        } catch { return (.failed, nil, "\(error)") }
        state.withLock { $0.running[writer] = process }
        process.waitUntilExit()
        state.withLock { $0.running[writer] = nil }
        let stdout = FileManager.default.contents(atPath: out) ?? Data()
        let stderr = String(decoding: FileManager.default.contents(atPath: err) ?? Data(), as: UTF8.self)
        if process.terminationReason == .uncaughtSignal { return (.unknown, nil, "killed") }
        switch process.terminationStatus {
        case 0:
            let object = (try? JSONSerialization.jsonObject(with: stdout)) as? [String: Any]
            return (.ok, object?["id"] as? String, "")
        case 1: return (.failed, nil, "rejected")
        case 2 where stderr.contains("may or may not"): return (.unknown, nil, stderr)
        default: return (.failed, nil, stderr)
        }
    }

    /// SIGKILLs a running client about every `killMilliseconds`.
    private func killClients() {
        while !isDone {
            let pause = state.withLock { Int.random(in: settings.killMilliseconds / 2...settings.killMilliseconds * 3 / 2, using: &$0.generator) }
            Thread.sleep(forTimeInterval: Double(pause) / 1000)
            state.withLock { state in
                guard let (_, process) = state.running.randomElement(using: &state.generator), process.isRunning else { return }
                if kill(process.processIdentifier, SIGKILL) == 0 { state.clientKills += 1 }
            }
        }
    }

    /// Crashes the server about every `crashSeconds` while clients write, and starts it again
    /// after a pause.
    private func crashServer() {
        while !isDone {
            let pause = state.withLock { Double(Int.random(in: settings.crashSeconds * 500...settings.crashSeconds * 1500, using: &$0.generator)) / 1000 }
            Thread.sleep(forTimeInterval: pause)
            if isDone { return }
            let busy = state.withLock { !$0.running.isEmpty }
            guard Self.cluster("crash", clusterFolder).status == 0 else { continue }
            state.withLock { state in
                state.serverCrashes += 1
                if busy { state.crashesWithWork += 1 }
            }
            Thread.sleep(forTimeInterval: state.withLock { Double(Int.random(in: 200...1500, using: &$0.generator)) / 1000 })
            _ = Self.cluster("restart", clusterFolder)
        }
    }

    /// Runs `scripts/postgres-test-cluster.sh ACTION FOLDER` through `system()`, which waits for
    /// the script itself: a server it starts keeps running, and `Process` would wait for that
    /// server too (it sees a child end when every copy of a descriptor the child inherited is
    /// closed, and the server inherits them).
    static func cluster(_ action: String, _ folder: String) -> (status: Int32, output: String) {
        let log = folder + "-\(action)-\(UUID().uuidString).log"
        defer { try? FileManager.default.removeItem(atPath: log) }
        let status = system("'\(repositoryRoot)/scripts/postgres-test-cluster.sh' \(action) '\(folder)' >'\(log)' 2>&1 </dev/null")
        return (status, String(decoding: FileManager.default.contents(atPath: log) ?? Data(), as: UTF8.self))
    }

    struct Figures {
        var operations = 0, ok = 0, failed = 0, rejected = 0, unknown = 0
        var clientKills = 0, serverCrashes = 0, crashesWithWork = 0
        var lostAcknowledged = 0
        var hardViolations = 0
        var logEntries = 0
        var problems: [String] = []

        func summary(_ settings: Settings) -> String {
            "pg soak: \(settings.seconds) s, \(settings.writers) writers, seed \(settings.seed): \(operations) operations "
                + "(\(ok) ok, \(failed) failed of which \(rejected) by the rules, \(unknown) unknown), \(clientKills) client kills, \(serverCrashes) server crashes "
                + "(\(crashesWithWork) with clients running), \(logEntries) change-log entries checked, "
                + "\(lostAcknowledged) acknowledged writes lost, \(hardViolations) hard violations, \(problems.count) problems"
        }
    }

    /// The final state against the history.
    func check() throws -> Figures {
        let (operations, kills, crashes, busyCrashes) = state.withLock { ($0.operations, $0.clientKills, $0.serverCrashes, $0.crashesWithWork) }
        var figures = Figures(operations: operations.count, ok: operations.count { $0.outcome == .ok },
                              failed: operations.count { $0.outcome == .failed },
                              rejected: operations.count { $0.outcome == .failed && $0.detail == "rejected" }, unknown: operations.count { $0.outcome == .unknown },
                              clientKills: kills, serverCrashes: crashes, crashesWithWork: busyCrashes)
        let loaded = try PostgresRepository(url: url).load().0
        let schedule = try loaded.materialized()
        if let failure = loaded.source?.takeFailure() { throw failure }

        // The change log: one entry per committed operation, named by its op id.
        var logged: [Int: [ChangeLogEntry]] = [:]
        for entry in schedule.changeLog {
            let tag = entry.changeType == .created ? entry.newShiftSnapshot?.notes : entry.reason
            guard let tag, tag.hasPrefix("op:"), let id = Int(tag.dropFirst(3)) else {
                if entry.changeType == .created || entry.changeType == .deleted { figures.problems.append("an entry of no operation: \(entry)") }
                continue
            }
            logged[id, default: []].append(entry)
        }
        figures.logEntries = logged.values.map(\.count).reduce(0, +)
        let present = Dictionary(schedule.shifts().map { ($0.id.description.lowercased(), $0) }) { first, _ in first }
        let removedOK = Set(operations.filter { $0.kind == "remove" && $0.outcome == .ok }.compactMap { $0.shift?.lowercased() })
        let removedMaybe = Set(operations.filter { $0.kind == "remove" && $0.outcome != .failed }.compactMap { $0.shift?.lowercased() })

        for operation in operations {
            let entries = logged[operation.id] ?? []
            switch operation.outcome {
            case .ok:
                if entries.count != 1 { figures.problems.append("op \(operation.id) (\(operation.kind), ok) has \(entries.count) log entries") }
                if operation.kind == "add", let made = operation.made?.lowercased() {
                    if present[made] == nil, !removedMaybe.contains(made) {
                        figures.lostAcknowledged += 1
                        figures.problems.append("op \(operation.id): acknowledged shift \(made) is missing")
                    }
                }
                if operation.kind == "remove", let shift = operation.shift?.lowercased(), present[shift] != nil {
                    figures.lostAcknowledged += 1
                    figures.problems.append("op \(operation.id): acknowledged removal of \(shift) is undone")
                }
            case .failed:
                if !entries.isEmpty { figures.problems.append("op \(operation.id) (\(operation.kind)) failed (\(operation.detail)) but is logged") }
                if operation.kind == "add", present.values.contains(where: { $0.notes == "op:\(operation.id)" }) {
                    figures.problems.append("op \(operation.id) failed (\(operation.detail)) but its shift is there")
                }
            case .unknown, .invoked:
                if entries.count > 1 { figures.problems.append("op \(operation.id) is logged \(entries.count) times") }
            }
        }
        // Every shift there was made by an operation whose entry is in the log, and its removal
        // was not acknowledged.
        for (id, shift) in present {
            guard let tag = shift.notes, tag.hasPrefix("op:"), let op = Int(tag.dropFirst(3)) else {
                figures.problems.append("shift \(id) of no operation")
                continue
            }
            if logged[op]?.contains(where: { $0.changeType == .created }) != true { figures.problems.append("shift \(id) (op \(op)) has no log entry") }
            if removedOK.contains(id) { figures.problems.append("shift \(id) was removed (acknowledged) but is there") }
        }
        // Every created entry whose shift is gone has its deleted entry: the log has no gap.
        let deletedShifts = Set(schedule.changeLog.filter { $0.changeType == .deleted }.compactMap { $0.oldShiftSnapshot?.shiftID.description.lowercased() })
        for entry in schedule.changeLog where entry.changeType == .created {
            guard let shift = entry.newShiftSnapshot?.shiftID.description.lowercased() else { continue }
            if present[shift] == nil, !deletedShifts.contains(shift) { figures.problems.append("shift \(shift) is gone without a log entry") }
        }

        // The rules hold on the final schedule.
        let validate = try sandbox.run(arguments: ["--store", url, "--format", "json", "validate"])
        let report = try json(validate.stdout)
        figures.hardViolations = report["errors"] as? Int ?? -1
        if validate.status != 0 { figures.problems.append("validate: \(validate.status) \(validate.stderr)") }
        return figures
    }
}
