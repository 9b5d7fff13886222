import Foundation
import TestSupport
import Testing
import ShiftCore
@testable import ShiftRules

/// The person phase of `validate`: `validate_person(person, shifts, schedule, report, params)` over each
/// person's timeline.
@Suite struct PersonPhaseTests {
    /// Bob: a night on the 2nd, then an early and a late on the 3rd (added late first); Carol: one
    /// day shift; an open shift nobody works.
    private func schedule() throws -> Schedule {
        let w = World()
        return try Schedule().applying(.batch([w.setup,
            .scheduleShift(w.shift(1, w.night, "2026-03-02", w.bob)), .scheduleShift(w.shift(3, w.late, "2026-03-03", w.bob)),
            .scheduleShift(w.shift(2, w.early, "2026-03-03", w.bob)), .scheduleShift(w.shift(4, w.day, "2026-03-03", w.carol)),
            .scheduleShift(w.shift(5, w.day, "2026-03-04", nil)),
        ])).schedule
    }

    private func validate(_ rule: String, _ schedule: Schedule, workers: Int = 1) throws -> [Violation] {
        let folder = try RuleFolder(["x.lua": rule])
        var configuration = RuleEngineConfiguration(directories: [folder.path], now: { fixedNow })
        configuration.workers = workers
        return try RuleEngine(configuration).validate(schedule)
    }

    @Test func eachPersonGetsTheirShiftsInTimeOrderWithColumns() throws {
        let violations = try validate(#"""
            return rule { id = "x", summary = "s",
              validate_person = function(person, shifts, schedule, report)
                local parts = {}
                for i = 1, shifts.n do
                  parts[#parts + 1] = table.concat({ shifts.dates[i], shifts.types[i], shifts.starts[i], shifts.ends[i],
                    shifts.minutes[i], shifts.days[i], shifts.ids[i] == shifts[i].id and "id" or "?" }, " ")
                end
                report{ message = person.name .. " " .. #shifts .. ": " .. table.concat(parts, " | "), person = person }
              end }
            """#, try schedule())
        let noon2 = Int64(1_772_409_600) // 2026-03-02T00:00:00Z
        #expect(violations.map(\.message) == [
            "Bob 3: 2026-03-02 N \(noon2 + 19 * 3600) \(noon2 + 31 * 3600) 720 20514 id"
                + " | 2026-03-03 E \(noon2 + 30 * 3600) \(noon2 + 38 * 3600) 480 20515 id"
                + " | 2026-03-03 L \(noon2 + 38 * 3600) \(noon2 + 46 * 3600) 480 20515 id",
            "Carol 1: 2026-03-03 D \(noon2 + 31 * 3600) \(noon2 + 43 * 3600) 720 20515 id",
        ])
    }

    /// `shifts.attributes` is a fast path of `shifts[i]:attribute(name)`: per name a column with
    /// each shift's value, nil where a shift has none, and no column for a name no shift has.
    @Test func theAttributeColumnsHoldWhatEachShiftsViewReads() throws {
        let w = World()
        var night = w.shift(1, w.night, "2026-03-02", w.bob)
        night.attributes = ["skill": .string("HeadNurse"), "weight": .number(2)]
        var early = w.shift(2, w.early, "2026-03-03", w.bob)
        early.attributes = ["skill": .string("Nurse"), "tags": .list([.string("a"), .string("b")])]
        let late = w.shift(3, w.late, "2026-03-03", w.bob)
        var day = w.shift(4, w.day, "2026-03-03", w.carol)
        day.attributes = ["flag": .bool(true)]
        let schedule = try Schedule().applying(.batch([w.setup, .scheduleShift(night), .scheduleShift(early), .scheduleShift(late),
                                                       .scheduleShift(day)])).schedule
        let violations = try validate(#"""
            return rule { id = "x", summary = "s",
              validate_person = function(person, shifts, schedule, report)
                local columns, parts = shifts.attributes, {}
                for _, name in ipairs({ "skill", "weight", "tags", "flag", "missing" }) do
                  local column = columns[name]
                  for i = 1, shifts.n do
                    local want = shifts[i]:attribute(name)
                    local got = column and column[i]
                    if type(want) == "table" then
                      assert(type(got) == "table" and table.concat(got, ",") == table.concat(want, ","), name)
                    else
                      assert(got == want, name .. " of shift " .. i)
                    end
                  end
                  if column ~= nil then parts[#parts + 1] = name end
                end
                table.sort(parts)
                report(person.name .. ": " .. table.concat(parts, " "))
              end }
            """#, schedule)
        #expect(violations.map(\.message) == ["Bob: skill tags weight", "Carol: flag"])
    }

    @Test func thePhaseQueriesTheSchedule() throws {
        let violations = try validate(#"""
            return rule { id = "x", summary = "s",
              validate_person = function(person, shifts, schedule, report)
                report(person.name .. " " .. schedule:count{ date = "2026-03-03" })
              end }
            """#, try schedule())
        #expect(violations.map(\.message) == ["Bob 3", "Carol 3"])
    }

    @Test func aRuleWithAPersonPhaseIsNotAlsoCheckedShiftByShift() throws {
        let violations = try validate(#"""
            return rule { id = "x", summary = "s", on = { "shift" },
              check = function(change, schedule, report) report("check") end,
              validate_person = function(person, shifts, schedule, report) report("person " .. person.name) end }
            """#, try schedule())
        #expect(violations.map(\.message) == ["person Bob", "person Carol"])
    }

    @Test func writingIntoItsColumnsChangesNothingAnotherRuleSees() throws {
        let folder = try RuleFolder([
            "a.lua": #"return rule { id = "a", summary = "s", validate_person = function(p, shifts) shifts.starts[1] = 0; assert(not pcall(function() shifts.n = 0 end)) end }"#,
            "b.lua": #"return rule { id = "b", summary = "s", validate_person = function(p, shifts, schedule, report) report(p.name .. " " .. shifts.n .. " " .. shifts.starts[1]) end }"#,
        ])
        let violations = try RuleEngine(RuleEngineConfiguration(directories: [folder.path], now: { fixedNow })).validate(try schedule())
        #expect(violations.map(\.message) == ["Bob 3 \(1_772_409_600 + 19 * 3600)", "Carol 1 \(1_772_409_600 + 31 * 3600)"])
    }

    /// A timeline is read-only, like a view: assigning to it is an error naming it.
    @Test func aTimelineIsReadOnly() throws {
        for body in ["shifts.n = 0", "shifts[1] = shifts[2]", "shifts.mine = {}"] {
            let rule = #"return rule { id = "x", summary = "s", validate_person = function(p, shifts)"# + "\n" + body + "\nend }"
            #expect { try validate(rule, try schedule()) } throws: { error in
                "\(error)".contains("x.lua:2:") && "\(error)".contains("attempt to modify read-only timeline")
            }
        }
    }

    @Test func anUnknownColumnOrAKeptTimelineIsAClearError() throws {
        let unknown = #"return rule { id = "x", summary = "s", validate_person = function(p, shifts) local _ = shifts.hours end }"#
        #expect { try validate(unknown, try schedule()) } throws: { error in
            "\(error)".contains("a timeline has no field 'hours' (n, starts, ends, minutes, days, dates, types, ids, attributes") && "\(error)".contains("x.lua:1:")
        }
        // A timeline kept past its evaluation (in an upvalue) is stale in the next one.
        let folder = try RuleFolder(["x.lua": #"""
            local first
            return rule { id = "x", summary = "s", validate_person = function(p, shifts)
              if first == nil then first = shifts elseif p.name == "Bob" then local _ = first.days end
            end }
            """#])
        let engine = try RuleEngine(RuleEngineConfiguration(directories: [folder.path], now: { fixedNow }))
        _ = try engine.validate(try schedule())
        #expect { try engine.validate(try schedule()) } throws: { error in "\(error)".contains("stale timeline") && "\(error)".contains("x.lua:3:") }
    }

    /// Views remember the fields they served, but only for their own evaluation: a view kept
    /// in an upvalue is stale in the next one even for a field it read before.
    @Test func aKeptViewIsStaleNextTimeEvenForFieldsItRead() throws {
        let folder = try RuleFolder(["x.lua": #"""
            local kept
            return rule { id = "x", summary = "s", on = { "shift" }, check = function(change)
              if kept == nil then kept = change.after; local _ = kept.date .. kept.person.name end
              local _ = kept.date
            end }
            """#])
        let engine = try RuleEngine(RuleEngineConfiguration(directories: [folder.path], now: { fixedNow }))
        _ = try engine.validate(try schedule())
        #expect { try engine.validate(try schedule()) } throws: { error in "\(error)".contains("stale view") && "\(error)".contains("x.lua:4:") }
    }

    /// One view per entity and schedule in an evaluation, however it was reached: raw-equal,
    /// usable as a table key; the view of the schedule before is another one.
    @Test func oneEntityHasOneViewHoweverItWasReached() throws {
        let violations = try validate(#"""
            return rule { id = "x", summary = "s", validate_person = function(person, shifts, schedule, report)
              if shifts.n == 0 then return end
              local first = shifts[1]
              local found = schedule:shifts{ person = person, date = first.date }[1]
              local again = schedule:shift(first.id)
              local seen = { [first.person] = true, [first.type] = true }
              report(("%s %s %s %s %s %s"):format(person.name, tostring(rawequal(first, found)), tostring(rawequal(first, again)),
                tostring(rawequal(first.person, person)), tostring(seen[found.person] == true), tostring(seen[again.type] == true)))
            end }
            """#, try schedule())
        #expect(violations.map(\.message) == ["Bob true true true true true", "Carol true true true true true"])
        let before = try RuleFolder(["x.lua": #"""
            return rule { id = "x", summary = "s", on = { "shift" }, check = function(change, schedule, report)
              local now = schedule:shift(change.after.id)
              report(tostring(rawequal(now, change.after)) .. " " .. tostring(change.before == nil or rawequal(change.before, change.after)))
            end }
            """#])
        let w = World()
        let schedule = try Schedule().applying(.batch([w.setup, .scheduleShift(w.shift(1, w.night, "2026-03-02", w.bob))])).schedule
        var moved = w.shift(1, w.night, "2026-03-02", w.bob)
        moved.notes = "moved"
        let mutation = Mutation.updateShift(moved)
        let (after, changes) = try schedule.applying(mutation)
        let engine = try RuleEngine(RuleEngineConfiguration(directories: [before.path], now: { fixedNow }))
        let proposal = Proposal(mutation: mutation, changes: changes, before: schedule, after: after,
                                user: UserProfile(userId: "t", displayName: "T"), timestamp: fixedNow)
        #expect(try engine.evaluate(proposal).map(\.message) == ["true false"])
    }

    /// Methods are served without a call into Swift; a name that is neither a method nor a
    /// field still fails naming what a schedule has.
    @Test func aMisspelledScheduleMethodNamesTheMethods() throws {
        let typo = #"return rule { id = "x", summary = "s", validate_person = function(p, shifts, schedule) return schedule:shifs{} end }"#
        #expect { try validate(typo, try schedule()) } throws: { error in
            "\(error)".contains("the schedule has no field 'shifs' (methods: ") && "\(error)".contains("shifts, ") && "\(error)".contains("x.lua:1:")
        }
    }

    @Test func shiftsOutOfRangeAreNil() throws {
        let violations = try validate(#"""
            return rule { id = "x", summary = "s", validate_person = function(p, shifts, schedule, report)
              report(tostring(shifts[0]) .. " " .. tostring(shifts[shifts.n + 1]) .. " " .. tostring(shifts[1.5]) .. " " .. shifts[1].type.symbol)
            end }
            """#, try schedule())
        #expect(violations.first?.message == "nil nil nil N")
        // Any other number is nil too, never a call into Swift; a key that is not a name is an error.
        let odd = try validate(#"""
            return rule { id = "x", summary = "s", validate_person = function(p, shifts, schedule, report)
              local keys = { -1, math.huge, -math.huge, 0/0, 2^63, -2^63, math.maxinteger, math.mininteger }
              local out = {}
              for i, k in ipairs(keys) do out[i] = tostring(shifts[k]) end
              report(table.concat(out, " ") .. " " .. #shifts .. " " .. tostring(shifts[1.0] == shifts[1]))
            end }
            """#, try schedule())
        #expect(odd.first?.message == "nil nil nil nil nil nil nil nil 3 true")
        let notAName = #"return rule { id = "x", summary = "s", validate_person = function(p, shifts) return shifts[true] end }"#
        #expect { try validate(notAName, try schedule()) } throws: { error in
            "\(error)".contains("timeline fields are named by strings") && "\(error)".contains("x.lua:1:")
        }
    }

    /// A timeline kept past its evaluation is stale for its shifts too, not only its columns.
    @Test func aKeptTimelinesShiftIsStale() throws {
        let folder = try RuleFolder(["x.lua": #"""
            local first
            return rule { id = "x", summary = "s", validate_person = function(p, shifts)
              if first == nil then first = shifts elseif p.name == "Bob" then local _ = first[1] end
            end }
            """#])
        let engine = try RuleEngine(RuleEngineConfiguration(directories: [folder.path], now: { fixedNow }))
        _ = try engine.validate(try schedule())
        #expect { try engine.validate(try schedule()) } throws: { error in "\(error)".contains("stale timeline") && "\(error)".contains("x.lua:3:") }
    }

    @Test func aRuleNeedsOneOfItsFunctionsAndTheyMustBeFunctions() throws {
        #expect(throws: RuleError.self) { try validate(#"return rule { id = "x", summary = "s", validate_person = 3 }"#, try schedule()) }
        let folder = try RuleFolder(["x.lua": #"return rule { id = "x", summary = "s", validate_person = function() end }"#])
        let info = try RuleEngine(RuleEngineConfiguration(directories: [folder.path])).rules
        #expect(info.first?.hasPersonPhase == true && info.first?.hasValidatePhase == false)
    }

    /// Enough people and shifts for the phase to be split over states: the same report, in the
    /// same order.
    @Test func severalStatesGiveTheSameReport() throws {
        let w = World()
        var mutations: [Mutation] = [w.setup]
        var n = 0
        for p in 0..<60 {
            let person = Person(id: PersonID(uuid(7000 + p)), displayName: "P\(p)")
            mutations.append(.addPerson(person))
            for day in 0..<40 where (day + p) % 5 != 0 {
                n += 1
                let type = [w.early, w.late, w.night, w.day][(day / 3 + p) % 4]
                mutations.append(.scheduleShift(ScheduledShift(id: ShiftID(uuid(200_000 + n)), shiftTypeID: type.id,
                                                               date: date("2026-03-02").adding(days: day), personID: person.id)))
            }
        }
        let schedule = try Schedule().applying(.batch(mutations)).schedule
        #expect(schedule.shiftCount >= RuleEngine.parallelThreshold)
        let rules = stockRules + "/examples/peers"
        func engine(_ workers: Int) throws -> RuleEngine {
            var configuration = RuleEngineConfiguration(directories: [rules], now: { fixedNow })
            configuration.workers = workers
            return try RuleEngine(configuration)
        }
        let one = try engine(1).validate(schedule)
        #expect(one.count > 50)
        #expect(try engine(2).validate(schedule) == one)
        #expect(try engine(3).validate(schedule) == one)
    }

    @Test func weightedSlicesCoverEverythingInOrder() {
        for weights in [[], [5], [1, 1, 1, 1], [100, 1, 1, 1, 1], [3, 9, 2, 7, 1, 1, 8]] {
            for workers in 1...4 {
                let slices = RuleEngine.slices(weights, workers: workers)
                #expect(slices.reduce(0) { $0 + $1.count } == weights.count)
                #expect(slices.count <= max(1, workers))
                #expect(zip(slices, slices.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
            }
        }
    }
}

/// The stock rules' person phases report exactly what their checks report shift by shift (the
/// slow path, with a pair seen from both sides kept once), on random schedules.
@Suite struct StockPersonPhaseEquivalenceTests {
    static let rules = [
        "no_double_booking", "min_rest_between_shifts", "one_shift_per_day", "max_consecutive_days", "max_hours_per_week",
        "respects_availability",
    ]

    private func engine(personPhase: Bool, workers: Int = 1) throws -> RuleEngine {
        // Limits low enough for the random rosters to break them; a weekly cap too.
        let config = RulesConfig(parameters: [
            "max_consecutive_days": ["days": .number(4)],
            "max_hours_per_week": ["average_hours": .number(30), "reference_weeks": .number(2), "reference_start": .string("2026-03-09"),
                                   "max_week_hours": .number(40)],
        ])
        var configuration = RuleEngineConfiguration(directories: [stockRules], config: config, now: { fixedNow })
        configuration.personPhase = personPhase
        configuration.workers = workers
        return try RuleEngine(configuration)
    }

    /// People with and without a `min_rest_hours` attribute; day, night, early, late, short and
    /// all-day types; up to three shifts a day; a time zone with a DST change in the period.
    static func randomSchedule(seed: UInt64) throws -> Schedule {
        var state = seed
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        let types = [("D", "07:00-19:00"), ("N", "19:00-07:00"), ("E", "06:00-14:00"), ("L", "14:00-22:00"), ("S", "09:00-10:30"),
                     ("V", "all-day"), ("X", "22:00-02:00")].enumerated().map { index, entry in
            ShiftType(id: ShiftTypeID(uuid(40 + index)), symbol: entry.0, title: entry.0, duration: ShiftDuration(entry.1)!)
        }
        var mutations: [Mutation] = types.map(Mutation.addShiftType)
        var people: [Person] = []
        for p in 0..<6 {
            var attributes: Attributes = p % 3 == 0 ? ["min_rest_hours": .number(Double(6 + p))] : [:]
            if p % 3 == 1 {
                attributes["max_consecutive_days"] = .number(Double(2 + p))
                attributes["max_hours_per_week"] = .number(20)
            }
            people.append(Person(id: PersonID(uuid(60 + p)), displayName: "P\(p)", attributes: attributes))
        }
        mutations += people.map(Mutation.addPerson)
        for (index, person) in people.enumerated() {
            let from = date("2026-03-16").adding(days: next(28))
            let kinds: [AvailabilityKind] = [.unavailable, .undesired, .desired]
            mutations.append(.addAvailability(Availability(
                id: AvailabilityID(uuid(80 + index)), personID: person.id, from: from, to: from.adding(days: next(6)),
                shiftTypeID: next(2) == 0 ? nil : types[next(types.count)].id, kind: kinds[next(3)], weight: next(2) == 0 ? nil : 3)))
        }
        var n = 0
        for day in 0..<28 {
            for person in people {
                for _ in 0..<next(4) {
                    n += 1
                    mutations.append(.scheduleShift(ScheduledShift(
                        id: ShiftID(uuid(1_000 + n)), shiftTypeID: types[next(types.count)].id, date: date("2026-03-16").adding(days: day),
                        personID: next(10) == 0 ? nil : person.id)))
                }
            }
        }
        return try Schedule(settings: StoreSettings(timeZoneIdentifier: "Europe/Berlin")).applying(.batch(mutations)).schedule
    }

    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64]) func samePairsAndMessagesAsTheChecks(seed: UInt64) throws {
        let schedule = try Self.randomSchedule(seed: seed)
        func report(_ violations: [Violation]) -> [String] {
            violations.filter { Self.rules.contains($0.ruleID) }
                .map { "\($0.ruleID) \($0.severity) \($0.shiftID?.description ?? "-") \($0.relatedShiftIDs.map(\.description)) \($0.message)" }
                .sorted()
        }
        let fast = report(try engine(personPhase: true).validate(schedule))
        let slow = report(try engine(personPhase: false).validate(schedule))
        #expect(Set(Self.rules).isSubset(of: Set(fast.map { String($0.prefix { $0 != " " }) })), "each rule finds something")
        let onlyFast = fast.filter { !slow.contains($0) }
        let onlySlow = slow.filter { !fast.contains($0) }
        #expect(onlyFast.isEmpty && onlySlow.isEmpty && fast.count == slow.count, "only in the person phase: \(onlyFast.prefix(5)); only in the checks: \(onlySlow.prefix(5))")
    }
}

/// A batch that adds much of some people's rosters is checked by the person phases first; the
/// checks then run only where a phase found something. What is reported must be exactly what
/// the checks alone report, in the same order.
extension StockPersonPhaseEquivalenceTests {
    /// On a random month: two new people with clean rosters (one breaking a rule at its end), a
    /// third new one breaking several, four months more of random shifts for P0 and P2 (whose
    /// old shifts already break rules), and a shift or two for the others (too few to be checked
    /// person by person).
    func randomBatch(on schedule: Schedule, seed: UInt64) throws -> Proposal {
        var state = seed &+ 99
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        let types = schedule.shiftTypes
        let short = types.first { $0.symbol == "S" }!, day = types.first { $0.symbol == "D" }!
        var mutations: [Mutation] = []
        var n = 0
        func add(_ type: ShiftType, _ day: Int, _ person: PersonID) {
            n += 1
            mutations.append(.scheduleShift(ScheduledShift(
                id: ShiftID(uuid(50_000 + n)), shiftTypeID: type.id, date: date("2026-04-13").adding(days: day), personID: person)))
        }
        let newcomers = (0..<3).map { Person(id: PersonID(uuid(70 + $0)), displayName: "New\($0)") }
        mutations += newcomers.map(Mutation.addPerson)
        for day in 0..<120 where day % 4 != 3 {
            add(short, day, newcomers[0].id)
            add(short, day, newcomers[1].id)
        }
        add(day, 0, newcomers[1].id)
        mutations.append(.addAvailability(Availability(
            id: AvailabilityID(uuid(90)), personID: newcomers[2].id, from: date("2026-04-13"), to: date("2026-04-23"), kind: .unavailable)))
        for day in 0..<120 {
            for _ in 0..<next(3) { add(types[next(types.count)], day, newcomers[2].id) }
        }
        let people = schedule.people.sorted { $0.displayName < $1.displayName }
        for (index, person) in people.enumerated() {
            if index == 0 || index == 2 {
                for day in 0..<160 where next(3) != 0 { add(types[next(types.count)], day, person.id) }
            } else {
                for _ in 0...next(2) { add(types[next(types.count)], -next(28), person.id) }
            }
        }
        let mutation = Mutation.batch(mutations)
        let (after, changes) = try schedule.applying(mutation)
        return Proposal(mutation: mutation, changes: changes, before: schedule, after: after, user: UserProfile(userId: "t", displayName: "T"),
                        timestamp: fixedNow)
    }

    private func lines(_ violations: [Violation]) -> [String] {
        violations.map { "\($0.ruleID) \($0.severity) \($0.shiftID?.description ?? "-") \($0.relatedShiftIDs.map(\.description)) \($0.message)" }
    }

    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64]) func aBatchReportsWhatItsChecksReport(seed: UInt64) throws {
        let proposal = try randomBatch(on: try Self.randomSchedule(seed: seed), seed: seed)
        let slow = lines(try engine(personPhase: false).evaluate(proposal))
        let fastEngine = try engine(personPhase: true)
        let fast = lines(try fastEngine.evaluate(proposal))
        #expect(Set(Self.rules).isSubset(of: Set(slow.map { String($0.prefix { $0 != " " }) })), "each rule finds something")
        #expect(fast == slow, "first difference at \(fast.indices.first { $0 >= slow.count || fast[$0] != slow[$0] } ?? fast.count) of \(fast.count) and \(slow.count)")
        // The phases did clear people (New0 for every rule; New1 for all but the rules its first
        // day breaks), so the equality above is not the checks run twice.
        let clearance = try #require(try fastEngine.clearance(for: proposal))
        let new0 = PersonID(uuid(70)), new1 = PersonID(uuid(71)), new2 = PersonID(uuid(72))
        for rule in Self.rules { #expect(clearance.cleared[rule]?.contains(new0) == true, "\(rule) clears New0") }
        #expect(clearance.cleared["max_consecutive_days"]?.contains(new1) == true)
        #expect(clearance.cleared["one_shift_per_day"]?.contains(new1) == false)
        #expect(clearance.cleared["no_double_booking"]?.contains(new2) == false)
        #expect(clearance.cleared.values.allSatisfy { !$0.contains(PersonID(uuid(61))) }, "P1 gets too few shifts to be cleared")
    }

    @Test func aBigBatchOnSeveralStatesReportsTheSame() throws {
        let proposal = try randomBatch(on: try Self.randomSchedule(seed: 7), seed: 7)
        #expect(proposal.changes.count >= RuleEngine.parallelThreshold)
        let slow = lines(try engine(personPhase: false, workers: 2).evaluate(proposal))
        let fast = lines(try engine(personPhase: true, workers: 2).evaluate(proposal))
        #expect(fast == slow)
        // One state finds the same (chunks of a batch that mixes entities fall differently).
        #expect(fast.sorted() == lines(try engine(personPhase: true).evaluate(proposal)).sorted())
    }
}

/// What the batch shortcut relies on, shown with a rule that breaks it: a person phase that
/// reports nothing where its check would report something lets a batch's adds through.
@Suite struct BatchClearanceContractTests {
    private let rule = #"""
        return rule { id = "strict", summary = "s", on = { "shift" },
          check = function(change, schedule, report)
            if change.after ~= nil then report{ message = "no", shift = change.after } end
          end,
          validate_person = function(person, shifts, schedule, report)
            if person.name == "Carol" then report{ message = "Carol has " .. shifts.n } end
          end,
        }
        """#

    private func evaluate(_ mutations: [Mutation], on schedule: Schedule, personPhase: Bool = true) throws -> [Violation] {
        let folder = try RuleFolder(["strict.lua": rule])
        var configuration = RuleEngineConfiguration(directories: [folder.path], now: { fixedNow })
        configuration.personPhase = personPhase
        let (after, changes) = try schedule.applying(.batch(mutations))
        return try RuleEngine(configuration).evaluate(Proposal(
            mutation: .batch(mutations), changes: changes, before: schedule, after: after, user: UserProfile(userId: "t", displayName: "T"),
            timestamp: fixedNow))
    }

    /// `rules test` holds a rule's examples to the promise: an add its check reports must be
    /// reported by its phase too, for that person.
    @Test func examplesCatchAPhaseThatFindsLessThanItsCheck() throws {
        let examples = #"""
              examples = {
                { name = "Bob's add", given = { types = { D = "07:00-19:00" }, people = { "Bob" } },
                  add = { "D", "2026-03-02", "Bob" }, expect = "error" },
                { name = "Carol's add", given = { types = { D = "07:00-19:00" }, people = { "Carol" } },
                  add = { "D", "2026-03-02", "Carol" }, expect = "error" },
              },
            }
            """#
        let folder = try RuleFolder(["strict.lua": rule.replacingOccurrences(of: "\n}", with: "") + examples])
        let results = try RuleEngine(RuleEngineConfiguration(directories: [folder.path], now: { fixedNow })).runExamples()
        #expect(results.map(\.passed) == [false, true])
        #expect(results.first?.detail.contains("validate_person reports nothing for Bob") == true, "\(results.first?.detail ?? "")")
    }

    @Test func whoIsClearedAndWhoIsChecked() throws {
        let w = World()
        let base = try Schedule().applying(.batch([w.setup] + (1...20).map { .scheduleShift(w.shift($0, w.day, "2026-03-\(10 + $0)", w.bob)) })).schedule
        let bobsMonth: [Mutation] = (0..<3).map { .scheduleShift(w.shift(40 + $0, w.day, "2026-04-0\($0 + 1)", w.bob)) }
        let carols: [Mutation] = (0..<3).map { .scheduleShift(w.shift(50 + $0, w.day, "2026-04-0\($0 + 1)", w.carol)) }
        // Bob's 3 new shifts are at least an eighth of his 23: cleared by the phase, not checked.
        #expect(try evaluate(bobsMonth, on: base).isEmpty)
        #expect(try evaluate(bobsMonth, on: base, personPhase: false).count == 3)
        // Carol's phase finds something, so her adds are checked one by one, as ever.
        #expect(try evaluate(carols, on: base).map(\.message) == ["no", "no", "no"])
        // Two of Bob's are too few of his shifts: checked, not cleared.
        #expect(try evaluate(Array(bobsMonth.prefix(2)), on: base).count == 2)
        // A single change is always checked.
        #expect(try evaluate([bobsMonth[0]], on: Schedule().applying(w.setup).schedule).count == 1)
        // Removals and updates are always checked.
        let moved = w.shift(1, w.day, "2026-03-30", w.bob)
        #expect(try evaluate([.updateShift(moved), bobsMonth[0], bobsMonth[1], bobsMonth[2]], on: base).map(\.shiftID) == [moved.id])
    }
}

/// The person-phase example of docs/rules.md runs as written.
@Suite struct PersonPhaseDocumentationTests {
    @Test func theExampleInRulesMdWorks() throws {
        let docs = URL(fileURLWithPath: stockRules).deletingLastPathComponent().appendingPathComponent("docs/rules.md").path
        let text = try String(contentsOfFile: docs, encoding: .utf8)
        let section = try #require(text.range(of: "### The person phase: `validate_person`"))
        let rest = text[section.upperBound...]
        let start = try #require(rest.range(of: "```lua\n"))
        let end = try #require(rest[start.upperBound...].range(of: "```"))
        let folder = try RuleFolder(["short_rest.lua": String(rest[start.upperBound..<end.lowerBound])])
        let w = World()
        let schedule = try Schedule().applying(.batch([w.setup, .scheduleShift(w.shift(1, w.late, "2026-03-02", w.bob)),
                                                       .scheduleShift(w.shift(2, w.early, "2026-03-03", w.bob))])).schedule
        let violations = try RuleEngine(RuleEngineConfiguration(directories: [folder.path], now: { fixedNow })).validate(schedule)
        #expect(violations.map(\.message) == ["Bob rests 480 min"])
        #expect(violations.first?.penalty == 120)
    }
}

/// A person or day phase's `cache` (its last argument): the rule's own table, kept from one
/// evaluation to the next while the schedule's catalog and the rule's parameters stay, and a new
/// empty one once either changes.
@Suite struct PhaseCacheTests {
    /// The rule counts its calls in the cache and keeps each person's `level` there.
    static let rule = #"""
        return rule { id = "x", summary = "s", params = { tag = "a" },
          validate_person = function(person, shifts, schedule, report, params, cache)
            cache.calls = (cache.calls or 0) + 1
            local level = cache[person.id]
            if level == nil then
              level = person:attribute("level") or "none"
              cache[person.id] = level
            end
            report{ message = ("%s %s %s %d"):format(person.name, params.tag, level, cache.calls), person = person }
          end,
          validate_day = function(date, schedule, report, params, cache)
            cache.days = (cache.days or 0) + 1
            report(("%s %d"):format(date, cache.days))
          end }
        """#

    @Test func lastsWhileTheCatalogDoesAndStartsAgainAfterItChanges() throws {
        let folder = try RuleFolder(["x.lua": Self.rule])
        let engine = try RuleEngine(RuleEngineConfiguration(directories: [folder.path], now: { fixedNow }))
        let w = World()
        var bob = w.bob
        bob.attributes["level"] = .string("senior")
        let first = try Schedule().applying(.batch([w.setup, .updatePerson(bob), .scheduleShift(w.shift(1, w.late, "2026-03-02", w.bob))])).schedule
        func people(_ schedule: Schedule) throws -> [String] {
            try engine.validate(schedule).map(\.message).filter { $0.hasPrefix("Bob") || $0.hasPrefix("Carol") }.sorted()
        }
        #expect(try people(first) == ["Bob a senior 1", "Carol a none 2"])
        // Other shifts, the same catalog: the same table, so the count goes on, and Bob's level is
        // the one kept.
        let moved = try first.applying(.batch([.reassignShift(ShiftID(uuid(101)), to: w.carol.id),
                                               .scheduleShift(w.shift(2, w.day, "2026-03-03", w.bob))])).schedule
        #expect(moved.catalogVersion == first.catalogVersion)
        #expect(try people(moved) == ["Bob a senior 3", "Carol a none 4"])
        // A person changed: a new table, and the new level is read.
        bob.attributes["level"] = .string("junior")
        let promoted = try moved.applying(.updatePerson(bob)).schedule
        #expect(promoted.catalogVersion != moved.catalogVersion)
        let all = try engine.validate(promoted).map(\.message)
        #expect(all.filter { !$0.hasPrefix("2026") }.sorted() == ["Bob a junior 1", "Carol a none 2"])
        // The day phase gets the same table (one per rule), started again with it.
        #expect(all.filter { $0.hasPrefix("2026") } == ["2026-03-02 1", "2026-03-03 2"])
    }

    /// New parameters (an example's, or a store's configuration) start a new table too.
    @Test func startsAgainForOtherParameters() throws {
        let folder = try RuleFolder(["x.lua": Self.rule])
        let w = World()
        let schedule = try Schedule().applying(.batch([w.setup, .scheduleShift(w.shift(1, w.late, "2026-03-02", w.bob))])).schedule
        let engine = try RuleEngine(RuleEngineConfiguration(directories: [folder.path], now: { fixedNow }))
        #expect(try engine.validate(schedule).map(\.message).contains("Bob a none 1"))
        let tagged = try RuleEngine(RuleEngineConfiguration(
            directories: [folder.path], config: RulesConfig(parameters: ["x": ["tag": .string("b")]]), now: { fixedNow }))
        #expect(try tagged.validate(schedule).map(\.message).contains("Bob b none 1"))
        #expect(try engine.validate(schedule).map(\.message).contains("Bob a none 3"))
    }
}

/// What the catalog version follows: everything but shifts and the change log.
@Suite struct CatalogVersionTests {
    @Test func changesWithTheCatalogOnlyAndCopiesShareIt() throws {
        let w = World()
        let base = try Schedule().applying(w.setup).schedule
        let copy = base
        #expect(copy.catalogVersion == base.catalogVersion)
        let shifts = try base.applying(.batch([.scheduleShift(w.shift(1, w.late, "2026-03-02", w.bob)),
                                               .reassignShift(ShiftID(uuid(101)), to: w.carol.id)])).schedule
        #expect(shifts.catalogVersion == base.catalogVersion)
        var carol = w.carol
        carol.attributes["level"] = .string("x")
        var late = w.late
        late.title = "Late shift"
        var settings = base.settings
        settings.extra["horizon.first"] = .string("2026-03-01")
        let changes: [Mutation] = [.updatePerson(carol), .updateShiftType(late), .updateSettings(settings)]
        var versions: Set<UInt64> = [base.catalogVersion]
        for change in changes {
            versions.insert(try base.applying(change).schedule.catalogVersion)
        }
        // Two different changes of one schedule never share a number.
        #expect(versions.count == changes.count + 1)
    }
}

/// A hostile person phase ends like a hostile check: within its limits, naming the rule's file
/// (and line, where the limit is the instruction budget), and the engine keeps working.
@Suite struct HostilePersonPhaseTests {
    @Test(arguments: [
        ("while true do end", "hostile.lua:3: rule hostile failed: instruction budget exceeded"),
        ("local t = {} while true do t[#t + 1] = shifts.starts end", "hostile.lua"),
        ("local s = 'x' while true do s = s .. s end", "hostile.lua: rule hostile failed: memory limit exceeded"),
        ("local function f() return f() + 1 end f()", "hostile.lua: rule hostile failed: memory limit exceeded"),
        ("pcall(function() while true do end end) report('escaped')", "hostile.lua:3: rule hostile failed: instruction budget exceeded"),
    ])
    func endsNamingTheRule(_ body: String, _ expected: String) throws {
        let folder = try RuleFolder(["hostile.lua": """
            return rule { id = "hostile", summary = "s",
              validate_person = function(person, shifts, schedule, report)
                \(body)
              end }
            """])
        let w = World()
        let schedule = try Schedule().applying(.batch([w.setup, .scheduleShift(w.shift(1, w.late, "2026-03-02", w.bob))])).schedule
        let engine = try RuleEngine(RuleEngineConfiguration(directories: [folder.path], now: { fixedNow }))
        let clock = ContinuousClock()
        let start = clock.now
        #expect { try engine.validate(schedule) } throws: { error in
            let text = "\(error)"
            return text.contains(expected) && !text.contains("\n")
        }
        #expect(clock.now - start < .seconds(10))
        // The state is still usable: the same engine validates again (and fails the same way).
        #expect(throws: RuleError.self) { try engine.validate(schedule) }
    }
}
