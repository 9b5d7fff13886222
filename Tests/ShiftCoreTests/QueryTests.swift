import Foundation
import TestSupport
import Testing
@testable import ShiftCore

@Suite struct QueryTests {
    let f = Fixture()

    /// Bob: D Mon, N Mon, D Wed; Carol: O Tue, D Wed; open: D Thu.
    private func schedule() async throws -> Schedule {
        let (store, _) = try await f.store()
        try await store.apply(.batch([
            .scheduleShift(f.shift(1, f.day, "2026-03-02", f.bob)),
            .scheduleShift(f.shift(2, f.night, "2026-03-02", f.bob)),
            .scheduleShift(f.shift(3, f.day, "2026-03-04", f.bob)),
            .scheduleShift(f.shift(4, f.office, "2026-03-03", f.carol)),
            .scheduleShift(f.shift(5, f.day, "2026-03-04", f.carol)),
            .scheduleShift(f.shift(6, f.day, "2026-03-05", nil)),
        ]))
        return await store.schedule
    }

    private func ids(_ shifts: [ScheduledShift]) -> [Int] {
        shifts.map { Int($0.id.description.suffix(12), radix: 16)! - 100 }
    }

    @Test func byDateRangePersonTypeAndLocation() async throws {
        let s = try await schedule()
        #expect(ids(s.shifts()) == [1, 2, 4, 3, 5, 6])
        #expect(ids(s.shifts(.on(date("2026-03-04")))) == [3, 5])
        #expect(ids(s.shifts(ShiftQuery(from: date("2026-03-03"), to: date("2026-03-04")))) == [4, 3, 5])
        #expect(ids(s.shifts(ShiftQuery(personID: f.bob.id))) == [1, 2, 3])
        #expect(ids(s.shifts(ShiftQuery(from: date("2026-03-03"), personID: f.bob.id))) == [3])
        #expect(ids(s.shifts(ShiftQuery(shiftTypeIDs: [f.day.id]))) == [1, 3, 5, 6])
        #expect(ids(s.shifts(ShiftQuery(locationID: f.ward.id))) == [1, 2, 3, 5, 6])
        #expect(ids(s.shifts(ShiftQuery(unassignedOnly: true))) == [6])
        #expect(ids(s.shifts(ShiftQuery(personID: f.carol.id, shiftTypeIDs: [f.office.id]))) == [4])
    }

    /// The unordered walk (for counting) is the ordered one without the sort within a day: the
    /// same shifts for every query, dates in the same order.
    @Test func theUnorderedWalkSelectsWhatTheOrderedOneDoes() async throws {
        let s = try await schedule()
        let queries = [
            ShiftQuery(), .on(date("2026-03-02")), .on(date("2026-03-04")), ShiftQuery(personID: f.bob.id),
            ShiftQuery(from: date("2026-03-03"), to: date("2026-03-05")), ShiftQuery(shiftTypeIDs: [f.day.id]),
            ShiftQuery(unassignedOnly: true), ShiftQuery(locationID: f.ward.id), ShiftQuery(order: .newestFirst),
            ShiftQuery(excluding: f.shift(3, f.day, "2026-03-04", f.bob).id), ShiftQuery(limit: 3),
        ]
        for query in queries {
            var unordered: [ScheduledShift] = []
            s.forEachShiftUnordered(query) { unordered.append($0); return true }
            let ordered = s.shifts(query)
            #expect(ids(unordered).sorted() == ids(ordered).sorted(), "\(query)")
            #expect(unordered.map(\.date) == ordered.map(\.date), "\(query)")
        }
    }

    /// Found by fuzzing the store decoder: one shift dated 5807 made every listing (and so every
    /// save) walk two million empty days, seconds per save. Queries follow the shifts, not the span.
    @Test func aScheduleSpanningMillenniaIsListedWithoutWalkingEveryDay() async throws {
        let (store, _) = try await f.store()
        try await store.apply(.batch([
            .scheduleShift(f.shift(1, f.day, "2026-03-02", f.bob)),
            .scheduleShift(f.shift(2, f.night, "9999-12-31", nil)),
            .scheduleShift(f.shift(3, f.day, "0001-01-01", f.carol)),
        ]))
        let s = await store.schedule
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<20 {
            #expect(ids(s.shifts()) == [3, 1, 2])
            #expect(ids(s.shifts(ShiftQuery(order: .newestFirst))) == [2, 1, 3])
            #expect(ids(s.shifts(ShiftQuery(shiftTypeIDs: [f.day.id]))) == [3, 1])
            #expect(s.count(ShiftQuery(from: date("2000-01-01"))) == 2)
        }
        #expect(clock.now - start < .seconds(2), "20 rounds of queries over 10 000 years")
    }

    @Test func orderAndLimit() async throws {
        let s = try await schedule()
        #expect(ids(s.shifts(ShiftQuery(order: .newestFirst))) == [6, 5, 3, 4, 2, 1])
        #expect(ids(s.shifts(ShiftQuery(order: .newestFirst, limit: 2))) == [6, 5])
        #expect(ids(s.shifts(ShiftQuery(personID: f.bob.id, order: .newestFirst, limit: 1))) == [3])
        #expect(s.shifts(ShiftQuery(limit: 0)).isEmpty)
        #expect(s.count(ShiftQuery(limit: 1)) == 6)
    }

    @Test func overlapUsesHalfOpenIntervals() async throws {
        let s = try await schedule()
        // Bob's night (19:00 Mon – 07:00 Tue) overlaps 06:00–08:00 Tue, not 07:00–08:00.
        let tuesday = date("2026-03-03")
        let early = InstantInterval(start: s.zone.instant(of: tuesday, minutes: 360), end: s.zone.instant(of: tuesday, minutes: 480))
        #expect(ids(s.shifts(ShiftQuery(personID: f.bob.id, overlapping: early))) == [2])
        let late = InstantInterval(start: s.zone.instant(of: tuesday, minutes: 420), end: s.zone.instant(of: tuesday, minutes: 480))
        #expect(ids(s.shifts(ShiftQuery(personID: f.bob.id, overlapping: late))).isEmpty)
        #expect(ids(s.shifts(ShiftQuery(overlapping: late))) == [4], "Carol's all-day office shift")
    }

    @Test func countsAndShiftTypesByLocation() async throws {
        let s = try await schedule()
        #expect(s.shiftCount(ofType: f.day.id) == 4)
        #expect(s.shiftCount(of: f.bob.id) == 3)
        #expect(s.shiftCount(of: f.bob.id, from: date("2026-03-03")) == 1)
        #expect(s.shiftTypes(at: f.ward.id).map(\.symbol) == ["D", "N"])
        #expect(s.shiftType(symbol: "N")?.id == f.night.id)
        #expect(s.shift(eventIdentifier: "\(ShiftID(uuid(101)))@shiftscheduler")?.id == ShiftID(uuid(101)))
    }

    @Test func minutesWorkedCountsRealHoursAcrossDaylightSavingChanges() async throws {
        let (store, _) = try await f.store()
        // Nights from 2026-03-26 to 2026-03-30: the one starting on the 28th loses an hour.
        var mutations: [Mutation] = []
        for n in 0..<5 {
            mutations.append(.scheduleShift(f.shift(n, f.night, "2026-03-\(26 + n)", f.bob)))
        }
        mutations.append(.scheduleShift(f.shift(9, f.office, "2026-03-27", f.carol)))
        // Far from the change, in the same period: its nominal 12 hours.
        mutations.append(.scheduleShift(f.shift(10, f.night, "2026-03-10", f.bob)))
        try await store.apply(.batch(mutations))
        let s = await store.schedule
        let expected = s.shifts(ShiftQuery(personID: f.bob.id)).reduce(0) { $0 + s.interval(of: $1)!.minutes }
        #expect(expected == 6 * 720 - 60)
        #expect(s.minutesWorked(by: f.bob.id, from: date("2026-03-01"), to: date("2026-03-31")) == expected)
        #expect(s.minutesWorked(by: f.bob.id, from: date("2026-03-29"), to: date("2026-03-30")) == 2 * 720)
        #expect(s.minutesWorked(by: f.bob.id, from: date("2026-04-01"), to: date("2026-04-30")) == 0)
        #expect(s.minutesWorked(by: f.carol.id, from: date("2026-03-27"), to: date("2026-03-27")) == 1440)
    }

    /// A period with both changes of a year in it, nights every other day: each window of it
    /// counts what the shifts' own intervals say, whatever change lies near its ends.
    @Test func minutesWorkedOverAYearMatchesEachShiftsInterval() async throws {
        let (store, _) = try await f.store()
        var mutations: [Mutation] = []
        var day = date("2026-01-01")
        var n = 0
        while day <= date("2026-12-31") {
            mutations.append(.scheduleShift(f.shift(200 + n, f.night, day.description, f.bob)))
            day = day.adding(days: 2)
            n += 1
        }
        try await store.apply(.batch(mutations))
        let s = await store.schedule
        for (from, to) in [("2026-01-01", "2026-12-31"), ("2026-03-27", "2026-10-26"), ("2026-03-29", "2026-03-29"),
                           ("2026-03-28", "2026-03-28"), ("2026-10-24", "2026-10-25"), ("2026-02-01", "2026-11-30")] {
            let expected = s.shifts(ShiftQuery(from: date(from), to: date(to), personID: f.bob.id))
                .reduce(0) { $0 + s.interval(of: $1)!.minutes }
            #expect(s.minutesWorked(by: f.bob.id, from: date(from), to: date(to)) == expected, "\(from)…\(to)")
        }
        #expect(s.minutesWorked(by: f.bob.id, from: date("2026-01-01"), to: date("2026-12-31")) == n * 720)
    }

    /// `workRun` and `minutesWorked` walk the person index once (a window around the date, the
    /// durations of a few type numbers remembered); here they are checked against their
    /// definitions, day by day and shift by shift, on random rosters with five shift types
    /// (more than the minutes walk remembers at once) around a daylight-saving change.
    @Test func workRunsAndMinutesMatchTheirDefinitionsOnRandomRosters() throws {
        var rng = SystemRandomNumberGenerator()
        let types = [f.day, f.night, f.office] + (0..<2).map { n in
            ShiftType(id: ShiftTypeID(uuid(20 + n)), symbol: "T\(n)", title: "T\(n)", duration: ShiftDuration(n == 0 ? "06:00-14:00" : "22:00-06:00")!)
        }
        let start = date("2026-03-01")
        for round in 0..<20 {
            var shifts: [ScheduledShift] = []
            var n = 1000
            // Runs of worked days of random lengths (up to 40), some days with two shifts.
            var day = 0
            while day < 120 {
                for _ in 0..<Int.random(in: 1...40, using: &rng) where day < 120 {
                    for _ in 0..<(Int.random(in: 0..<6, using: &rng) == 0 ? 2 : 1) {
                        n += 1
                        let type = types[Int.random(in: 0..<types.count, using: &rng)]
                        shifts.append(ScheduledShift(id: ShiftID(uuid(n)), shiftTypeID: type.id, date: start.adding(days: day), personID: f.bob.id))
                    }
                    day += 1
                }
                day += Int.random(in: 1...3, using: &rng)
            }
            let s = try Schedule(settings: StoreSettings(timeZoneIdentifier: "Europe/Berlin"), locations: [f.ward], shiftTypes: types, people: [f.bob, f.carol], shifts: shifts)
            let worked = Set(shifts.map(\.date))
            for offset in stride(from: -2, through: 125, by: 3) {
                let d = start.adding(days: offset)
                for limit in [0, 1, 2, 6, 7, 9, 33, 3650] {
                    var expected: ClosedRange<LocalDate>?
                    if worked.contains(d) {
                        var first = d, last = d
                        while first.days(to: d) < limit, worked.contains(first.adding(days: -1)) { first = first.adding(days: -1) }
                        while d.days(to: last) < limit, worked.contains(last.adding(days: 1)) { last = last.adding(days: 1) }
                        expected = first...last
                    }
                    #expect(s.workRun(of: f.bob.id, containing: d, limit: limit) == expected, "round \(round): \(d), limit \(limit)")
                }
                for length in [0, 6, 40] {
                    let to = d.adding(days: length)
                    let expected = shifts.filter { $0.date >= d && $0.date <= to }.reduce(0) { $0 + s.interval(of: $1)!.minutes }
                    #expect(s.minutesWorked(by: f.bob.id, from: d, to: to) == expected, "round \(round): \(d)…\(to)")
                }
            }
            #expect(s.workRun(of: f.carol.id, containing: start, limit: 7) == nil)
            #expect(s.minutesWorked(by: f.carol.id, from: start, to: start.adding(days: 200)) == 0)
        }
    }

    @Test func indexesFollowUpdates() async throws {
        let (store, _) = try await f.store()
        let shift = f.shift(1, f.day, "2026-03-02", f.bob)
        try await store.apply(.scheduleShift(shift))
        var moved = shift
        moved.date = date("2026-03-09")
        moved.personID = f.carol.id
        moved.shiftTypeID = f.night.id
        try await store.apply(.updateShift(moved))
        let s = await store.schedule
        #expect(s.shifts(.on(date("2026-03-02"))).isEmpty)
        #expect(s.shifts(ShiftQuery(personID: f.bob.id)).isEmpty)
        #expect(s.shifts(ShiftQuery(shiftTypeIDs: [f.day.id])).isEmpty)
        #expect(s.shifts(ShiftQuery(personID: f.carol.id, shiftTypeIDs: [f.night.id])).map(\.id) == [shift.id])
        #expect(s.shiftCount(ofType: f.day.id) == 0)
    }

    @Test func demandAppliesByDateAndWeekday() async throws {
        let (store, _) = try await f.store()
        let monday = Demand(id: DemandID(uuid(50)), day: .weekday(.monday), shiftTypeID: f.day.id, minimum: 1, optimal: 2)
        let special = Demand(id: DemandID(uuid(51)), day: .date(date("2026-03-02")), shiftTypeID: f.night.id, skill: "head", minimum: 1, optimal: 1)
        try await store.apply(.batch([.addDemand(monday), .addDemand(special)]))
        let s = await store.schedule
        #expect(Set(s.demand(on: date("2026-03-02"))) == [monday, special])
        #expect(s.demand(on: date("2026-03-09")) == [monday])
        #expect(s.demand(on: date("2026-03-03")).isEmpty)
    }

    @Test func observersHearEveryCommit() async throws {
        let (store, _) = try await f.store()
        let stream = await store.observe(ShiftQuery(personID: f.bob.id))
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next()?.count == 0)
        try await store.apply(.scheduleShift(f.shift(1, f.day, "2026-03-02", f.bob)))
        #expect(await iterator.next()?.count == 1)
        try await store.apply(.scheduleShift(f.shift(2, f.day, "2026-03-03", f.bob)))
        #expect(await iterator.next()?.map(\.date) == [date("2026-03-02"), date("2026-03-03")])

        let commits = await store.commits()
        var commitIterator = commits.makeAsyncIterator()
        try await store.apply(.unscheduleShift(ShiftID(uuid(101))))
        #expect(await commitIterator.next()?.logEntries.first?.changeType == .deleted)
    }

    @Test func storesSharingARepositoryPickUpEachOthersCommits() async throws {
        let (first, repository) = try await f.store()
        let second = try ScheduleStore(repository: repository, actingUser: alice, environment: testEnvironment())
        try await first.apply(.scheduleShift(f.shift(1, f.day, "2026-03-02", f.bob)))
        try await second.apply(.scheduleShift(f.shift(2, f.day, "2026-03-03", f.bob)))
        #expect(repository.snapshot.shiftCount == 2, "the second writer reloaded before applying")
        try await first.refresh()
        #expect(await first.schedule.shiftCount == 2)
    }
}

/// `Schedule.count(_:attributes:stopAt:)` counts held shifts from their index entries: the same
/// numbers as counting the shifts the plain walk makes, for random schedules and queries.
@Suite struct AttributeCountTests {
    let f = Fixture()

    @Test func theEntryCountMatchesThePlainWalk() async throws {
        var random = SystemRandomNumberGenerator()
        let (store, _) = try await f.store()
        let types = [f.day, f.night, f.office]
        let people: [Person?] = [f.bob, f.carol, nil]
        let skills: [AttributeValue?] = [.string("nurse"), .string("head"), nil]
        var mutations: [Mutation] = []
        for n in 1...300 {
            var shift = f.shift(n, types[n % 3], "2026-03-0\(1 + n % 9)", people[(n / 3) % 3])
            if let skill = skills[(n / 7) % 3] { shift.attributes = ["skill": skill, "grade": .number(Double(n % 2))] }
            mutations.append(.scheduleShift(shift))
        }
        try await store.apply(.batch(mutations))
        let s = await store.schedule
        for _ in 0..<400 {
            var query = ShiftQuery()
            if Bool.random(using: &random) { query.from = date("2026-03-0\(Int.random(in: 1...5, using: &random))") }
            if Bool.random(using: &random) { query.to = date("2026-03-0\(Int.random(in: 4...9, using: &random))") }
            switch Int.random(in: 0..<4, using: &random) {
            case 0: query.personID = f.bob.id
            case 1: query.unassignedOnly = true
            default: break
            }
            if Bool.random(using: &random) { query.shiftTypeIDs = [types.randomElement(using: &random)!.id] }
            if Int.random(in: 0..<5, using: &random) == 0 { query.locationID = f.ward.id }
            if Int.random(in: 0..<5, using: &random) == 0 { query.excluding = f.shift(Int.random(in: 1...300, using: &random), f.day, "2026-03-01", nil).id }
            var attributes: [(String, AttributeValue)] = []
            if Bool.random(using: &random) { attributes.append(("skill", [AttributeValue.string("nurse"), .string("head"), .string("x")].randomElement(using: &random)!)) }
            if Int.random(in: 0..<3, using: &random) == 0 { attributes.append(("grade", .number(Double(Int.random(in: 0...1, using: &random))))) }
            let stopAt: Int? = Int.random(in: 0..<4, using: &random) == 0 ? Int.random(in: 0...20, using: &random) : nil
            var plain = 0
            s.forEachShiftUnordered(query) { shift in
                if attributes.allSatisfy({ shift.attributes[$0.0] == $0.1 }) { plain += 1 }
                return stopAt.map { plain < $0 } ?? true
            }
            if let stopAt { plain = min(plain, max(stopAt, 0)) }
            #expect(s.count(query, attributes: attributes, stopAt: stopAt) == plain, "\(query) \(attributes) \(String(describing: stopAt))")
        }
    }

    /// `staffed` (what `validate_demand` is given) against its definition, counted over the
    /// shifts themselves: the shift's skill, else its person's skills (a list or one name).
    @Test func staffedCountsWhatItsDefinitionSays() async throws {
        let (store, _) = try await f.store()
        var bob = f.bob, carol = f.carol
        bob.attributes["skills"] = .list([.string("nurse"), .string("head")])
        carol.attributes["skills"] = .string("nurse")
        var mutations: [Mutation] = [.updatePerson(bob), .updatePerson(carol)]
        let people: [Person?] = [bob, carol, nil]
        let skills: [AttributeValue?] = [.string("nurse"), .string("head"), nil, .number(1)]
        for n in 1...200 {
            var shift = f.shift(n, [f.day, f.night][n % 2], "2026-03-0\(1 + n % 5)", people[(n / 2) % 3])
            if let skill = skills[(n / 6) % 4] { shift.attributes = ["skill": skill] }
            mutations.append(.scheduleShift(shift))
        }
        try await store.apply(.batch(mutations))
        let s = await store.schedule
        for day in 1...5 {
            for type in [f.day, f.night] {
                for skill in [nil, "nurse", "head", "cook"] as [String?] {
                    let demand = Demand(id: DemandID(UUID()), day: .date(date("2026-03-0\(day)")), shiftTypeID: type.id, skill: skill, minimum: 1, optimal: 2)
                    let expected = s.shifts(ShiftQuery(from: date("2026-03-0\(day)"), to: date("2026-03-0\(day)"), shiftTypeIDs: [type.id])).filter { shift in
                        guard let person = shift.personID else { return false }
                        guard let skill else { return true }
                        if let own = shift.attributes["skill"] { return own == .string(skill) }
                        switch s.person(person)?.attributes["skills"] {
                        case let .string(name)?: return name == skill
                        case let .list(names)?: return names.contains(.string(skill))
                        default: return false
                        }
                    }.count
                    #expect(s.staffed(demand, on: date("2026-03-0\(day)")) == expected, "\(day) \(type.symbol) \(String(describing: skill))")
                }
            }
        }
    }

    /// A day's demand entries counted in one pass (`staffed(_:on:)` of a list, what the demand
    /// phases use) give each entry's own count, in memory and over a source.
    @Test func staffedOfADaysDemandIsEachEntrysCount() async throws {
        let (store, _) = try await f.store()
        var bob = f.bob, carol = f.carol
        bob.attributes["skills"] = .list([.string("nurse"), .string("head")])
        carol.attributes["skills"] = .string("nurse")
        let dan = Person(id: PersonID(uuid(12)), displayName: "Dan", attributes: ["skills": .list([.string("head")])])
        var mutations: [Mutation] = [.updatePerson(bob), .updatePerson(carol), .addPerson(dan)]
        let people: [Person?] = [bob, carol, nil, dan]
        let skills: [AttributeValue?] = [.string("nurse"), .string("head"), nil, .number(1), .list([.string("nurse")])]
        for n in 1...300 {
            var shift = f.shift(n, [f.day, f.night][n % 2], "2026-03-0\(1 + n % 5)", people[(n / 2) % 4])
            if let skill = skills[(n / 7) % 5] { shift.attributes = ["skill": skill] }
            mutations.append(.scheduleShift(shift))
        }
        try await store.apply(.batch(mutations))
        let plain = await store.schedule
        let sourced = try SourceRepository(plain).load().0
        for s in [plain, sourced] {
            for day in 1...5 {
                let on = date("2026-03-0\(day)")
                var demands: [Demand] = []
                for type in [f.day, f.night] {
                    for skill in [nil, "nurse", "head", "cook"] as [String?] {
                        demands.append(Demand(id: DemandID(UUID()), day: .date(on), shiftTypeID: type.id, skill: skill, minimum: 1, optimal: 2))
                    }
                }
                for count in [0, 1, 2, 5, demands.count] {
                    let some = Array(demands.shuffled().prefix(count))
                    #expect(s.staffed(some, on: on) == some.map { s.staffed($0, on: on) }, "day \(day), \(count) entries")
                }
            }
        }
    }
}

/// Findings grouped for people: the same message up to its dates is one group, whatever weeks
/// apart; a different message in another week is not.
@Suite struct FindingGroupingTests {
    struct Finding { let person: String; let date: LocalDate; let message: String }

    @Test func messagesThatDifferOnlyByDateShareAGroup() {
        let findings = [
            Finding(person: "Eli", date: date("2026-07-01"), message: "Eli already works C on 2026-07-01"),
            Finding(person: "Eli", date: date("2026-08-19"), message: "Eli already works C on 2026-08-19"),
            Finding(person: "Eli", date: date("2026-09-30"), message: "Eli has 2 shifts on 2026-09-30 (at most 1)"),
            Finding(person: "Gia", date: date("2026-09-30"), message: "Gia already works C on 2026-09-30"),
        ]
        let groups = FindingGrouping.group(
            findings, weekStart: .monday,
            key: { FindingGrouping.Key(rule: "r", severity: .error, person: $0.person, type: nil) },
            date: \.date, message: \.message)
        #expect(groups.map(\.count) == [2, 1, 1])
        #expect(FindingGrouping.withoutDates("from 2026-07-01 to 2026-07-0") == "from … to 2026-07-0")
        #expect(FindingGrouping.withoutDates("short") == "short")
    }
}
