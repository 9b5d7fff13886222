import Foundation
import ShiftCore
import ShiftInterop
import ShiftRules
import ShiftStorage

/// Issue #9: validating a generated roster (benchmarks/peers: 10k, 100k, 1M shifts) against three
/// hard constraints, side by side with the pure-Python reference checker, in one run.
///
/// - `shiftctl validate` with the Lua rules of rules/examples/peers, whole processes on a JSON
///   store; the check time is the command's own `--stats` figure (store load and rule loading
///   reported apart), the wall time is the whole process.
/// - `benchmarks/peers/peer_python.py` on the same CSV (its warm check time; CSV loading apart).
/// - In process: the same Lua rules against the same three constraints in native Swift, on one
///   core, for the cost of Lua.
/// The counts of every figure must equal the reference checker's, or the suite fails.
enum PeerBenchmarks {
    struct Size {
        var label: String
        var people: Int
        var days: Int
    }

    static let sizes = [Size(label: "10k", people: 100, days: 100), Size(label: "100k", people: 1000, days: 100),
                        Size(label: "1m", people: 2740, days: 365)]

    /// The rosters within 10 % of the given shift counts (people × days).
    static func sizes(near counts: [Int]) -> [Size] {
        sizes.filter { size in counts.contains { abs($0 - size.people * size.days) * 10 < size.people * size.days } }
    }

    static func run(runs: Int, sizes: [Size], data: String, rulesDirectory: String) throws {
        guard let shiftctl = siblingShiftctl(suite: "peers") else { return }
        let rules = URL(fileURLWithPath: rulesDirectory).standardizedFileURL.path
        let peers = URL(fileURLWithPath: data).standardizedFileURL.path
        print("## Validating a roster side by side with the peers (benchmarks/peers)\n")
        print("The roster generator of benchmarks/peers (seeded), three hard constraints counted as its reference checker counts them (rules/examples/peers, docs/peers.md). `shiftctl validate --rules rules/examples/peers --score --limit 0 --stats` on a JSON store: *check* is its own figure for running the rules over the whole schedule (store load and rule loading are reported apart), *wall* the whole process. Python is `peer_python.py`'s warm check (CSV parsing excluded). Every run's counts equal the reference checker's.\n")
        // The rosters and their stores are kept between runs (generating the million takes a
        // while; the stores are there to profile a step by hand).
        let cache = NSTemporaryDirectory() + "shiftbench-peers"
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        FileHandle.standardError.write(Data("shiftbench: peers: rosters and stores in \(cache)\n".utf8))

        var side = Report(["roster", "shifts", "shiftctl check", "load", "rules", "wall", "peak RSS", "Python check", "Python ÷ shiftctl", "counts"])
        var native = Report(["roster", "Lua rules, 1 state", "native Swift, 1 thread", "Lua ÷ Swift", "Lua rules, 2 states"])
        for size in sizes {
            let csv = cache + "/roster_\(size.label).csv"
            if !FileManager.default.fileExists(atPath: csv) {
                FileHandle.standardError.write(Data("shiftbench: generating \(csv)\n".utf8))
                _ = try runProcess("/usr/bin/env", ["python3", peers + "/gen_roster.py", "--people", "\(size.people)", "--days", "\(size.days)", "--out", csv])
            }
            let reference = try pythonCheck(peers: peers, csv: csv, runs: runs)
            let schedule = try TimedRosterCSV.schedule(from: Data(contentsOf: URL(fileURLWithPath: csv)))
            let store = cache + "/roster_\(size.label).json"
            try JSONFileRepository(path: store).write(StoreFileCodec.encode(schedule))

            var results: [ValidateRun] = []
            for _ in 0..<runs {
                let clock = ContinuousClock()
                let start = clock.now
                let output = try runProcess(shiftctl, [
                    "--store", store, "validate", "--rules", rules, "--score", "--limit", "0", "--stats", "--format", "json",
                ], allowViolations: true)
                let wall = (clock.now - start).seconds
                results.append(try ValidateRun(json: output, wall: wall))
            }
            for result in results where result.counts != reference.counts {
                throw BenchmarkError(message: "roster \(size.label): shiftctl counted \(result.counts), the reference checker \(reference.counts)")
            }
            let check = Sample(seconds: results.map(\.check))
            side.add([
                size.label, "\(schedule.shiftCount)", "\(formatTime(check.median)) (\(formatTime(check.min))–\(formatTime(check.max)))",
                formatTime(Sample(seconds: results.map(\.load)).median), formatTime(Sample(seconds: results.map(\.rules)).median),
                formatTime(Sample(seconds: results.map(\.wall)).median), String(format: "%.0f MiB", Sample(seconds: results.map(\.rss)).median),
                formatTime(reference.warm), String(format: "%.2fx", reference.warm / check.median), "identical",
            ])

            // Lua against native Swift, in this process, on the schedule in memory.
            let one = try engine(rules, workers: 1)
            let two = try engine(rules, workers: 2)
            // Alternating, so that the machine's moods touch both alike; the ratio is the median of
            // each round's.
            var luaCounts: Counts?
            var swiftCounts: Counts?
            var luaRuns: [Double] = [], swiftRuns: [Double] = []
            for _ in 0..<runs {
                luaRuns += try measure(runs: 1) { luaCounts = Counts(try one.validate(schedule)) }.seconds
                swiftRuns += measure(runs: 1) { swiftCounts = Counts(NativePeerRules.validate(schedule)) }.seconds
            }
            let lua = Sample(seconds: luaRuns), swift = Sample(seconds: swiftRuns)
            let ratio = ratios(luaRuns, swiftRuns)
            let parallel = try measure(runs: runs) { _ = try two.validate(schedule) }
            guard luaCounts == reference.counts, swiftCounts == reference.counts else {
                throw BenchmarkError(message: "roster \(size.label): in process, Lua counted \(String(describing: luaCounts)), Swift \(String(describing: swiftCounts)), the reference \(reference.counts)")
            }
            native.add([size.label, formatTime(lua.median), formatTime(swift.median),
                        String(format: "%.2fx (%.2f–%.2f)", ratio.median, ratio.min, ratio.max),
                        formatTime(parallel.median)])
        }
        print(side.markdown())
        print("\nThe cost of Lua: the same three constraints as Lua rules (person phase) and as native Swift over the same timelines, in process on the schedule in memory (\(runs) rounds, each timing the Lua rules on one state and then the Swift; medians, and the median and range of the rounds' ratios):\n")
        print(native.markdown())
        print()
    }

    /// `shiftbench peers-lua --rules DIR [--sizes N]`: a profiling aid, not a figure of
    /// BENCHMARKS.md. Whole-schedule validation of one cached roster with the given rules, in
    /// process on one Lua state and on two (median of the runs), to weigh one change to a rule
    /// or to the host at a time. Run `shiftbench peers` once first (it writes the rosters). It also
    /// gives CPU times (one state, and the peer constraints in native Swift, with their ratio).
    static func profile(runs: Int, size: Size, rulesDirectory: String) throws {
        let csv = NSTemporaryDirectory() + "shiftbench-peers/roster_\(size.label).csv"
        guard FileManager.default.fileExists(atPath: csv) else {
            throw BenchmarkError(message: "no \(csv): run `shiftbench peers --sizes \(size.people * size.days)` first")
        }
        let schedule = try TimedRosterCSV.schedule(from: Data(contentsOf: URL(fileURLWithPath: csv)))
        let rules = URL(fileURLWithPath: rulesDirectory).standardizedFileURL.path
        let one = try engine(rules, workers: 1)
        let two = try engine(rules, workers: 2)
        var found = 0
        let single = try measure(runs: runs) { found = try one.validate(schedule).count }
        let parallel = try measure(runs: runs) { _ = try two.validate(schedule) }
        let cpu = try measureCPU(runs: runs) { _ = try one.validate(schedule) }
        // The yardstick: the three peer constraints in Swift (meaningful for rules/examples/peers).
        let native = measureCPU(runs: runs) { _ = NativePeerRules.validate(schedule) }
        let trials = one.trialCounts
        print("\(rules) on roster \(size.label) (\(trials.trials) trials, \(trials.reruns) run again): 1 state \(formatTime(single.median)) (\(formatTime(single.min))–\(formatTime(single.max))), CPU \(formatTime(cpu.median)) (\(formatTime(cpu.min))–\(formatTime(cpu.max))); 2 states \(formatTime(parallel.median)); \(found) violations; the peer constraints in Swift: CPU \(formatTime(native.median)), Lua ÷ Swift \(String(format: "%.2fx", cpu.median / native.median))")
    }

    private static func engine(_ rules: String, workers: Int) throws -> RuleEngine {
        var configuration = RuleEngineConfiguration(directories: [rules])
        configuration.workers = workers
        return try RuleEngine(configuration)
    }

    /// The figures compared: pairs and penalties of each constraint.
    struct Counts: Equatable, CustomStringConvertible {
        var overlap: (Int, Int) = (0, 0)
        var rest: (Int, Int) = (0, 0)
        var perDay: (Int, Int) = (0, 0)

        static func == (a: Counts, b: Counts) -> Bool { a.overlap == b.overlap && a.rest == b.rest && a.perDay == b.perDay }

        var hardScore: Int { -(overlap.1 + rest.1 + perDay.1) }
        var description: String {
            "overlap \(overlap.0)/\(overlap.1), rest \(rest.0)/\(rest.1), per day \(perDay.0)/\(perDay.1), hard score \(hardScore)"
        }

        init() {}

        init(_ violations: [Violation]) {
            for violation in violations {
                let penalty = Int(violation.penalty ?? 1)
                switch violation.ruleID {
                case "overlap": overlap = (overlap.0 + 1, overlap.1 + penalty)
                case "short_rest": rest = (rest.0 + 1, rest.1 + penalty)
                case "shifts_per_day": perDay = (perDay.0 + 1, perDay.1 + penalty)
                default: break
                }
            }
        }
    }

    struct ValidateRun {
        var counts = Counts()
        var load: Double
        var rules: Double
        var check: Double
        var wall: Double
        var rss: Double

        init(json: String, wall: Double) throws {
            guard let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
                  let stats = object["stats"] as? [String: Any], let score = object["score"] as? [String: Any],
                  let byRule = score["byRule"] as? [String: [String: Any]] else {
                throw BenchmarkError(message: "shiftctl validate printed no stats and score: \(json.prefix(500))")
            }
            func rule(_ id: String) -> (Int, Int) {
                ((byRule[id]?["count"] as? Int) ?? -1, Int((byRule[id]?["penalty"] as? Double) ?? -1))
            }
            counts.overlap = rule("overlap")
            counts.rest = rule("short_rest")
            counts.perDay = rule("shifts_per_day")
            load = stats["loadSeconds"] as? Double ?? 0
            rules = stats["rulesSeconds"] as? Double ?? 0
            check = stats["checkSeconds"] as? Double ?? 0
            rss = stats["peakMemoryMiB"] as? Double ?? 0
            self.wall = wall
        }
    }

    struct Reference {
        var counts = Counts()
        var warm: Double
    }

    /// `peer_python.py CSV --repeat runs`: its counts and its best warm check time.
    private static func pythonCheck(peers: String, csv: String, runs: Int) throws -> Reference {
        let output = try runProcess("/usr/bin/env", ["python3", peers + "/peer_python.py", csv, "--repeat", "\(runs)"])
        guard let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any],
              let counts = object["counts"] as? [String: Int], let warm = object["warm_all_s"] as? [Double] else {
            throw BenchmarkError(message: "peer_python.py printed no counts: \(output.prefix(500))")
        }
        var reference = Reference(warm: Sample(seconds: warm).median)
        reference.counts.overlap = (counts["overlap_matches"] ?? -1, counts["overlap_penalty"] ?? -1)
        reference.counts.rest = (counts["rest_matches"] ?? -1, counts["rest_penalty"] ?? -1)
        reference.counts.perDay = (counts["per_day_matches"] ?? -1, counts["per_day_penalty"] ?? -1)
        return reference
    }
}

/// The three constraints of rules/examples/peers written in Swift over the same timelines, with
/// the same messages: the yardstick for the cost of Lua.
enum NativePeerRules {
    static func validate(_ schedule: Schedule) -> [Violation] {
        var violations: [Violation] = []
        var symbols: [ShiftTypeID: String] = [:]
        for type in schedule.shiftTypes { symbols[type.id] = type.symbol }
        for person in schedule.people {
            let shifts = schedule.timeline(of: person.id)
            guard shifts.count > 1 else { continue }
            func describe(_ shift: TimedShift) -> String { "\(shift.date) \(symbols[shift.type] ?? "")" }
            for i in 1..<shifts.count {
                let previous = shifts[i - 1]
                let shift = shifts[i]
                if shift.start < previous.end {
                    let minutes = (min(previous.end, shift.end) - shift.start) / 60
                    violations.append(Violation(
                        ruleID: "overlap", severity: .error,
                        message: "\(person.displayName) works \(describe(previous)) and \(describe(shift)) at once (\(minutes) min)",
                        penalty: Double(minutes), shiftID: shift.id, personID: person.id, date: shift.date, relatedShiftIDs: [previous.id]))
                }
                let gap = shift.start - previous.end
                if gap >= 0, gap < 36_000 {
                    let short = (36_000 - gap) / 60
                    violations.append(Violation(
                        ruleID: "short_rest", severity: .error,
                        message: "\(person.displayName) rests \(gap / 60) min between \(describe(previous)) and \(describe(shift)) (\(short) min short)",
                        penalty: Double(short), shiftID: shift.id, personID: person.id, date: shift.date, relatedShiftIDs: [previous.id]))
                }
            }
            var i = 0
            while i < shifts.count - 1 {
                var last = i
                while last + 1 < shifts.count, shifts[last + 1].date == shifts[i].date { last += 1 }
                if last > i {
                    violations.append(Violation(
                        ruleID: "shifts_per_day", severity: .error,
                        message: "\(person.displayName) has \(last - i + 1) shifts starting on \(shifts[i].date)", penalty: 1,
                        shiftID: shifts[i].id, personID: person.id, date: shifts[i].date, relatedShiftIDs: shifts[(i + 1)...last].map(\.id)))
                }
                i = last + 1
            }
        }
        return violations
    }
}
