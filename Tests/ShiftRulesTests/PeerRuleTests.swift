import Foundation
import TestSupport
import Testing
import ShiftCore
import ShiftInterop
@testable import ShiftRules

/// rules/examples/peers: their examples, and the counts of benchmarks/peers' reference checker on
/// its generated 10k roster (benchmarks/peers/README.md).
@Suite struct PeerRuleTests {
    static let folder = stockRules + "/examples/peers"
    static let benchmark = URL(fileURLWithPath: stockRules).deletingLastPathComponent().appendingPathComponent("benchmarks/peers").path

    static let results: [RuleExampleResult] = {
        guard let engine = try? World().engine([folder]) else { return [] }
        return engine.runExamples()
    }()

    static let names: [String] = results.map { "\($0.ruleID): \($0.name)" }

    @Test func theThreeConstraintsLoad() throws {
        let engine = try World().engine([Self.folder])
        #expect(engine.rules.map(\.id) == ["overlap", "shifts_per_day", "short_rest"])
        #expect(engine.rules.allSatisfy { $0.hasPersonPhase })
        #expect(Self.results.count == engine.rules.reduce(0) { $0 + $1.exampleCount })
    }

    @Test(arguments: names) func example(_ name: String) {
        let result = Self.results.first { "\($0.ruleID): \($0.name)" == name }!
        #expect(result.passed, "\(result.file): \(result.name): \(result.detail)")
    }

    /// The generator's 10k roster (100 people × 100 days), validated by the rules: the counts of
    /// the table in benchmarks/peers/README.md, exactly.
    @Test func theGeneratedRosterGivesTheReferenceCounts() throws {
        let csv = NSTemporaryDirectory() + "peers-roster-\(UUID().uuidString.prefix(8)).csv"
        defer { try? FileManager.default.removeItem(atPath: csv) }
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", Self.benchmark + "/gen_roster.py", "--people", "100", "--days", "100", "--out", csv]
        python.standardError = FileHandle.nullDevice
        try python.run()
        python.waitUntilExit()
        try #require(python.terminationStatus == 0, "python3 runs benchmarks/peers/gen_roster.py")
        let schedule = try TimedRosterCSV.schedule(from: Data(contentsOf: URL(fileURLWithPath: csv)))
        #expect(schedule.shiftCount == 9_702)
        var configuration = RuleEngineConfiguration(directories: [Self.folder])
        configuration.workers = 2
        let violations = try RuleEngine(configuration).validate(schedule)
        func counts(_ rule: String) -> (Int, Int) {
            let mine = violations.filter { $0.ruleID == rule }
            return (mine.count, Int(mine.reduce(0) { $0 + ($1.penalty ?? 0) }))
        }
        #expect(counts("overlap") == (105, 50_400))
        #expect(counts("short_rest") == (175, 56_040))
        #expect(counts("shifts_per_day") == (152, 152))
        #expect(ScoreSummary(violations).hardPenalty == 106_592)
    }
}
