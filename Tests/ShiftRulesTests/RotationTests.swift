import Foundation
import TestSupport
import Testing
import ShiftCore
@testable import ShiftRules

@Suite struct RotationTests {
    static let engine = try! World().engine()

    /// What a store must allow for a pattern that goes beyond the stock defaults (documented in
    /// each rotation's file): the rules that reject it by default, and the parameters that admit it.
    static let adjustments: [String: (rules: Set<String>, parameters: [String: Attributes])] = [
        "continental": (["max_consecutive_days"], ["max_consecutive_days": ["days": .number(7)]]),
        "southern_swing": (["max_consecutive_days"], ["max_consecutive_days": ["days": .number(7)]]),
        "24_48": (["max_hours_per_week"], ["max_hours_per_week": ["average_hours": .number(56)]]),
        "kelly": (["max_hours_per_week"], ["max_hours_per_week": ["average_hours": .number(56)]]),
        "48_96": (["max_hours_per_week", "min_rest_between_shifts"],
                  ["max_hours_per_week": ["average_hours": .number(56)], "min_rest_between_shifts": ["hours": .number(0)]]),
    ]

    /// Published properties: cycle length, teams, average weekly hours of one team.
    static let published: [(id: String, cycle: Int, teams: Int, hours: Double)] = [
        ("panama", 28, 4, 42), ("pitman", 14, 4, 42), ("dupont", 28, 4, 42), ("four_on_four_off", 16, 4, 42),
        ("continental", 28, 4, 42), ("southern_swing", 28, 4, 42), ("24_48", 3, 3, 56), ("48_96", 6, 3, 56),
        ("kelly", 9, 3, 56), ("fast_12", 8, 4, 42), ("metropolitan", 8, 4, 42), ("5_4_9", 14, 1, 40),
    ]

    @Test func everyStockRotationLoads() {
        #expect(Set(Self.engine.rotations.map(\.id)) == Set(Self.published.map(\.id)))
        #expect(Self.engine.rotations.allSatisfy { !$0.source.isEmpty }, "each rotation cites its definition")
    }

    @Test(arguments: published.map(\.id)) func publishedProperties(_ id: String) throws {
        let expected = Self.published.first { $0.id == id }!
        let info = try #require(Self.engine.rotations.first { $0.id == id })
        #expect(info.cycleDays == expected.cycle)
        #expect(info.teams.count == expected.teams)
        #expect(abs((info.averageWeeklyHours ?? 0) - expected.hours) < 0.01)
        guard expected.teams > 1 else { return }
        // Continuous coverage: every day of the cycle, each shift letter is worked by exactly one team.
        for day in 0..<expected.cycle {
            let letters = info.teams.map { Array(info.pattern[$0]!)[day] }.filter { !rotationOffLetters.contains($0) }
            #expect(Set(letters).count == letters.count && Set(letters) == Set(info.shifts.keys.map { Character($0) }),
                    "\(id) day \(day + 1): \(letters)")
        }
    }

    /// A schedule with the rotation's shift types (by letter) and `size` people per team.
    private func world(for info: RotationInfo, size: Int = 2, zone: String = "Europe/Berlin") throws -> (Schedule, [(String, [PersonID])]) {
        var mutations: [Mutation] = []
        let ids = Counter()
        for (letter, time) in info.shifts.sorted(by: { $0.key < $1.key }) {
            mutations.append(.addShiftType(ShiftType(id: ShiftTypeID(ids.next()), symbol: letter, title: letter, duration: ShiftDuration(time)!)))
        }
        var teams: [(String, [PersonID])] = []
        for team in info.teams {
            var people: [PersonID] = []
            for member in 0..<size {
                let id = PersonID(ids.next())
                people.append(id)
                mutations.append(.addPerson(Person(id: id, displayName: "\(team)\(member)")))
            }
            teams.append((team, people))
        }
        return (try Schedule(settings: StoreSettings(timeZoneIdentifier: zone)).applying(.batch(mutations)).schedule, teams)
    }

    @Test(arguments: published.map(\.id)) func wholeCyclesPassTheStockRules(_ id: String) throws {
        let info = try #require(Self.engine.rotations.first { $0.id == id })
        let (schedule, teams) = try world(for: info)
        let from = date("2026-03-02") // a Monday (5-4/9 starts its pay period on one)
        let cycles = max(2, 56 / info.cycleDays!)
        let to = from.adding(days: info.cycleDays! * cycles - 1)
        let shifts = try Self.engine.generateRotation(RotationRequest(rotation: id, teams: teams, from: from, to: to), in: schedule)
        let worked = info.pattern.values.reduce(0) { $0 + $1.filter { !rotationOffLetters.contains($0) }.count }
        #expect(shifts.count == worked * cycles * 2, "every working day of every team, for each of its 2 people")

        let mutation = Mutation.batch(shifts.map { .scheduleShift($0) })
        let (after, changes) = try schedule.applying(mutation)
        let proposal = Proposal(mutation: mutation, changes: changes, before: schedule, after: after,
                                user: UserProfile(userId: "t", displayName: "T"), timestamp: fixedNow)
        let adjustment = Self.adjustments[id]
        // Weekly hours are averaged over one reference period covering exactly the generated weeks.
        let reference: Attributes = ["reference_weeks": .number(Double((from.days(to: to) + 7) / 7)), "reference_start": .string(from.description)]
        var parameters = adjustment?.parameters ?? [:]
        parameters["max_hours_per_week", default: [:]].merge(reference) { _, new in new }
        let admitting = try World().engine(config: RulesConfig(parameters: parameters))
        let violations = try admitting.evaluate(proposal)
        #expect(violations.filter { $0.severity == .error }.isEmpty, "\(violations.prefix(3).map(\.description))")

        let strict = try World().engine(config: RulesConfig(parameters: ["max_hours_per_week": reference]))
        let broken = Set(try strict.evaluate(proposal).filter { $0.severity == .error }.map(\.ruleID))
        #expect(broken == adjustment?.rules ?? [], "the stock defaults reject exactly what the rotation's file says")
    }

    @Test func panamaTeamsWorkSevenOfEveryFourteenDaysAndCoverDaysAndNights() throws {
        let info = try #require(Self.engine.rotations.first { $0.id == "panama" })
        let (schedule, teams) = try world(for: info, size: 1)
        let from = date("2026-01-05")
        let shifts = try Self.engine.generateRotation(
            RotationRequest(rotation: "panama", teams: teams, from: from, to: from.adding(days: 83)), in: schedule)
        let byPerson = Dictionary(grouping: shifts, by: { $0.personID! })
        for (_, people) in teams {
            let dates = Set(byPerson[people[0]]!.map(\.date))
            for start in 0...(84 - 14) {
                let window = (start..<(start + 14)).filter { dates.contains(from.adding(days: $0)) }
                #expect(window.count == 7)
            }
        }
        for offset in 0..<84 {
            let day = shifts.filter { $0.date == from.adding(days: offset) }
            #expect(day.count == 2 && Set(day.map { schedule.shiftType($0.shiftTypeID)!.symbol }) == ["D", "N"])
        }
        let minutes = shifts.reduce(0) { $0 + schedule.interval(of: $1)!.minutes } / teams.count
        #expect(abs(Double(minutes) / 60 / 12 - 42) < 0.5, "42 h a week on average (daylight saving moves it by an hour)")
    }

    @Test func theAnchorSetsDayOneOfTheCycle() throws {
        let info = try #require(Self.engine.rotations.first { $0.id == "pitman" })
        let (schedule, teams) = try world(for: info, size: 1)
        let anchor = date("2026-03-02")
        let from = date("2026-03-05")
        let shifts = try Self.engine.generateRotation(
            RotationRequest(rotation: "pitman", teams: teams, from: from, to: from.adding(days: 13), anchor: anchor), in: schedule)
        let teamA = Set(shifts.filter { $0.personID == teams[0].1[0] }.map { anchor.days(to: $0.date) % 14 })
        let expected = Set(Array(info.pattern["A"]!).enumerated().filter { !rotationOffLetters.contains($0.element) }.map(\.offset))
        #expect(teamA == expected)
        // An anchor after the range works too (the cycle extends backwards).
        let early = try Self.engine.generateRotation(
            RotationRequest(rotation: "pitman", teams: teams, from: from, to: from.adding(days: 13), anchor: from.adding(days: 28)), in: schedule)
        #expect(Set(early.map(\.date)) == Set(shifts.map(\.date)))
    }

    @Test func lettersMapToTypesBySymbolOrExplicitly() throws {
        let info = try #require(Self.engine.rotations.first { $0.id == "pitman" })
        let (schedule, teams) = try world(for: info, size: 1)
        let day = try #require(schedule.shiftType(symbol: "D"))
        let shifts = try Self.engine.generateRotation(
            RotationRequest(rotation: "pitman", teams: teams, from: date("2026-03-02"), to: date("2026-03-15"),
                            shiftTypes: ["N": day.id]), in: schedule)
        #expect(shifts.allSatisfy { $0.shiftTypeID == day.id })
        #expect(throws: RotationError.unknownTeam(rotation: "pitman", team: "Z", teams: ["A", "B", "C", "D"])) {
            try Self.engine.generateRotation(RotationRequest(rotation: "pitman", teams: [("Z", [])], from: date("2026-03-02"),
                                                             to: date("2026-03-03")), in: schedule)
        }
        let bare = try Schedule(settings: StoreSettings(timeZoneIdentifier: "UTC"))
        #expect(throws: RotationError.unmappedLetter(rotation: "pitman", letter: "D", time: "07:00-19:00")) {
            try Self.engine.generateRotation(RotationRequest(rotation: "pitman", teams: [("A", [])], from: date("2026-03-02"),
                                                             to: date("2026-03-03")), in: bare)
        }
        #expect(throws: RotationError.self) {
            try Self.engine.generateRotation(RotationRequest(rotation: "nope", teams: [], from: date("2026-03-02"), to: date("2026-03-03")), in: bare)
        }
    }

    @Test func rotatingOntoConflictingShiftsIsRejectedWhole() async throws {
        let w = World()
        let (store, repository) = try await w.store(try w.engine())
        try await store.apply(.scheduleShift(w.shift(1, w.day, "2026-03-03", w.bob)))
        let before = repository.snapshot
        let schedule = await store.schedule
        let shifts = try w.engine().generateRotation(
            RotationRequest(rotation: "pitman", teams: [("A", [w.bob.id]), ("C", [w.carol.id])], from: date("2026-03-02"),
                            to: date("2026-03-15"), shiftTypes: ["D": w.late.id, "N": w.night.id]), in: schedule)
        do {
            try await store.apply(.batch(shifts.map { .scheduleShift($0) }))
            Issue.record("the conflicting rotation was accepted")
        } catch let ScheduleError.rejected(violations) {
            let offending = Set(violations.filter { $0.severity == .error }.compactMap(\.shiftID))
            #expect(!offending.isEmpty && offending.allSatisfy { id in shifts.contains { $0.id == id } })
            #expect(violations.contains { $0.ruleID == "no_double_booking" && $0.date == date("2026-03-03") })
        }
        #expect(repository.snapshot == before, "no shift of the rotation was written")
    }

    @Test func aGenerateFunctionComputesThePattern() throws {
        let folder = try RuleFolder(["weekdays.lua": """
            return rotation {
              id = "weekdays", summary = "Office hours on weekdays, one team.", source = "test",
              shifts = { W = "09:00-17:00" },
              params = { days = 5 },
              generate = function(ctx)
                local out = {}
                local day = ctx.from
                while day <= ctx.to do
                  if cal.weekday(day) <= ctx.params.days then
                    for team in pairs(ctx.teams) do out[#out + 1] = { team = team, date = day, shift = "W" } end
                  end
                  day = cal.add_days(day, 1)
                end
                return out
              end,
            }
            """])
        let engine = try RuleEngine(RuleEngineConfiguration(directories: [folder.path]))
        #expect(engine.rotations.map(\.id) == ["weekdays"])
        #expect(engine.rotations[0].cycleDays == nil)
        let office = ShiftType(id: ShiftTypeID(uuid(7)), symbol: "W", title: "Office", duration: ShiftDuration("09:00-17:00")!)
        let bob = Person(id: PersonID(uuid(8)), displayName: "Bob")
        let schedule = try Schedule(settings: StoreSettings(timeZoneIdentifier: "UTC")).applying(.batch([.addShiftType(office), .addPerson(bob)])).schedule
        let shifts = try engine.generateRotation(
            RotationRequest(rotation: "weekdays", teams: [("office", [bob.id])], from: date("2026-03-02"), to: date("2026-03-15")), in: schedule)
        #expect(shifts.count == 10)
        #expect(shifts.allSatisfy { $0.date.weekday.rawValue <= 5 })
    }
}
