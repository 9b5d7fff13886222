import Foundation
import ShiftCore

/// The cost of one mutation through the funnel in memory: lock, revision check, proposed copy,
/// invariants, validators (none here), change log, commit.
enum ApplyBenchmarks {
    static func run(sizes: [Int], mutations count: Int, rounds roundCount: Int) async throws {
        print("## apply() per mutation, in memory, no rules\n")
        print("Each mutation schedules one shift for a person on a random day (then the next one unschedules it), through `ScheduleStore.apply` over an `InMemoryRepository`. Each round runs the same \(count) mutations on a new store over the same schedule; a figure is the median of the rounds' percentiles, with their range.\n")
        var report = Report(["shifts in store", "mutations × rounds", "p50", "p90", "p99", "max"])
        for size in sizes {
            let schedule = try Generator.schedule(shifts: size)
            var samples: [Sample] = []
            for _ in 0..<roundCount {
                let timings = try await round(schedule, mutations: count)
                samples.append(Sample(seconds: Array(timings.dropFirst(count / 10))))
            }
            report.add([
                "\(size)", "\(samples[0].seconds.count) × \(roundCount)", rounds(samples) { $0.percentile(50) }.summary,
                formatTime(rounds(samples) { $0.percentile(90) }.median), rounds(samples) { $0.percentile(99) }.summary,
                formatTime(rounds(samples) { $0.max }.max),
            ])
        }
        print(report.markdown())
        print("\nThe first 10 % of each round's mutations are warm-up and not counted.\n")
    }

    /// One round: a new store over `schedule`, the same mutations (seeded), each one timed.
    private static func round(_ schedule: Schedule, mutations count: Int) async throws -> [Double] {
        let store = try ScheduleStore(
            repository: InMemoryRepository(schedule), actingUser: UserProfile(userId: "bench", displayName: "Bench"),
            environment: .live)
        var rng = SplitMix(seed: 7)
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
        return timings
    }
}
