import Foundation
import ShiftCore

/// The cost of one mutation through the funnel in memory: lock, revision check, proposed copy,
/// invariants, validators (none here), change log, commit.
enum ApplyBenchmarks {
    static func run(sizes: [Int], mutations count: Int) async throws {
        print("## apply() per mutation, in memory, no rules\n")
        print("Each mutation schedules one shift for a person on a random day (then the next run unschedules it), through `ScheduleStore.apply` over an `InMemoryRepository`.\n")
        var report = Report(["shifts in store", "mutations", "p50", "p90", "p99", "max"])
        for size in sizes {
            let schedule = try Generator.schedule(shifts: size)
            let repository = InMemoryRepository(schedule)
            var rng = SplitMix(seed: 7)
            let store = try ScheduleStore(
                repository: repository, actingUser: UserProfile(userId: "bench", displayName: "Bench"),
                environment: .live)
            let people = schedule.people
            var timings: [Double] = []
            timings.reserveCapacity(count)
            let clock = ContinuousClock()
            var added: [ShiftID] = []
            for n in 0..<count {
                let mutation: Mutation
                if n % 2 == 1, let last = added.popLast() {
                    mutation = .unscheduleShift(last)
                } else {
                    let shift = ScheduledShift(
                        id: ShiftID(rng.uuid()), shiftTypeID: Generator.types[n % 3].id,
                        date: Generator.firstDay.adding(days: Int(rng.next() % 400)),
                        personID: people[Int(rng.next() % UInt64(people.count))].id)
                    added.append(shift.id)
                    mutation = .scheduleShift(shift)
                }
                let start = clock.now
                try await store.apply(mutation)
                timings.append((clock.now - start).seconds)
            }
            let sample = Sample(seconds: Array(timings.dropFirst(count / 10)))
            report.add(["\(size)", "\(sample.seconds.count)", formatTime(sample.percentile(50)), formatTime(sample.percentile(90)),
                        formatTime(sample.percentile(99)), formatTime(sample.max)])
        }
        print(report.markdown())
        print("\nThe first 10 % of mutations are warm-up and not counted.\n")
    }
}
