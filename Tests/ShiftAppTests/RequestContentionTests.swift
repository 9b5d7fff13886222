import Foundation
import Synchronization
import ShiftCore
import Testing
import TestSupport

/// Two people asking for the same thing at the same moment on PostgreSQL, through `shiftctl`
/// processes started together: two claims of the last open shift approved at once, and two
/// exchanges for one colleague's shift accepted at once with auto-approval. Exactly one wins each
/// round; the other gets one line saying why, and the schedule holds the winner's change only.
///
/// `SHIFT_CONTENTION_ROUNDS` (default 4) sets the rounds; `scripts/pg-soak.sh` runs many.
@Suite(.enabled(if: PostgresTestServer.enabled, PostgresTestServer.skipReason))
struct RequestContentionTests {
    let rounds = environmentCount("SHIFT_CONTENTION_ROUNDS", default: 4)

    /// Runs two `shiftctl` commands at the same moment (two threads start their processes together).
    private func together(_ sandbox: Sandbox, _ first: [String], _ second: [String]) -> [CLIResult] {
        let results = Mutex<[Int: CLIResult]>([:])
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let result = (try? sandbox.run(arguments: index == 0 ? first : second))
                ?? CLIResult(status: -1, stdout: "", stderr: "could not start shiftctl")
            results.withLock { $0[index] = result }
        }
        return results.withLock { [$0[0]!, $0[1]!] }
    }

    private func made(_ result: CLIResult) throws -> String {
        try #require(result.status == 0, "\(result.stderr)")
        return try #require(json(result.stdout)["id"] as? String)
    }

    private func setUp() throws -> (Sandbox, store: String) {
        let sandbox = try Sandbox()
        let store = try PostgresTestServer.freshScheduleURL()
        for arguments in [["init", "--time-zone", "UTC"], ["type", "add", "D", "--time", "08:00-16:00"], ["type", "add", "N", "--time", "20:00-04:00"],
                          ["person", "add", "Alice"], ["person", "add", "Bob"], ["person", "add", "Carol"]] {
            let result = try sandbox.run(arguments: ["--store", store] + arguments)
            try #require(result.status == 0, "\(arguments): \(result.stderr)")
        }
        return (sandbox, store)
    }

    @Test func twoClaimsOfTheLastOpenShiftApprovedAtOnceMakeOneWinner() throws {
        let (sandbox, store) = try setUp()
        defer { sandbox.remove() }
        for round in 0..<rounds {
            let date = LocalDate("2031-01-05")!.adding(days: 3 * round).description
            let shift = try made(try sandbox.run(arguments: ["--store", store, "schedule", "add", "--type", "D", "--date", date, "--format", "json"]))
            let alice = try made(try sandbox.run(arguments: ["--store", store, "request", "claim", shift, "--as", "Alice", "--format", "json"]))
            let bob = try made(try sandbox.run(arguments: ["--store", store, "request", "claim", shift, "--as", "Bob", "--format", "json"]))

            let results = together(sandbox, ["--store", store, "request", "approve", alice, "--as", "Carol"],
                                   ["--store", store, "request", "approve", bob, "--as", "Carol"])
            let winners = results.indices.filter { results[$0].status == 0 }
            try #require(winners.count == 1, "round \(round): \(results.map { "\($0.status) \($0.stderr)" })")
            let loser = results[1 - winners[0]]
            #expect(loser.status == 2, "\(loser.stderr)")
            #expect(loser.stderr.split(separator: "\n").count == 1, "\(loser.stderr)")
            #expect(loser.stderr.contains("the shift changed since it was read"), "\(loser.stderr)")

            let requests = try json(try sandbox.run(arguments: ["--store", store, "--format", "json", "request", "list"]).stdout)["requests"] as? [[String: Any]] ?? []
            let states = Dictionary(uniqueKeysWithValues: requests.compactMap { item in (item["id"] as? String).map { ($0, item["state"] as? String ?? "") } })
            let (won, lost) = winners[0] == 0 ? (alice, bob) : (bob, alice)
            #expect(states[won] == "approved" && states[lost] == "pending", "\(states)")
            let listed = try sandbox.run(arguments: ["--store", store, "--format", "json", "schedule", "list", "--from", date, "--to", date])
            let shifts = try #require(json(listed.stdout)["shifts"] as? [[String: Any]])
            #expect(shifts.count == 1 && shifts[0]["person"] as? String == (winners[0] == 0 ? "Alice" : "Bob"), "\(shifts)")
        }
    }

    @Test func twoExchangesForOneShiftAcceptedAtOnceMakeOneWinner() throws {
        let (sandbox, store) = try setUp()
        defer { sandbox.remove() }
        #expect(try sandbox.run(arguments: ["--store", store, "request", "auto-approve", "on"]).status == 0)
        for round in 0..<rounds {
            let day = LocalDate("2031-06-01")!.adding(days: 4 * round)
            func add(_ type: String, _ date: LocalDate, _ person: String) throws -> String {
                try made(try sandbox.run(arguments: ["--store", store, "schedule", "add", "--type", type, "--date", date.description, "--person", person, "--format", "json"]))
            }
            // Alice's night is wanted by both: Bob and Carol each offer their day for it.
            let night = try add("N", day.adding(days: 1), "Alice")
            let bobs = try add("D", day, "Bob")
            let carols = try add("D", day, "Carol")
            let fromBob = try made(try sandbox.run(arguments: ["--store", store, "request", "swap", bobs, "--with", "Alice", "--for", night, "--as", "Bob", "--format", "json"]))
            let fromCarol = try made(try sandbox.run(arguments: ["--store", store, "request", "swap", carols, "--with", "Alice", "--for", night, "--as", "Carol", "--format", "json"]))

            let results = together(sandbox, ["--store", store, "request", "accept", fromBob, "--as", "Alice"],
                                   ["--store", store, "request", "accept", fromCarol, "--as", "Alice"])
            let approved = try ["Bob", "Carol"].map { name in
                let listed = try sandbox.run(arguments: ["--store", store, "--format", "json", "schedule", "list", "--person", name,
                                                         "--from", day.adding(days: 1).description, "--to", day.adding(days: 1).description])
                return (try json(listed.stdout)["shifts"] as? [[String: Any]] ?? []).count
            }
            // Exactly one of them now works Alice's night; the other's acceptance said why not.
            try #require(approved.reduce(0, +) == 1, "round \(round): \(approved) \(results.map { "\($0.status) \($0.stdout) \($0.stderr)" })")
            let loser = results[approved[0] == 1 ? 1 : 0]
            #expect(loser.status == 2, "\(loser.stdout) \(loser.stderr)")
            #expect(loser.stderr.split(separator: "\n").count == 1 && loser.stderr.contains("the shift changed since it was read"), "\(loser.stderr)")
            let requests = try json(try sandbox.run(arguments: ["--store", store, "--format", "json", "request", "list"]).stdout)["requests"] as? [[String: Any]] ?? []
            let states = Dictionary(uniqueKeysWithValues: requests.compactMap { item in (item["id"] as? String).map { ($0, item["state"] as? String ?? "") } })
            let (won, lost) = approved[0] == 1 ? (fromBob, fromCarol) : (fromCarol, fromBob)
            #expect(states[won] == "approved" && states[lost] == "pending", "the loser's acceptance wrote nothing: \(states)")
            let nightNow = try sandbox.run(arguments: ["--store", store, "--format", "json", "schedule", "list", "--person", "Alice",
                                                       "--from", day.adding(days: 1).description, "--to", day.adding(days: 1).description])
            #expect((try json(nightNow.stdout)["shifts"] as? [[String: Any]] ?? []).isEmpty, "Alice gave her night away once")
        }
    }
}
