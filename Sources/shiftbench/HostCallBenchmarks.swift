import Foundation
import ShiftCore
import ShiftRules

/// `shiftbench host`: what one call from a Lua rule into the schedule API costs, in nanoseconds.
/// Each snippet runs in a loop inside one rule's whole-schedule phase (`validate`) on a
/// 10,000-shift schedule; its figure is the loop's CPU time less the same loop doing only an
/// assignment, per iteration (median of the runs). Process CPU time, not wall time: on a shared
/// machine the time the hypervisor gives other guests is left out, so small changes show.
enum HostCallBenchmarks {
    /// (what is measured, the loop's body). `person`, `day` and `id` are set before the loop.
    static let snippets: [(String, String)] = [
        ("the cheapest call: `cal.minutes_between(t1, t2)` (two integers in, one out)", "x = cal.minutes_between(0, i)"),
        ("a view field already read (`person.name`)", "x = person.name"),
        ("a view field that is a table, made on every read (`person.attributes`)", "x = person.attributes"),
        ("one attribute, no table (`person:attribute(\"team\")`)", #"x = person:attribute("team")"#),
        ("`cal.days_between(d1, d2)`", #"x = cal.days_between("2025-01-01", day)"#),
        ("`cal.add_days(d, n)`", "x = cal.add_days(day, 3)"),
        ("`schedule:shift(id)` (a view made once, then the same one)", "x = schedule:shift(id)"),
        ("`schedule:count{ person = p, date = d }`", "x = schedule:count{ person = person, date = day }"),
        ("`schedule:shifts{ person = p, date = d }` (one shift)", "x = schedule:shifts{ person = person, date = day }"),
        ("`schedule:minutes{ person = p, from = d1, to = d2 }` (17 weeks)", #"x = schedule:minutes{ person = person, from = "2025-01-06", to = "2025-05-04" }"#),
    ]

    static func run(runs: Int, iterations: Int = 100_000) throws {
        print("## One call from Lua into the schedule API\n")
        print("Each call runs \(iterations) times in a loop in one rule's whole-schedule phase on a 10,000-shift schedule; the figure is the loop's process CPU time less that of a loop that only assigns, per call (median of \(runs) runs, range in brackets). It is what a rule pays for each call, whatever the call finds.\n")
        let schedule = try Generator.schedule(shifts: 10_000)
        guard let first = schedule.shifts(ShiftQuery(limit: 1)).first, let person = first.personID else {
            throw BenchmarkError(message: "the generated schedule has no assigned shift")
        }
        let setup = "local person = schedule:person(\"\(person)\"); local day = \"\(first.date)\"; local id = \"\(first.id)\""
        let baseline = try loopTime(schedule, setup, "x = i", iterations: iterations, runs: runs)
        var table = Report(["call", "ns per call"])
        table.add(["the loop alone (an assignment)", String(format: "%.0f", baseline.median / Double(iterations) * 1e9)])
        for (label, body) in snippets {
            let sample = try loopTime(schedule, setup, body, iterations: iterations, runs: runs)
            func perCall(_ seconds: Double) -> String { String(format: "%.0f", max(0, seconds - baseline.median) / Double(iterations) * 1e9) }
            table.add([label, "\(perCall(sample.median)) (\(perCall(sample.min))–\(perCall(sample.max)))"])
        }
        print(table.markdown())
        print()
    }

    /// CPU seconds of the loop, one sample per run.
    private static func loopTime(_ schedule: Schedule, _ setup: String, _ body: String, iterations: Int, runs: Int) throws -> Sample {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shiftbench-host-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try """
            return rule { id = "loop", summary = "one call, \(iterations) times",
              validate = function(schedule, report)
                \(setup)
                local x
                for i = 1, \(iterations) do \(body) end
              end }
            """.write(to: folder.appendingPathComponent("loop.lua"), atomically: true, encoding: .utf8)
        var configuration = RuleEngineConfiguration(directories: [folder.path])
        configuration.workers = 1
        configuration.limits.instructionBudget = 1_000_000_000
        configuration.limits.timeLimit = .seconds(60)
        let engine = try RuleEngine(configuration)
        _ = try engine.validate(schedule) // warm up: compiled, caches filled
        return try measureCPU(runs: runs) { _ = try engine.validate(schedule) }
    }
}
