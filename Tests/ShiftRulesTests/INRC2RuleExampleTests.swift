import Foundation
import TestSupport
import Testing
import ShiftCore
@testable import ShiftRules

/// The INRC-II rules (rules/examples/inrc2) carry examples like the stock rules; each is a test.
/// Their scores on real competition data are checked in ShiftAppTests/INRC2Tests.
@Suite struct INRC2RuleExampleTests {
    static let folder = stockRules + "/examples/inrc2"

    static let results: [RuleExampleResult] = {
        guard let engine = try? World().engine([folder]) else { return [] }
        return engine.runExamples()
    }()

    static let names: [String] = results.map { "\($0.ruleID): \($0.name)" }

    @Test func theElevenConstraintsLoad() throws {
        let engine = try World().engine([Self.folder])
        #expect(engine.rules.map(\.id) == [
            "inrc2_h1_single_assignment", "inrc2_h2_under_staffing", "inrc2_h3_shift_successions", "inrc2_h4_missing_skill",
            "inrc2_s1_optimal_coverage", "inrc2_s2_consecutive", "inrc2_s3_days_off", "inrc2_s4_preferences",
            "inrc2_s5_complete_weekends", "inrc2_s6_total_assignments", "inrc2_s7_working_weekends",
        ])
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

    /// The stock rules folder does not load the opt-in INRC-II set.
    @Test func theStockRulesLeaveTheExamplesFolderOut() throws {
        #expect(try World().engine().rules.allSatisfy { !$0.id.hasPrefix("inrc2_") })
    }
}
