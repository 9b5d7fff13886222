import Foundation
import ShiftCore
import ShiftRules
import Testing
import TestSupport
@testable import ShiftSolve

/// `SlotStaffing` is a fast path: the staffing it counts from the slots is what
/// `Schedule.staffed` counts on the roster, and moves scored with it score as moves scored with
/// the schedule's counts.
@Suite struct SlotStaffingTests {
    /// Random moves on random wards (demand with and without a skill, so slots that cover a skill
    /// by their own `skill` and open or assigned shifts that cover it by their person's
    /// `skills`), replanned so that assigned shifts move too.
    @Test(arguments: [7, 8, 9] as [UInt64]) func slotCountsAreTheSchedulesCounts(seed: UInt64) throws {
        let ward = try RandomWard(seed: seed)
        let rules = try engine()
        let problem = try SolveProblem(schedule: ward.schedule, window: ward.window, replan: true, seed: seed)
        let staffing = SlotStaffing(problem: problem)
        let fast = try MoveReplay(engine: rules, problem: problem)
        let plain = try MoveReplay(engine: rules, problem: problem, countsStaffingFromSlots: false)
        var rng = SeededGenerator(seed: seed)
        var counted = 0
        for step in 0...150 {
            for (day, date) in problem.days.enumerated() {
                let entries = fast.schedule.demand(on: date)
                #expect(staffing.entries[day] == entries, "the entries of \(date)")
                let expected = fast.schedule.staffed(entries, on: date)
                #expect(staffing.counts(day: day) { fast.assignment[$0] } == expected, "\(date) after move \(step)")
                counted += expected.reduce(0, +)
            }
            #expect(fast.hard == plain.hard, "after move \(step)")
            #expect(abs(fast.penalty - plain.penalty) < 1e-9, "after move \(step)")
            let slot = Int.random(in: 0..<problem.slots.count, using: &rng)
            let person = Int.random(in: -1..<problem.people.count, using: &rng)
            guard fast.assignment[slot] != person else { continue }
            try fast.apply([(slot, person)])
            try plain.apply([(slot, person)])
        }
        #expect(counted > 0, "some demand was staffed")
    }

    /// A day brought back to counts it had before is answered whole from the findings kept by
    /// its entries and counts (`EngineState.checkDemandRemembered`): a move, its undoing and the
    /// move again (the third finds the day as the first left it) score as on the plain path,
    /// which counts from the schedule and keeps no day.
    @Test(arguments: [7, 8] as [UInt64]) func daysBackAtCountsTheyHadScoreAsThePlainPath(seed: UInt64) throws {
        let ward = try RandomWard(seed: seed)
        let rules = try engine()
        let problem = try SolveProblem(schedule: ward.schedule, window: ward.window, replan: true, seed: seed)
        let fast = try MoveReplay(engine: rules, problem: problem)
        let plain = try MoveReplay(engine: rules, problem: problem, countsStaffingFromSlots: false)
        var rng = SeededGenerator(seed: seed)
        var moved = 0
        for step in 0..<60 {
            let slot = Int.random(in: 0..<problem.slots.count, using: &rng)
            let person = Int.random(in: -1..<problem.people.count, using: &rng)
            let old = fast.assignment[slot]
            guard old != person else { continue }
            for move in [[(slot, person)], [(slot, old)], [(slot, person)]] {
                try fast.apply(move)
                try plain.apply(move)
                #expect(fast.hard == plain.hard, "after move \(step)")
                #expect(abs(fast.penalty - plain.penalty) < 1e-9, "after move \(step)")
            }
            moved += 1
        }
        #expect(moved > 30)
    }

    /// `changesCounts` is what lets a move skip a day when no rule has a day phase: it says a
    /// hand-over changes the day's counts exactly when counting them before and after differs.
    @Test(arguments: [7, 8] as [UInt64]) func aHandOverChangesTheCountsExactlyWhenItSaysSo(seed: UInt64) throws {
        let ward = try RandomWard(seed: seed)
        let problem = try SolveProblem(schedule: ward.schedule, window: ward.window, replan: true, seed: seed)
        let staffing = SlotStaffing(problem: problem)
        var rng = SeededGenerator(seed: seed)
        var assignment = (0..<problem.slots.count).map { _ in Int.random(in: -1..<problem.people.count, using: &rng) }
        var (changing, keeping) = (0, 0)
        for _ in 0..<2_000 {
            let slot = Int.random(in: 0..<problem.slots.count, using: &rng)
            let person = Int.random(in: -1..<problem.people.count, using: &rng)
            let day = problem.window.lowerBound.days(to: problem.slots[slot].date)
            let before = staffing.counts(day: day) { assignment[$0] }
            let old = assignment[slot]
            assignment[slot] = person
            let after = staffing.counts(day: day) { assignment[$0] }
            #expect(staffing.changesCounts(slot: slot, from: old, to: person) == (before != after), "slot \(slot): \(old) to \(person)")
            if before != after { changing += 1 } else { keeping += 1 }
        }
        #expect(changing > 0 && keeping > 0)
    }
}
