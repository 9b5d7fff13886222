import Foundation
import Testing
import ShiftCore
@testable import ShiftRules

/// Every stock rule carries examples; each one is a test (as SwiftLint's rule examples are).
@Suite struct StockRuleExampleTests {
    static let results: [RuleExampleResult] = {
        guard let engine = try? World().engine() else { return [] }
        return engine.runExamples()
    }()

    static let names: [String] = results.map { "\($0.ruleID): \($0.name)" }

    @Test func theStockRulesLoad() throws {
        let engine = try World().engine()
        #expect(engine.rules.map(\.id) == [
            "balanced_workload", "desired_days", "location_in_use", "max_consecutive_days", "max_hours_per_week", "meets_demand",
            "min_rest_between_shifts", "no_double_booking", "one_shift_per_day", "person_in_use", "required_skill",
            "respects_availability", "shift_type_in_use",
        ])
        #expect(engine.rules.allSatisfy { $0.exampleCount >= 2 }, "every stock rule has passing and failing examples")
        #expect(Self.results.count == engine.rules.reduce(0) { $0 + $1.exampleCount })
    }

    @Test(arguments: names) func example(_ name: String) {
        let result = Self.results.first { "\($0.ruleID): \($0.name)" == name }!
        #expect(result.passed, "\(result.file): \(result.name): \(result.detail)")
    }

    @Test func everyRuleHasAPassingAndAFailingExample() {
        for rule in Set(Self.results.map(\.ruleID)) {
            let mine = Self.results.filter { $0.ruleID == rule }
            #expect(mine.contains { $0.expectsViolation } && mine.contains { !$0.expectsViolation }, "\(rule)")
        }
    }
}
