import Foundation

/// `shiftctl solve` on the 28 INRC-II competition problems (the 14 instances of n030 to n120
/// nurses with the two history and week sequences each of their shared solutions), as whole
/// processes: import the problem, solve it at a fixed time limit, export the solution files,
/// score them with the independent scorer (scripts/inrc2_reference.py). Side by side, in the same
/// run with the same limit and workers: the CP-SAT model of benchmarks/peers/inrc2_cpsat.py (when
/// OR-Tools is installed in .venv-bench), scored by the same scorer.
///
/// The published reference costs below are only compared with, never given to the solver.
enum SolveBenchmarks {
    struct Problem {
        let instance: String
        let history: Int
        let weeks: [Int]
        var name: String { "\(instance)_\(history)_" + weeks.map(String.init).joined(separator: "-") }
    }

    /// Competition best and best static cost of each problem (issue #30's table: the competition's
    /// best over all teams, and Legrain, Omer, Rosat 2020 / NurseScheduler's branch and price).
    static let references: [String: (competition: Int, bestStatic: Int)] = [
        "n030w4_1_6-2-9-1": (1755, 1670), "n030w4_1_6-7-5-3": (1935, 1815),
        "n030w8_1_2-7-0-9-3-6-0-6": (2340, 2070), "n030w8_1_6-7-5-3-5-6-2-9": (1900, 1735),
        "n040w4_0_2-0-6-1": (1730, 1565), "n040w4_2_6-1-0-6": (1880, 1750),
        "n040w8_0_0-6-8-9-2-6-6-4": (3310, 2620), "n040w8_2_5-0-4-8-7-1-7-2": (2700, 2420),
        "n050w4_0_0-4-8-7": (1490, 1315), "n050w4_0_7-2-7-2": (1480, 1315),
        "n050w8_1_1-7-8-5-7-4-1-8": (5410, 4900), "n050w8_1_9-7-5-3-8-8-3-1": (5435, 4925),
        "n060w4_1_6-1-1-5": (2815, 2450), "n060w4_1_9-6-3-8": (2950, 2675),
        "n060w8_0_6-2-9-9-0-8-1-3": (2765, 2345), "n060w8_2_1-0-3-4-0-3-9-1": (3065, 2590),
        "n080w4_2_4-3-3-3": (3535, 3300), "n080w4_2_6-0-4-8": (3570, 3190),
        "n080w8_1_4-4-9-9-3-6-0-5": (4995, 4180), "n080w8_2_0-4-0-9-1-9-6-2": (5030, 4450),
        "n100w4_0_1-1-0-8": (1445, 1170), "n100w4_2_0-6-4-6": (2100, 1780),
        "n100w8_0_0-1-7-8-9-1-5-4": (3080, 2125), "n100w8_1_2-4-7-9-3-9-2-8": (3055, 2210),
        "n120w4_1_4-6-2-6": (2435, 2020), "n120w4_1_5-6-9-8": (2485, 2050),
        "n120w8_0_0-9-9-4-5-1-0-3": (3615, 2600), "n120w8_1_7-2-6-4-5-2-0-2": (3510, 3095),
    ]

    /// The problems of the shared data: one per distinct history and week sequence among each
    /// instance's solution folders (`Solution_H_<h>-WD_<w0>-…`).
    static func problems(data: String, only: [String]?) -> [Problem] {
        let fm = FileManager.default
        var list: [Problem] = []
        for instance in ((try? fm.contentsOfDirectory(atPath: data)) ?? []).sorted() where instance.hasPrefix("n") {
            guard let number = Int(instance.dropFirst().prefix(3)), number >= 30 else { continue }
            var seen: Set<String> = []
            for folder in ((try? fm.contentsOfDirectory(atPath: data + "/" + instance)) ?? []).sorted() where folder.hasPrefix("Solution_H_") {
                // Solution_H_<h>-WD_<w0>-<w1>-…[__<variant>]
                let name = folder.dropFirst("Solution_H_".count)
                let key = name.range(of: "__").map { String(name[..<$0.lowerBound]) } ?? String(name)
                let parts = key.components(separatedBy: "-WD_")
                guard parts.count == 2, let history = Int(parts[0]), seen.insert(key).inserted else { continue }
                let weeks = parts[1].split(separator: "-").compactMap { Int($0) }
                let problem = Problem(instance: instance, history: history, weeks: weeks)
                if only.map({ $0.contains { problem.name.hasPrefix($0) } }) ?? true { list.append(problem) }
            }
        }
        return list
    }

    struct Outcome {
        var hard = -1
        var cost = -1
        var movesPerSecond: Double?
        var note = ""
    }

    /// Slots per demand entry beyond its optimal (`solve --overstaff`): INRC-II charges nothing
    /// for them, and its best rosters use them (docs/inrc2.md has the measurement).
    static let overstaff = 2

    static func run(data: String, seconds4: Double, seconds8: Double, workers: Int, only: [String]?) throws {
        let shiftctl = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("shiftctl").path
        guard FileManager.default.isExecutableFile(atPath: shiftctl) else {
            FileHandle.standardError.write(Data("shiftbench: solve: no shiftctl next to shiftbench (build it: swift build -c release)\n".utf8))
            return
        }
        let cpsatPython = ".venv-bench/bin/python"
        let cpsat = FileManager.default.isExecutableFile(atPath: cpsatPython) && FileManager.default.fileExists(atPath: "benchmarks/peers/inrc2_cpsat.py")
        let problems = problems(data: data, only: only)
        print("## Solving INRC-II (goals: 0 hard everywhere; cost at or below the competition best; mean gap to the best static ≤ 5 %; no worse than CP-SAT)\n")
        print("`shiftctl inrc2 import`, `shiftctl solve --time-limit T --workers \(workers) --seed 1 --overstaff \(overstaff)`, `shiftctl inrc2 export`, then scripts/inrc2_reference.py scores the files; T = \(Int(seconds4)) s for 4 weeks, \(Int(seconds8)) s for 8 weeks. "
              + (cpsat ? "CP-SAT: benchmarks/peers/inrc2_cpsat.py with the same limit and workers, scored by the same scorer." : "CP-SAT: not run (install it: python3 -m venv .venv-bench && .venv-bench/bin/pip install ortools).") + "\n")
        var report = Report(["problem", "hard", "cost", "competition best", "best static", "gap to best static", "moves/s", "CP-SAT hard", "CP-SAT cost"])
        var gaps: [Double] = []
        var ours: [Int] = [], theirs: [Int] = []
        for problem in problems {
            let limit = problem.weeks.count > 4 ? seconds8 : seconds4
            let mine = try solveOurs(problem, shiftctl: shiftctl, data: data, seconds: limit, workers: workers)
            let peer = cpsat ? try solveCPSAT(problem, python: cpsatPython, data: data, seconds: limit, workers: workers) : Outcome(note: "-")
            let reference = references[problem.name]
            var gap = "-"
            if let reference, mine.hard == 0, mine.cost >= 0 {
                let value = Double(mine.cost - reference.bestStatic) / Double(reference.bestStatic) * 100
                gaps.append(value)
                gap = String(format: "%.1f %%", value)
            }
            if mine.cost >= 0, peer.cost >= 0, mine.hard == 0, peer.hard == 0 {
                ours.append(mine.cost)
                theirs.append(peer.cost)
            }
            report.add([problem.name, mine.hard >= 0 ? "\(mine.hard)\(mine.note)" : mine.note, mine.cost >= 0 ? "\(mine.cost)\(mine.note)" : "-",
                        reference.map { "\($0.competition)" } ?? "-", reference.map { "\($0.bestStatic)" } ?? "-", gap,
                        mine.movesPerSecond.map { String(format: "%.0f", $0) } ?? "-",
                        peer.hard >= 0 ? "\(peer.hard)" : peer.note, peer.cost >= 0 ? "\(peer.cost)" : "-"])
        }
        print(report.markdown())
        print("\n`*`: the rules refused to write the best roster found (errors a check guards), so its figures are `validate --score`'s, not the independent scorer's. Moves/s are per worker.")
        if !gaps.isEmpty {
            print(String(format: "\nMean gap to the best static cost over the %d feasible problems: %.1f %%.", gaps.count, gaps.reduce(0, +) / Double(gaps.count)))
        }
        if !ours.isEmpty {
            let mean = { (list: [Int]) in Double(list.reduce(0, +)) / Double(list.count) }
            print(String(format: "Mean cost where both are feasible (%d problems): shiftctl %.0f, CP-SAT %.0f.", ours.count, mean(ours), mean(theirs)))
        }
        print("")
    }

    private static func files(_ problem: Problem, data: String) -> (scenario: String, history: String, weeks: [String]) {
        let folder = "\(data)/\(problem.instance)"
        return ("\(folder)/Sc-\(problem.instance).txt", "\(folder)/H0-\(problem.instance)-\(problem.history).txt",
                problem.weeks.map { "\(folder)/WD-\(problem.instance)-\($0).txt" })
    }

    /// Scores solution files with the independent scorer: (hard violations, total cost).
    private static func score(_ problem: Problem, data: String, solutions: [String]) throws -> (Int, Int) {
        let (scenario, history, weeks) = files(problem, data: data)
        let output = try runProcess("/usr/bin/env", ["python3", "scripts/inrc2_reference.py", "--scenario", scenario, "--history", history,
                                                     "--weeks"] + weeks + ["--solutions"] + solutions)
        guard let json = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any],
              let hard = json["hard"] as? [String: Int], let total = json["total"] as? Int else {
            throw BenchError("the reference scorer printed no score for \(problem.name)")
        }
        return (hard.values.reduce(0, +), total)
    }

    private static func solveOurs(_ problem: Problem, shiftctl: String, data: String, seconds: Double, workers: Int) throws -> Outcome {
        let directory = NSTemporaryDirectory() + "shiftbench-solve-\(getpid())"
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = directory + "/p.json"
        _ = try runProcess(shiftctl, ["--store", store, "inrc2", "import", "\(data)/\(problem.instance)", "--history", "\(problem.history)",
                                      "--weeks", problem.weeks.map(String.init).joined(separator: ",")])
        let output = try runProcess(shiftctl, ["--store", store, "solve", "--time-limit", "\(seconds)", "--workers", "\(workers)", "--seed", "1",
                                               "--overstaff", "\(overstaff)",
                                               "--quiet", "--format", "json"], allowViolations: true)
        let plan = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
        let rate = (plan?["movesPerSecond"] as? Double).map { $0 / Double(max(1, (plan?["workers"] as? Int) ?? 1)) }
        guard plan?["written"] as? Bool == true else {
            // The rules refused the best roster (hard violations a check guards): its score is
            // our validate's, marked *, since there are no files for the independent scorer.
            let after = plan?["after"] as? [String: Any]
            return Outcome(hard: (after?["hardViolations"] as? Int) ?? -1, cost: Int((after?["softPenalty"] as? Double) ?? -1),
                           movesPerSecond: rate, note: "*")
        }
        let exported = try runProcess(shiftctl, ["--store", store, "inrc2", "export", directory + "/out", "--format", "json"])
        let paths = ((try JSONSerialization.jsonObject(with: Data(exported.utf8)) as? [String: Any])?["files"] as? [[String: Any]] ?? [])
            .compactMap { $0["path"] as? String }.map { $0.hasPrefix("/") ? $0 : FileManager.default.currentDirectoryPath + "/" + $0 }
        let (hard, cost) = try score(problem, data: data, solutions: paths)
        return Outcome(hard: hard, cost: cost, movesPerSecond: rate)
    }

    private static func solveCPSAT(_ problem: Problem, python: String, data: String, seconds: Double, workers: Int) throws -> Outcome {
        let directory = NSTemporaryDirectory() + "shiftbench-cpsat-\(getpid())"
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (scenario, history, weeks) = files(problem, data: data)
        let output = try runProcess(python, ["benchmarks/peers/inrc2_cpsat.py", "--scenario", scenario, "--history", history, "--weeks"] + weeks
                                    + ["--out", directory, "--time-limit", "\(seconds)", "--workers", "\(workers)", "--seed", "1"])
        let result = try JSONSerialization.jsonObject(with: Data((output.split(separator: "\n").last.map(String.init) ?? "").utf8)) as? [String: Any]
        let files = (result?["files"] as? [String]) ?? []
        guard !files.isEmpty else { return Outcome(note: (result?["status"] as? String) ?? "no solution") }
        let (hard, cost) = try score(problem, data: data, solutions: files.map { $0.hasPrefix("/") ? $0 : directory + "/" + $0 })
        return Outcome(hard: hard, cost: cost)
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
