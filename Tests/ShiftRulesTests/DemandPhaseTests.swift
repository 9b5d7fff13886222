import Foundation
import Testing
import ShiftCore
import TestSupport
@testable import ShiftRules

/// The demand phase's findings are remembered by (rule, entry, day, count): an engine that has
/// judged many rosters must say of each what a new engine, which remembers nothing, says.
@Suite struct DemandPhaseTests {
    let w = World()

    @Test func rememberedFindingsAreWhatAFreshEngineFinds() async throws {
        let kept = try w.engine()
        let (store, _) = try await w.store(try w.engine([]))
        let demand = [
            Demand(id: DemandID(uuid(60)), day: .weekday(.monday), shiftTypeID: w.day.id, minimum: 1, optimal: 2),
            Demand(id: DemandID(uuid(61)), day: .date(date("2026-03-03")), shiftTypeID: w.night.id, skill: "nurse", minimum: 1, optimal: 1),
        ]
        try await store.apply(.batch(demand.map { .addDemand($0) }))
        var random = SystemRandomNumberGenerator()
        let dates = ["2026-03-02", "2026-03-03", "2026-03-09"]
        var seen = 0
        for round in 0..<40 {
            var shift = w.shift(round, [w.day, w.night].randomElement(using: &random)!, dates.randomElement(using: &random)!,
                                [w.bob, w.carol, nil].randomElement(using: &random)!)
            if Bool.random(using: &random) { shift.attributes = ["skill": .string("nurse")] }
            try await store.apply(.scheduleShift(shift))
            let schedule = await store.schedule
            let remembered = try kept.validate(schedule).filter { $0.ruleID == "meets_demand" }
            let fresh = try w.engine().validate(schedule).filter { $0.ruleID == "meets_demand" }
            func lines(_ found: [Violation]) -> [String] {
                found.map { "\($0.severity) \($0.message) \($0.date.map(\.description) ?? "") \($0.penalty ?? 0)" }.sorted()
            }
            #expect(lines(remembered) == lines(fresh), "round \(round)")
            seen += fresh.count
        }
        #expect(seen > 0, "the rosters had demand findings to compare")
    }
}

/// The `personPhase` switch puts a rule's `check` in place of its person phase; a rule with no
/// `check` keeps its person phase (it used to run nowhere with the switch off).
@Suite struct PersonPhaseSwitchTests {
    let w = World()

    @Test func aRuleWithOnlyAPersonPhaseRunsWithTheSwitchOff() async throws {
        let folder = try RuleFolder(["count_people.lua": """
            return rule {
              id = "count_people", summary = "Reports everyone who works.", severity = "warning",
              validate_person = function(person, shifts, schedule, report)
                if #shifts > 0 then report{ message = person.name .. " works", person = person } end
              end,
            }
            """])
        let (store, _) = try await w.store(try w.engine([]))
        try await store.apply(.scheduleShift(w.shift(1, w.day, "2026-03-02", w.bob)))
        let schedule = await store.schedule
        for phase in [true, false] {
            var configuration = RuleEngineConfiguration(directories: [folder.path], now: { fixedNow })
            configuration.personPhase = phase
            let engine = try RuleEngine(configuration)
            #expect(try engine.validate(schedule).map(\.message) == ["Bob works"], "personPhase \(phase)")
        }
    }
}
