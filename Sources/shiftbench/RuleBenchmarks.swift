import Foundation
import ShiftCore
import ShiftRules

/// One mutation through the funnel with all stock rules, against the same mutation with no
/// rules; and one rule in Lua against the same rule written in Swift.
enum RuleBenchmarks {
    static func run(sizes: [Int], mutations count: Int, rulesDirectory: String) async throws {
        print("## apply() per mutation with all stock Lua rules\n")
        print("Each mutation schedules a shift for an existing person on one of their days off (a valid change that every stock rule checks: overlaps, rest, days in a row, weekly hours, availability), then the next one removes it. Same mutations with no rules for the ratio. Rules: `\(rulesDirectory)`.\n")
        var report = Report(["shifts in store", "mutations", "no rules p50", "no rules p99", "all rules p50", "all rules p99", "ratio (p50)"])
        for size in sizes {
            let schedule = try Generator.schedule(shifts: size)
            let plan = mutations(for: schedule, count: count)
            let bare = try await time(plan, schedule, validators: [])
            let engine = try RuleEngine(RuleEngineConfiguration(directories: [rulesDirectory]))
            let ruled = try await time(plan, schedule, validators: [engine])
            report.add(["\(size)", "\(bare.seconds.count)", formatTime(bare.percentile(50)), formatTime(bare.percentile(99)),
                        formatTime(ruled.percentile(50)), formatTime(ruled.percentile(99)),
                        String(format: "%.1fx", ruled.percentile(50) / bare.percentile(50))])
        }
        print(report.markdown())
        print("\nThe first 10 % of mutations are warm-up and not counted.\n")

        print("## One rule: Lua against native Swift\n")
        print("`no_double_booking` as the stock Lua rule and as the same check written in Swift (`NativeNoDoubleBooking` in shiftbench), each the only validator, on the same mutations; `evaluate` time only (the funnel's own cost is the same for both).\n")
        var native = Report(["shifts in store", "evaluations", "Swift p50", "Lua p50", "Swift p99", "Lua p99", "Lua / Swift (p50)"])
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
            let luaTimes = try evaluate(lua, proposals)
            let swiftTimes = try evaluate(swift, proposals)
            native.add(["\(size)", "\(luaTimes.seconds.count)", formatTime(swiftTimes.percentile(50)), formatTime(luaTimes.percentile(50)),
                        formatTime(swiftTimes.percentile(99)), formatTime(luaTimes.percentile(99)),
                        String(format: "%.1fx", luaTimes.percentile(50) / swiftTimes.percentile(50))])
        }
        print(native.markdown())
        print("")
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

    private static func time(_ plan: [Mutation], _ schedule: Schedule, validators: [any ScheduleValidator]) async throws -> Sample {
        let store = try ScheduleStore(repository: InMemoryRepository(schedule), validators: validators,
                                      actingUser: UserProfile(userId: "bench", displayName: "Bench"), environment: .live)
        let clock = ContinuousClock()
        var timings: [Double] = []
        for mutation in plan {
            let start = clock.now
            try await store.apply(mutation)
            timings.append((clock.now - start).seconds)
        }
        return Sample(seconds: Array(timings.dropFirst(plan.count / 10)))
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
