import TestSupport
import Testing
import ShiftCore
import LuaHost
@testable import ShiftRules

/// The stock rules with every speed-only mechanism of the Lua runtime switched off (the block
/// pool, word fields, record functions: `LuaRuntime.Configuration.plainPaths`) and calls counted
/// from the start (no trials) report exactly what they report with all of them on, on random
/// schedules: the whole schedule, and a batch of changes. (The person phases have their own
/// comparison, StockPersonPhaseEquivalenceTests.)
@Suite struct PlainPathTests {
    private func engine(plain: Bool) throws -> RuleEngine {
        let config = RulesConfig(parameters: [
            "max_consecutive_days": ["days": .number(4)],
            "max_hours_per_week": ["average_hours": .number(30), "reference_weeks": .number(2), "reference_start": .string("2026-03-09"),
                                   "max_week_hours": .number(40)],
        ])
        var configuration = RuleEngineConfiguration(directories: [stockRules], config: config, now: { fixedNow })
        configuration.workers = 1
        if plain {
            configuration.limits.plainPaths = .all
            configuration.limits.trials = false
        }
        return try RuleEngine(configuration)
    }

    private func lines(_ violations: [Violation]) -> [String] {
        violations.map { "\($0.ruleID) \($0.severity) \($0.shiftID?.description ?? "-") \($0.relatedShiftIDs.map(\.description)) \($0.message)" }
    }

    @Test(arguments: [1, 2, 3] as [UInt64]) func everyViolationIsTheSame(seed: UInt64) throws {
        let schedule = try StockPersonPhaseEquivalenceTests.randomSchedule(seed: seed)
        let fast = lines(try engine(plain: false).validate(schedule))
        let plain = lines(try engine(plain: true).validate(schedule))
        #expect(fast.count > 20, "the random roster breaks the rules")
        #expect(fast == plain)
    }
}

extension PlainPathTests {
    @Test(arguments: [1, 2] as [UInt64]) func aBatchReportsTheSame(seed: UInt64) throws {
        let phases = StockPersonPhaseEquivalenceTests()
        let proposal = try phases.randomBatch(on: try StockPersonPhaseEquivalenceTests.randomSchedule(seed: seed), seed: seed)
        let fast = lines(try engine(plain: false).evaluate(proposal))
        #expect(!fast.isEmpty)
        #expect(fast == lines(try engine(plain: true).evaluate(proposal)))
    }
}
