import Foundation
import ShiftCore
import ShiftRules

/// One mutation through the funnel with all stock rules, against the same mutation with no
/// rules; and one rule in Lua against the same rule written in Swift.
enum RuleBenchmarks {
    static func run(sizes: [Int], mutations count: Int, rounds roundCount: Int, rulesDirectory: String) async throws {
        print("## apply() per mutation with all stock Lua rules\n")
        print("Each mutation schedules a shift for an existing person on one of their days off (a valid change that every stock rule checks: overlaps, rest, days in a row, weekly hours, availability), then the next one removes it. Same mutations with no rules for the ratio. Rules: `\(rulesDirectory)`. Each round runs the mutations with no rules, then with the rules, each on a new store over the same schedule; a figure is the median of the rounds' percentiles, with their range; the ratio is the median of the rounds' ratios. Additions and removals are also given apart: a removal leaves most rules nothing to check.\n")
        var report = Report([
            "shifts in store", "mutations × rounds", "no rules p50", "no rules p99", "all rules p50", "all rules p99",
            "ratio (p50)", "additions p50", "additions p99", "removals p50", "p99 of each mutation's median",
        ])
        for size in sizes {
            let schedule = try Generator.schedule(shifts: size)
            let plan = mutations(for: schedule, count: count)
            let engine = try RuleEngine(RuleEngineConfiguration(directories: [rulesDirectory]))
            var bare: [Sample] = [], ruled: [Sample] = [], additions: [Sample] = [], removals: [Sample] = []
            for _ in 0..<roundCount {
                bare.append(Sample(seconds: counted(try await time(plan, schedule, validators: []))))
                let timings = counted(try await time(plan, schedule, validators: [engine]))
                ruled.append(Sample(seconds: timings))
                // The plan alternates an addition and its removal, and the warm-up dropped is even.
                additions.append(Sample(seconds: timings.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)))
                removals.append(Sample(seconds: timings.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)))
            }
            let ratio = ratios(ruled.map { $0.percentile(50) }, bare.map { $0.percentile(50) })
            report.add([
                "\(size)", "\(ruled[0].seconds.count) × \(roundCount)", formatTime(rounds(bare) { $0.percentile(50) }.median),
                formatTime(rounds(bare) { $0.percentile(99) }.median), rounds(ruled) { $0.percentile(50) }.summary,
                rounds(ruled) { $0.percentile(99) }.summary, String(format: "%.1fx", ratio.median),
                formatTime(rounds(additions) { $0.percentile(50) }.median), formatTime(rounds(additions) { $0.percentile(99) }.median),
                formatTime(rounds(removals) { $0.percentile(50) }.median), formatTime(medians(ruled).percentile(99)),
            ])
        }
        print(report.markdown())
        print("\nThe first 10 % of each round's mutations are warm-up and not counted. The last column takes each mutation's median time over the rounds (every round runs the same mutations in the same order), then their p99: what the slowest mutations cost, with what the machine did to one round or another mostly left out; the goal's p99 is the column before.\n")

        print("## One rule: Lua against native Swift\n")
        print("`no_double_booking` as the stock Lua rule and as the same check written in Swift (`NativeNoDoubleBooking` in shiftbench), each the only validator, on the same mutations; `evaluate` time only (the funnel's own cost is the same for both). Each round times the Swift rule, then the Lua rule, over all the proposals; the ratio is the median of the rounds' ratios.\n")
        var native = Report(["shifts in store", "evaluations × rounds", "Swift p50", "Lua p50", "Swift p99", "Lua p99", "Lua / Swift (p50)"])
        for size in sizes {
            let schedule = try Generator.schedule(shifts: size)
            let plan = mutations(for: schedule, count: count)
            let additions = plan.filter { if case .scheduleShift = $0 { true } else { false } }
            let proposals = try additions.map { mutation in
                let (after, changes) = try schedule.applying(mutation)
                return Proposal(mutation: mutation, changes: changes, before: schedule, after: after,
                                user: UserProfile(userId: "b", displayName: "B"), timestamp: Date())
            }
            let directory = NSTemporaryDirectory() + "shiftbench-rule-\(getpid())"
            try FileManager.default.createDirectory(atPath: directory + "/lib", withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            for file in ["no_double_booking.lua", "lib/util.lua"] {
                try FileManager.default.copyItem(atPath: rulesDirectory + "/" + file, toPath: directory + "/" + file)
            }
            let lua = try RuleEngine(RuleEngineConfiguration(directories: [directory]))
            let swift = NativeNoDoubleBooking()
            var luaTimes: [Sample] = [], swiftTimes: [Sample] = []
            for _ in 0..<roundCount {
                swiftTimes.append(try evaluate(swift, proposals))
                luaTimes.append(try evaluate(lua, proposals))
            }
            let ratio = ratios(luaTimes.map { $0.percentile(50) }, swiftTimes.map { $0.percentile(50) })
            native.add([
                "\(size)", "\(luaTimes[0].seconds.count) × \(roundCount)", formatTime(rounds(swiftTimes) { $0.percentile(50) }.median),
                formatTime(rounds(luaTimes) { $0.percentile(50) }.median), formatTime(rounds(swiftTimes) { $0.percentile(99) }.median),
                formatTime(rounds(luaTimes) { $0.percentile(99) }.median),
                String(format: "%.1fx (%.1f–%.1f)", ratio.median, ratio.min, ratio.max),
            ])
        }
        print(native.markdown())
        print("")
    }

    /// `shiftbench rules-lua [--rules DIR] [--sizes N] [--runs N]`: a profiling aid, not a figure
    /// of BENCHMARKS.md. The additions of the `rules` suite on one generated schedule, each proposed
    /// once and then evaluated by the rules alone (no store, no funnel, no tasks) `runs` times over,
    /// so that a profiler (`perf record -D`, `valgrind --tool=callgrind --toggle-collect=…evaluate…`)
    /// sees mostly the rules. Prints the evaluations' p50 and p99 per run.
    static func profile(size: Int, mutations count: Int, runs: Int, rulesDirectory: String) throws {
        let schedule = try Generator.schedule(shifts: size)
        let proposals = try mutations(for: schedule, count: count).compactMap { mutation -> Proposal? in
            guard case .scheduleShift = mutation else { return nil }
            let (after, changes) = try schedule.applying(mutation)
            return Proposal(mutation: mutation, changes: changes, before: schedule, after: after,
                            user: UserProfile(userId: "b", displayName: "B"), timestamp: Date())
        }
        let engine = try RuleEngine(RuleEngineConfiguration(directories: [rulesDirectory]))
        var slowest: [Int: Int] = [:] // addition → runs in which it was among the slowest 1 %
        for run in 1...runs {
            let sample = try evaluate(engine, proposals)
            print("\(rulesDirectory) at \(size) shifts, run \(run): \(sample.seconds.count) additions evaluated, p50 \(formatTime(sample.percentile(50))), p90 \(formatTime(sample.percentile(90))), p99 \(formatTime(sample.percentile(99))), p99.9 \(formatTime(sample.percentile(99.9)))")
            let cut = sample.percentile(99)
            for (addition, seconds) in sample.seconds.enumerated() where seconds >= cut { slowest[addition, default: 0] += 1 }
        }
        // Whether the slowest evaluations are the same additions every run (something in the data)
        // or different ones (the machine, the collector): the tail's cause.
        if runs > 1 {
            let repeated = slowest.values.filter { $0 > 1 }.count
            print("slowest 1 % of each run: \(slowest.count) different additions, \(repeated) of them slowest in more than one run")
        }
    }

    /// Each mutation's median time over the rounds (the rounds time the same mutations in order).
    private static func medians(_ rounds: [Sample]) -> Sample {
        guard let count = rounds.map(\.seconds.count).min() else { return Sample(seconds: []) }
        return Sample(seconds: (0..<count).map { k in Sample(seconds: rounds.map { $0.seconds[k] }).median })
    }

    /// A round's timings less the first 10 % (warm-up), an even count so that additions keep even places.
    private static func counted(_ timings: [Double]) -> [Double] {
        Array(timings.dropFirst(timings.count / 10 & ~1))
    }

    /// Alternating add (on a person's day off, same type as their rotation) and remove.
    static func mutations(for schedule: Schedule, count: Int) -> [Mutation] {
        var rng = SplitMix(seed: 11)
        let people = schedule.people
        let days = schedule.shiftDateRange.map { $0.lowerBound.days(to: $0.upperBound) } ?? 0
        var plan: [Mutation] = []
        while plan.count < count {
            let p = Int(rng.next() % UInt64(people.count))
            let person = people[p]
            guard let index = Int(person.displayName.split(separator: " ").last ?? ""), days > 14 else { continue }
            let d = Int(rng.next() % UInt64(days - 14)) + 7
            guard (d + index) % 7 == 5 else { continue }
            let type = Generator.types[((d - 1) / 7 + index) % 3] // same as the day before: a full day of rest
            let shift = ScheduledShift(id: ShiftID(rng.uuid()), shiftTypeID: type.id, date: Generator.firstDay.adding(days: d), personID: person.id)
            plan.append(.scheduleShift(shift))
            plan.append(.unscheduleShift(shift.id))
        }
        return plan
    }

    private static func time(_ plan: [Mutation], _ schedule: Schedule, validators: [any ScheduleValidator]) async throws -> [Double] {
        let store = try ScheduleStore(repository: InMemoryRepository(schedule), validators: validators,
                                      actingUser: UserProfile(userId: "bench", displayName: "Bench"), environment: .live)
        let clock = ContinuousClock()
        var timings: [Double] = []
        for mutation in plan {
            let start = clock.now
            try await store.apply(mutation)
            timings.append((clock.now - start).seconds)
        }
        return timings
    }

    private static func evaluate(_ validator: any ScheduleValidator, _ proposals: [Proposal]) throws -> Sample {
        let clock = ContinuousClock()
        var timings: [Double] = []
        for proposal in proposals {
            let start = clock.now
            let violations = try validator.evaluate(proposal)
            timings.append((clock.now - start).seconds)
            precondition(violations.isEmpty, "benchmark mutations are valid")
        }
        return Sample(seconds: Array(timings.dropFirst(proposals.count / 10)))
    }
}

/// `no_double_booking` written in Swift against the same query API, for the Lua/Swift ratio.
struct NativeNoDoubleBooking: ScheduleValidator {
    let name = "native no_double_booking"

    func evaluate(_ proposal: Proposal) throws -> [Violation] {
        var violations: [Violation] = []
        for change in proposal.changes {
            guard case let .shift(_, after?, _) = change, let person = after.personID,
                  let span = proposal.after.interval(of: after) else { continue }
            proposal.after.forEachShift(ShiftQuery(personID: person, overlapping: span)) { other in
                if other.id != after.id, let type = proposal.after.shiftType(other.shiftTypeID),
                   let name = proposal.after.person(person)?.displayName {
                    violations.append(Violation(
                        ruleID: "no_double_booking", severity: .error, message: "\(name) already works \(type.symbol) on \(other.date)",
                        shiftID: after.id, personID: person, date: after.date, relatedShiftIDs: [other.id]))
                }
                return true
            }
        }
        return violations
    }
}
