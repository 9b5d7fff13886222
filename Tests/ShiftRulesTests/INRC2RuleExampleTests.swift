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

    /// Findings are dated where a change would mend them, for the solver to aim its moves at
    /// (docs/solve.md): a half weekend on the day worked alone, a run too long on its first day
    /// past the maximum, a run too short on its first day.
    @Test func findingsAreDatedWhereTheyCanBeMended() throws {
        let w = World()
        var settings = StoreSettings(timeZoneIdentifier: "Europe/Berlin")
        settings.extra["horizon.first"] = .string("2024-01-01")
        settings.extra["horizon.last"] = .string("2024-01-14")
        var day = w.day
        day.attributes["max_consecutive"] = .number(2)
        var bob = w.bob
        bob.attributes["complete_weekends"] = .bool(true)
        bob.attributes["max_consecutive_work"] = .number(3)
        var carol = w.carol
        carol.attributes["max_consecutive_off"] = .number(3)
        carol.attributes["min_consecutive_work"] = .number(2)
        // Bob works Tuesday to Saturday and the second Sunday; Carol the first Monday and the
        // second Wednesday.
        let shifts = ["2024-01-02", "2024-01-03", "2024-01-04", "2024-01-05", "2024-01-06", "2024-01-14"].enumerated().map {
            Mutation.scheduleShift(w.shift($0.offset, day, $0.element, bob))
        } + [Mutation.scheduleShift(w.shift(10, day, "2024-01-01", carol)), .scheduleShift(w.shift(11, day, "2024-01-10", carol))]
        let schedule = try Schedule(settings: settings).applying(.batch([.addShiftType(day), .addPerson(bob), .addPerson(carol)] + shifts))
            .schedule
        let found = try w.engine([Self.folder]).validate(schedule)
        func dates(_ rule: String, _ person: Person) -> [String] {
            found.filter { $0.ruleID == rule && $0.personID == person.id }.compactMap { $0.date?.description }.sorted()
        }
        // Saturday alone, Sunday alone.
        #expect(dates("inrc2_s5_complete_weekends", bob) == ["2024-01-06", "2024-01-14"])
        // Five days of D from Tuesday: the third passes the type's 2, the fourth the person's 3.
        #expect(dates("inrc2_s2_consecutive", bob) == ["2024-01-04", "2024-01-05"])
        // Eight days off from Tuesday pass 3 on the fourth; four from Thursday on the fourth.
        #expect(dates("inrc2_s3_days_off", carol) == ["2024-01-05", "2024-01-14"])
        // A run of one working day, short of 2, on its day.
        #expect(dates("inrc2_s2_consecutive", carol) == ["2024-01-01", "2024-01-10"])
    }

    /// The stock rules folder does not load the opt-in INRC-II set.
    @Test func theStockRulesLeaveTheExamplesFolderOut() throws {
        #expect(try World().engine().rules.allSatisfy { !$0.id.hasPrefix("inrc2_") })
    }
}
