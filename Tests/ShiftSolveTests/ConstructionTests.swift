import Foundation
import ShiftCore
import ShiftRules
import TestSupport
import Testing
@testable import ShiftSolve

@Suite struct ConstructionTests {
    /// The construction takes slots by date and, within a date, the kinds that fewest people suit
    /// first: on random wards whose `nurse` slots only some people suit, every slot once, dates
    /// in order, and a day's rare kinds before its common ones.
    @Test(arguments: [3, 4, 5] as [UInt64]) func rareKindsComeFirstWithinADay(seed: UInt64) throws {
        let ward = try RandomWard(seed: seed, people: 8)
        let problem = try SolveProblem(schedule: ward.schedule, window: ward.window, replan: false, seed: seed)
        let evaluator = try Evaluator(engine: try engine(), problem: problem, changePenalty: 0)
        var generator = MoveGenerator(problem: problem)
        generator.fit = try SlotFit(probing: try evaluator.initialState().state, evaluator, kinds: generator.slotKind, slotDay: generator.slotDay)
        let suited = generator.fit.suitedPeople
        let order = generator.constructionOrder(suited: suited)
        #expect(order.sorted() == Array(problem.slots.indices))
        var mixedDays = 0
        for (first, second) in zip(order, order.dropFirst()) {
            let (day, next) = (generator.slotDay[first], generator.slotDay[second])
            #expect(day <= next)
            if day == next {
                #expect(suited[generator.slotKind[first]].count <= suited[generator.slotKind[second]].count)
                if suited[generator.slotKind[first]].count < suited[generator.slotKind[second]].count { mixedDays += 1 }
            }
        }
        // The wards have days with both a rare and a common kind, or the test would prove nothing.
        #expect(mixedDays > 0)
    }

    /// The people tried first for a slot are exactly those who hold a slot of its shift type the
    /// day before and none on its day; the rest follow, nobody lost or repeated.
    @Test(arguments: [5, 6] as [UInt64]) func peopleWhoGoOnWithARunComeFirst(seed: UInt64) throws {
        let ward = try RandomWard(seed: seed, people: 9)
        let problem = try SolveProblem(schedule: ward.schedule, window: ward.window, replan: true, seed: 3)
        let evaluator = try Evaluator(engine: try engine(), problem: problem, changePenalty: 0)
        let state = try evaluator.initialState().state
        let holds = evaluator.holdings(of: state)
        let generator = MoveGenerator(problem: problem)
        var found = 0
        for slot in problem.slots.indices {
            var people = Array(problem.people.indices)
            let count = generator.continuingFirst(&people, for: slot, occupancy: holds)
            #expect(people.sorted() == Array(problem.people.indices))
            let day = generator.slotDay[slot]
            for (position, person) in people.enumerated() {
                let continues = day > 0 && holds(person, day).isEmpty
                    && holds(person, day - 1).contains { generator.slotType[$0] == generator.slotType[slot] }
                #expect(continues == (position < count), "slot \(slot), person \(person)")
            }
            found += count
        }
        #expect(found > 0)
    }
}
