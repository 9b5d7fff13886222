import Foundation
import ShiftCore
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `shiftctl` killed with SIGKILL at random moments while it writes: after every kill the store
/// opens (format and invariants checked), holds every acknowledged mutation (exit 0) and no part
/// of any other: a one-shift change and a three-shift import are each there whole or not at all,
/// with exactly one change-log entry per shift.
///
/// The suite runs a short pass (`SHIFT_CRASH_ROUNDS`, default 30); `scripts/crash-soak.sh` runs
/// thousands. `SHIFT_SEED` repeats a run.
@Suite(.serialized) struct CrashSafetyTests {
    /// One write of the run: a single `schedule add` or an import of three shifts.
    struct Write {
        let index: Int
        let dates: [String]
        let arguments: [String]
    }

    static let first = LocalDate("2030-01-01")!

    static func write(_ index: Int, store: String, in sandbox: Sandbox) throws -> Write {
        let start = first.adding(days: index * 3)
        if index.isMultiple(of: 2) {
            let date = start.description
            return Write(index: index, dates: [date], arguments: ["--store", store, "schedule", "add", "--type", "D", "--date", date])
        }
        let dates = (0..<3).map { start.adding(days: $0).description }
        let file = "write-\(index).csv"
        try sandbox.write("date,type,person,notes\n" + dates.map { "\($0),D,,write \(index)\n" }.joined(), to: file)
        return Write(index: index, dates: dates, arguments: ["--store", store, "import", file])
    }

    @Test(arguments: StoreBackend.allCases)
    func killedWritersNeverLoseOrHalfWriteAMutation(_ backend: StoreBackend) throws {
        let rounds = environmentCount("SHIFT_CRASH_ROUNDS", default: 30)
        let seed = SplitMix64.seed
        var random = SplitMix64(seed: seed)
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let store = backend.fileName
        // A store big enough that a save takes a while, so kills land inside saves too.
        for arguments in [["--store", store, "init", "--time-zone", "UTC"], ["--store", store, "type", "add", "D", "--time", "08:00-16:00"]] {
            let result = try sandbox.run(arguments: arguments)
            try #require(result.status == 0, "\(arguments): \(result.stderr)")
        }
        let filler = (0..<1_000).map { "\(LocalDate("2020-01-01")!.adding(days: $0 % 500)),D,,filler\n" }.joined()
        try sandbox.write("date,type,person,notes\n" + filler, to: "filler.csv")
        try #require(try sandbox.run("--store", store, "import", "filler.csv").status == 0)
        let baseline = try backend.open(sandbox.path + "/" + store)

        // How long an undisturbed write takes (the median of the recent ones, as the machine's
        // load changes): kills are spread over that span.
        var durations: [Double] = []
        var typical: Double { durations.suffix(9).sorted()[min(durations.count, 9) / 2] }
        var writes: [Write] = []
        for _ in 0..<3 {
            let write = try Self.write(writes.count, store: store, in: sandbox)
            let started = Date()
            let result = try sandbox.run(arguments: write.arguments)
            try #require(result.status == 0, "\(result.stderr)")
            durations.append(Date().timeIntervalSince(started))
            writes.append(write)
        }
        var acknowledged = Set(writes.map(\.index))

        var kills = 0
        var interrupted = 0
        for round in 0..<rounds {
            let write = try Self.write(writes.count, store: store, in: sandbox)
            writes.append(write)
            let started = Date()
            let process = try sandbox.launch(write.arguments)
            let deadline = started.addingTimeInterval(Double.random(in: 0.02...1.0, using: &random) * typical)
            while process.isRunning && Date() < deadline { usleep(1_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            if process.terminationReason == .uncaughtSignal {
                kills += 1
                if backend.showsInterruptedWrite(in: sandbox.path) { interrupted += 1 }
            } else {
                #expect(process.terminationStatus == 0, "round \(round) (seed \(seed)): the write failed on its own")
                if process.terminationStatus == 0 { acknowledged.insert(write.index) }
                durations.append(Date().timeIntervalSince(started))
            }
            try Self.check(backend, sandbox, store, baseline: baseline, writes: writes, acknowledged: &acknowledged,
                           context: "round \(round) (seed \(seed))")
        }
        #expect(kills >= rounds / 3, "most rounds should kill a running writer (\(kills) of \(rounds); seed \(seed))")
        // The figures for docs/guarantees.md (and for a soak run's log).
        print("crash safety (\(backend.rawValue), seed \(seed)): \(rounds) writes, \(kills) killed while running, "
              + "\(interrupted) of those left \(backend == .json ? "a temporary file" : "a -wal with frames") for the next open; "
              + "typical write \(Int(typical * 1000)) ms")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: sandbox.path).filter {
            $0 != store && $0 != "rules" && !$0.hasSuffix(".csv") && !backend.isLeftover($0)
        }
        #expect(leftovers.isEmpty, "unexpected files beside the store: \(leftovers)")
        // The store still takes changes after all the kills.
        #expect(try sandbox.run("--store", store, "person", "add", "Survivor").status == 0)
    }

    /// Opens the store and checks it against the writes so far. A killed write found complete in
    /// the store counts as acknowledged from then on (a later save must keep it too).
    static func check(_ backend: StoreBackend, _ sandbox: Sandbox, _ store: String, baseline: Schedule, writes: [Write],
                      acknowledged: inout Set<Int>, context: String) throws {
        let schedule: Schedule
        do {
            schedule = try backend.open(sandbox.path + "/" + store)
        } catch {
            Issue.record("\(context): the store does not open after a kill: \(error)")
            throw error
        }
        let baselineIDs = Set(baseline.shifts().map(\.id))
        let added = schedule.shifts().filter { !baselineIDs.contains($0.id) }
        var byDate: [String: Int] = [:]
        for shift in added { byDate[shift.date.description, default: 0] += 1 }
        var expectedDates = 0
        for write in writes {
            let present = write.dates.filter { byDate[$0] != nil }
            #expect(present.isEmpty || present.count == write.dates.count, "\(context): write \(write.index) is half there")
            #expect(write.dates.allSatisfy { (byDate[$0] ?? 0) <= 1 }, "\(context): write \(write.index) applied twice")
            if present.count == write.dates.count {
                acknowledged.insert(write.index)
                expectedDates += write.dates.count
            } else {
                #expect(!acknowledged.contains(write.index), "\(context): acknowledged write \(write.index) was lost")
            }
        }
        #expect(added.count == expectedDates, "\(context): shifts from no known write")
        #expect(schedule.changeLog.count - baseline.changeLog.count == added.count,
                "\(context): one change-log entry per shift, committed with it")
    }
}
