import Foundation
import ShiftCore
import ShiftRules
import ShiftStorage

/// Scoring INRC-II solutions with the Lua rules in rules/examples/inrc2 (docs/inrc2.md): the
/// whole `shiftctl validate --score` process on the largest shared instance, and the rules'
/// share of it measured in process.
enum INRC2Benchmarks {
    static func run(runs: Int, data: String, instances: [(String, String)]) throws {
        let shiftctl = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("shiftctl").path
        guard FileManager.default.isExecutableFile(atPath: shiftctl) else {
            FileHandle.standardError.write(Data("shiftbench: inrc2: no shiftctl next to shiftbench (build it: swift build -c release)\n".utf8))
            return
        }
        guard FileManager.default.fileExists(atPath: data) else {
            FileHandle.standardError.write(Data("shiftbench: inrc2: no INRC-II data in \(data) (run from the repository root)\n".utf8))
            return
        }
        print("## INRC-II scoring (goal: n120w8 in ≤ 1 s)\n")
        print("`shiftctl inrc2 import` then `shiftctl validate --score` with the eleven INRC-II Lua rules, as whole processes (start, open the JSON store, compile the rules, score, print); \"rules only\" is `RuleEngine.validate` on the loaded schedule in this process.\n")
        var report = Report(["instance", "solution", "shifts", "import", "validate --score (median, min–max)", "rules only (median)", "total cost"])
        for (instance, solution) in instances {
            let directory = NSTemporaryDirectory() + "shiftbench-inrc2-\(getpid())"
            try? FileManager.default.removeItem(atPath: directory)
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let store = directory + "/s.json"
            let started = Date()
            _ = try runProcess(shiftctl, ["--store", store, "inrc2", "import", "\(data)/\(instance)", "--solution", "\(data)/\(instance)/\(solution)"])
            let imported = Date().timeIntervalSince(started)
            var output = ""
            let wall = try measure(runs: runs) {
                output = try runProcess(shiftctl, ["--store", store, "validate", "--score", "--format", "json"], allowViolations: true)
            }
            let cost = (try? JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
                .flatMap { $0["score"] as? [String: Any] }.flatMap { $0["softPenalty"] as? Double } ?? -1
            let schedule = try JSONFileRepository(path: store).load().0
            let engine = try RuleEngine(RuleEngineConfiguration(directories: [directory + "/rules/examples/inrc2"], config: RulesConfig(settings: schedule.settings)))
            let rules = try measure(runs: runs) { _ = try engine.validate(schedule) }
            report.add([instance, solution, "\(schedule.shiftCount)", formatTime(imported),
                        "\(formatTime(wall.median)) (\(formatTime(wall.min))–\(formatTime(wall.max)))", formatTime(rules.median),
                        String(Int(cost))])
        }
        print(report.markdown())
        print("")
    }
}
