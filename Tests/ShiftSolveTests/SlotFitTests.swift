import Foundation
import ShiftCore
import ShiftRules
import TestSupport
import Testing
@testable import ShiftSolve

@Suite struct SlotFitTests {
    /// Probing the stock rules finds what `required_skill` says: a slot that needs the skill
    /// `nurse` suits nobody who lacks it, and (for people with no days off, which may fall on a
    /// probe day) everyone who has it; a slot without a skill suits them all.
    @Test(arguments: [3, 4, 5] as [UInt64]) func theProbeFindsWhoHasTheSkill(seed: UInt64) throws {
        let ward = try RandomWard(seed: seed, people: 8)
        let rules = try engine()
        let problem = try SolveProblem(schedule: ward.schedule, window: ward.window, replan: false, seed: seed)
        let evaluator = try Evaluator(engine: rules, problem: problem, changePenalty: 0)
        let state = try evaluator.initialState().state
        let generator = MoveGenerator(problem: problem)
        let fit = try SlotFit(probing: state, evaluator, kinds: generator.slotKind, slotDay: generator.slotDay)
        var checkedSkill = false, checkedPlain = false
        for slot in problem.slots.indices {
            let kind = generator.slotKind[slot]
            for (index, id) in problem.people.enumerated() {
                let hasSkill = ward.schedule.person(id)?.attributes["skills"] == .list([.string("nurse")])
                let away = ward.schedule.availability.contains { $0.personID == id && $0.kind == .unavailable }
                if problem.slots[slot].skill == "nurse", !hasSkill {
                    #expect(!fit.suits(index, kind: kind), "slot \(slot), person \(index)")
                    checkedSkill = true
                } else if !away {
                    #expect(fit.suits(index, kind: kind), "slot \(slot), person \(index)")
                    checkedPlain = true
                }
            }
        }
        #expect(checkedSkill && checkedPlain)
    }

    /// Without rules that have a person phase there is nothing to ask: everyone suits everything.
    @Test func withoutPersonPhasesEveryoneSuits() throws {
        let ward = try RandomWard(seed: 3)
        let folder = try TemporaryFolder(prefix: "fit-rules-")
        try folder.write("""
            return rule { id = "quiet", summary = "checks nothing", severity = "error", on = { "shift" },
              check = function(change, schedule, report) end }
            """, to: "quiet.lua")
        let rules = try engine([folder.path])
        let problem = try SolveProblem(schedule: ward.schedule, window: ward.window, replan: false, seed: 3)
        let evaluator = try Evaluator(engine: rules, problem: problem, changePenalty: 0)
        let generator = MoveGenerator(problem: problem)
        let fit = try SlotFit(probing: try evaluator.initialState().state, evaluator, kinds: generator.slotKind, slotDay: generator.slotDay)
        for slot in problem.slots.indices {
            for person in problem.people.indices { #expect(fit.suits(person, kind: generator.slotKind[slot])) }
        }
    }
}
