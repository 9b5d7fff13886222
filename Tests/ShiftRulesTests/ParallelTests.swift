import Foundation
import TestSupport
import Testing
import ShiftCore
@testable import ShiftRules

/// Large batches and whole-schedule validation are checked by several Lua states side by side;
/// the result must be exactly what one state finds, in the same order.
@Suite struct ParallelTests {
    /// 60 days × 40 people with day, late and night shifts, and a deliberate conflict every
    /// few shifts (double bookings, short rests, long runs).
    private func batch() throws -> (Schedule, Mutation) {
        let w = World()
        var people: [Mutation] = []
        var ids: [PersonID] = []
        for n in 0..<40 {
            let id = PersonID(uuid(5000 + n))
            ids.append(id)
            people.append(.addPerson(Person(id: id, displayName: "Worker \(n)")))
        }
        let base = try Schedule(settings: StoreSettings(timeZoneIdentifier: "Europe/Berlin")).applying(.batch([w.setup] + people)).schedule
        var shifts: [Mutation] = []
        var n = 0
        for day in 0..<60 {
            for (p, person) in ids.enumerated() where (day + p) % 9 != 0 {
                let type = [w.early, w.late, w.night][(day + p) % 3]
                shifts.append(.scheduleShift(ScheduledShift(id: ShiftID(uuid(100_000 + n)), shiftTypeID: type.id,
                                                            date: date("2026-03-02").adding(days: day), personID: person)))
                n += 1
                if n % 17 == 0 {
                    shifts.append(.scheduleShift(ScheduledShift(id: ShiftID(uuid(500_000 + n)), shiftTypeID: w.day.id,
                                                                date: date("2026-03-02").adding(days: day), personID: person)))
                }
            }
        }
        return (base, .batch(shifts))
    }

    private func engine(workers: Int) throws -> RuleEngine {
        var configuration = RuleEngineConfiguration(directories: [stockRules], now: { fixedNow })
        configuration.workers = workers
        return try RuleEngine(configuration)
    }

    @Test func aLargeBatchGivesTheSameViolationsOnSeveralStates() throws {
        let (base, mutation) = try batch()
        let (after, changes) = try base.applying(mutation)
        #expect(changes.count >= RuleEngine.parallelThreshold)
        let proposal = Proposal(mutation: mutation, changes: changes, before: base, after: after,
                                user: UserProfile(userId: "t", displayName: "T"), timestamp: fixedNow)
        let one = try engine(workers: 1).evaluate(proposal)
        let two = try engine(workers: 2)
        let parallel = try two.evaluate(proposal)
        #expect(one.count > 100, "the batch has conflicts to find")
        #expect(parallel == one, "same violations in the same order")
        #expect(try two.evaluate(proposal) == parallel, "the order is deterministic")
    }

    @Test func validateGivesTheSameReportOnSeveralStates() throws {
        let (base, mutation) = try batch()
        let schedule = try base.applying(mutation).schedule
        let one = try engine(workers: 1).validate(schedule)
        let two = try engine(workers: 3).validate(schedule)
        #expect(one.count > 100)
        #expect(two == one, "same violations in the same order")
    }

    @Test func slicesAreWholeChunksCoveringEverything() {
        for count in [0, 1, 127, 128, 129, 1000, 10_001] {
            for workers in 1...4 {
                let slices = RuleEngine.slices(count, workers: workers)
                #expect(slices.reduce(0) { $0 + $1.count } == count)
                #expect(slices.count <= workers)
                #expect(slices.dropLast().allSatisfy { $0.count % EngineState.chunkSize == 0 })
                #expect(zip(slices, slices.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
            }
        }
    }
}
