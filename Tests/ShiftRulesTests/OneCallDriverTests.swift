import Foundation
import ShiftCore
import TestSupport
import Testing
@testable import ShiftRules

/// The one-call drivers (every rule of one change in one call into Lua, 128 changes of a batch
/// per call) against the plain path, each rule on each change in a call of its own: the same
/// findings for single changes and for batches, with and without person phases.
@Suite struct OneCallDriverTests {
    private func engine(oneCallDrivers: Bool, personPhase: Bool = true) throws -> RuleEngine {
        let config = RulesConfig(parameters: [
            "max_consecutive_days": ["days": .number(4)],
            "max_hours_per_week": ["average_hours": .number(30), "reference_weeks": .number(2), "reference_start": .string("2026-03-09"),
                                   "max_week_hours": .number(40)],
        ])
        var configuration = RuleEngineConfiguration(directories: [stockRules], config: config, now: { fixedNow })
        configuration.oneCallDrivers = oneCallDrivers
        configuration.personPhase = personPhase
        return try RuleEngine(configuration)
    }

    private func lines(_ violations: [Violation]) -> [String] {
        violations.map {
            "\($0.ruleID) \($0.severity) \($0.shiftID?.description ?? "-") \($0.personID?.description ?? "-") "
                + "\($0.date?.description ?? "-") \($0.relatedShiftIDs.map(\.description)) \($0.penalty ?? 0) \($0.message)"
        }.sorted()
    }

    private func proposal(_ mutation: Mutation, on schedule: Schedule) throws -> Proposal {
        let (after, changes) = try schedule.applying(mutation)
        return Proposal(mutation: mutation, changes: changes, before: schedule, after: after,
                        user: UserProfile(userId: "t", displayName: "T"), timestamp: fixedNow)
    }

    @Test(arguments: [1, 2, 3] as [UInt64]) func batchesFindWhatThePlainPathFinds(seed: UInt64) throws {
        let schedule = try StockPersonPhaseEquivalenceTests.randomSchedule(seed: seed)
        let batch = try StockPersonPhaseEquivalenceTests().randomBatch(on: schedule, seed: seed)
        #expect(batch.changes.count > EngineState.chunkSize, "the batch spans several chunks")
        for personPhase in [true, false] {
            let fast = lines(try engine(oneCallDrivers: true, personPhase: personPhase).evaluate(batch))
            let plain = lines(try engine(oneCallDrivers: false, personPhase: personPhase).evaluate(batch))
            #expect(!plain.isEmpty)
            #expect(fast == plain, "personPhase \(personPhase): \(fast.count) findings against \(plain.count)")
        }
    }

    /// Adds, moves, reassignments and removals of single shifts, each checked by every stock
    /// rule that triggers on shifts (one call for all of them on the fast path).
    @Test(arguments: [4, 5] as [UInt64]) func singleChangesFindWhatThePlainPathFinds(seed: UInt64) throws {
        let schedule = try StockPersonPhaseEquivalenceTests.randomSchedule(seed: seed)
        let fast = try engine(oneCallDrivers: true), plain = try engine(oneCallDrivers: false)
        var random = SplitMix(seed: seed)
        let shifts = schedule.shifts()
        let people = schedule.people
        var found = 0
        for index in 0..<60 {
            let shift = shifts[random.below(shifts.count)]
            let person = people[random.below(people.count)].id
            let mutation: Mutation
            switch index % 4 {
            case 0:
                mutation = .scheduleShift(ScheduledShift(id: ShiftID(uuid(80_000 + index)), shiftTypeID: shift.shiftTypeID,
                                                         date: shift.date.adding(days: random.below(3) - 1), personID: person))
            case 1: mutation = .reassignShift(shift.id, to: person, reason: nil)
            case 2: mutation = .unscheduleShift(shift.id, reason: nil)
            default:
                var moved = shift
                moved.date = shift.date.adding(days: 1)
                mutation = .updateShift(moved)
            }
            let proposal = try proposal(mutation, on: schedule)
            let a = lines(try fast.evaluate(proposal)), b = lines(try plain.evaluate(proposal))
            #expect(a == b, "change \(index) (\(mutation))")
            found += b.count
        }
        #expect(found > 0, "the changes break some rule")
    }
}

/// A small seeded generator for the tests above.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func below(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}
