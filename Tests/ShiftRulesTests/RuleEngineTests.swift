import Foundation
import TestSupport
import Synchronization
import Testing
import LuaHost
import ShiftCore
@testable import ShiftRules

@Suite struct RuleEngineTests {
    let w = World()

    @Test func aDoubleBookingIsRejectedAndNothingIsWritten() async throws {
        let (store, repository) = try await w.store(try w.engine())
        try await store.apply(.scheduleShift(w.shift(1, w.day, "2026-03-02", w.bob)))
        let before = repository.snapshot
        do {
            try await store.apply(.scheduleShift(w.shift(2, w.late, "2026-03-02", w.bob)))
            Issue.record("the double booking was accepted")
        } catch let ScheduleError.rejected(violations) {
            let errors = violations.filter { $0.severity == .error }
            #expect(errors.map(\.ruleID).contains("no_double_booking"))
            let booking = errors.first { $0.ruleID == "no_double_booking" }!
            #expect(booking.message == "Bob already works D 07:00-19:00 on 2026-03-02")
            #expect(booking.shiftID == ShiftID(uuid(102)) && booking.relatedShiftIDs == [ShiftID(uuid(101))])
            #expect(booking.personID == w.bob.id && booking.date == date("2026-03-02"))
            #expect(booking.source?.hasSuffix("rules/no_double_booking.lua") == true)
        }
        #expect(repository.snapshot == before)
        try await store.apply(.scheduleShift(w.shift(3, w.day, "2026-03-03", w.carol)))
        #expect(await store.schedule.shiftCount == 2, "the next mutation still works")
    }

    @Test func removingALocationInUseIsRejectedWithTheCount() async throws {
        let (store, _) = try await w.store(try w.engine())
        let ward = Location(id: LocationID(uuid(1)), name: "Ward 3")
        var placed = w.day
        placed.locationID = ward.id
        try await store.apply(.batch([.addLocation(ward), .updateShiftType(placed)]))
        await #expect(throws: ScheduleError.self) { try await store.apply(.removeLocation(ward.id)) }
        do { try await store.apply(.removeLocation(ward.id)) } catch let ScheduleError.rejected(violations) {
            #expect(violations.map(\.message) == ["Ward 3 is used by 1 shift type (D); move them to another location or remove them first"])
        }
    }

    @Test func configDisablesRulesOverridesSeverityAndSetsParameters() async throws {
        var config = RulesConfig(disabled: ["one_shift_per_day"], severity: ["min_rest_between_shifts": .warning],
                                 parameters: ["max_consecutive_days": ["days": .number(2)]])
        var settings = StoreSettings(timeZoneIdentifier: "UTC")
        config.store(into: &settings)
        #expect(RulesConfig(settings: settings) == config, "the config survives the store's settings")
        config = RulesConfig(settings: settings)

        let engine = try w.engine(config: config)
        #expect(engine.rules.first { $0.id == "one_shift_per_day" }?.enabled == false)
        #expect(engine.rules.first { $0.id == "max_consecutive_days" }?.parameters["days"] == .number(2))
        let (store, _) = try await w.store(engine)
        // Late then early: 8 h rest is now only a warning.
        try await store.apply(.scheduleShift(w.shift(1, w.late, "2026-03-02", w.bob)))
        let result = try await store.apply(.scheduleShift(w.shift(2, w.early, "2026-03-03", w.bob)))
        #expect(result.violations.map(\.ruleID) == ["min_rest_between_shifts"])
        #expect(result.violations.map(\.severity) == [.warning])
        // A third day in a row breaks the lowered limit.
        await #expect(throws: ScheduleError.self) {
            try await store.apply(.scheduleShift(w.shift(3, w.late, "2026-03-04", w.bob)))
        }
    }

    @Test func validateChecksTheWholeScheduleAndReportsPairsOnce() async throws {
        let engine = try w.engine()
        var schedule = try Schedule(settings: StoreSettings(timeZoneIdentifier: "Europe/Berlin"))
        schedule = try schedule.applying(w.setup).schedule
        schedule = try schedule.applying(.batch([
            .scheduleShift(w.shift(1, w.day, "2026-03-02", w.bob)),
            .scheduleShift(w.shift(2, w.late, "2026-03-02", w.bob)),
            .scheduleShift(w.shift(3, w.late, "2026-03-05", w.carol)),
            .scheduleShift(w.shift(4, w.early, "2026-03-06", w.carol)),
        ])).schedule
        let violations = try engine.validate(schedule)
        let byRule = Dictionary(grouping: violations, by: \.ruleID).mapValues(\.count)
        #expect(byRule["no_double_booking"] == 1)
        #expect(byRule["min_rest_between_shifts"] == 1)
        #expect(byRule["one_shift_per_day"] == 1)
        let score = ScoreSummary(violations)
        #expect(score.hardViolations == violations.filter { $0.severity == .error }.count)
    }

    @Test func aRuleThatFailsRejectsTheMutationNamingFileAndLine() async throws {
        let folder = try RuleFolder(["broken.lua": """
            return rule {
              id = "broken", summary = "Fails.", on = { "shift" },
              check = function(change, schedule, report)
                local s = change.after
                return s.nonexistent_field
              end,
            }
            """])
        let (store, repository) = try await w.store(try w.engine([folder.path]))
        let before = repository.snapshot
        do {
            try await store.apply(.scheduleShift(w.shift(1, w.day, "2026-03-02", w.bob)))
            Issue.record("a failing rule must reject")
        } catch let ScheduleError.validatorFailed(_, message) {
            #expect(message.contains("broken.lua:5: rule broken failed: a shift has no field 'nonexistent_field'"), "\(message)")
        }
        #expect(repository.snapshot == before)
    }

    /// A change that several rules check is checked by all of them in one call into Lua: each
    /// rule still has a budget of its own, its own reports, and an error that names it.
    /// A driver call covers several people (a person phase), days (a day phase) or changes (a
    /// batch), and each gets the whole budget, as if it had been called alone: a group is never
    /// refused for its size, and a trial's time starts again for each (so a long group is not
    /// run twice for taking longer than one check may).
    @Test func eachPersonDayAndChangeOfOneCallHasItsOwnBudget() throws {
        let busy = try RuleFolder(["busy.lua": """
            local function burn() local n = 0; for i = 1, 200000 do n = n + i end end
            return rule {
              id = "busy", summary = "Busy.", on = { "shift" },
              check = function(change, schedule, report) burn(); report{ message = "change", shift = change.after } end,
              validate_person = function(person, shifts, schedule, report) burn(); report{ message = "person", person = person } end,
              validate_day = function(date, schedule, report) burn(); report{ message = "day", date = date } end,
            }
            """])
        let limits = LuaRuntime.Configuration(memoryLimit: 32 << 20, instructionBudget: 1_000_000, timeLimit: .seconds(2))
        let engine = try RuleEngine(RuleEngineConfiguration(directories: [busy.path], now: { fixedNow }, limits: limits))
        let people = (0..<3).map { Person(id: PersonID(uuid(200 + $0)), displayName: "P\($0)") }
        let shifts = (0..<3).map { w.shift(300 + $0, w.day, "2026-03-0\($0 + 2)", people[$0]) }
        let schedule = try Schedule(settings: StoreSettings(timeZoneIdentifier: "Europe/Berlin"), shiftTypes: [w.day], people: people, shifts: shifts)
        // Each loop alone is well within the budget; three in one call are not.
        let found = try engine.validate(schedule)
        #expect(found.filter { $0.message == "person" }.count == 3, "\(found.map(\.message))")
        #expect(found.filter { $0.message == "day" }.count == 3, "\(found.map(\.message))")
        // A batch of three new shifts: one call of the check over the three changes.
        let empty = try Schedule(settings: schedule.settings, shiftTypes: [w.day], people: people)
        let batch = Mutation.batch(shifts.map { .scheduleShift($0) })
        let (after, changes) = try empty.applying(batch)
        let checked = try engine.evaluate(Proposal(
            mutation: batch, changes: changes, before: empty, after: after, user: UserProfile(userId: "t", displayName: "T"), timestamp: fixedNow))
        #expect(checked.filter { $0.message == "change" }.count == 3, "\(checked.map(\.message))")
    }

    @Test func rulesCheckingOneChangeInOneCallKeepTheirOwnBudgetsReportsAndErrors() async throws {
        func burner(_ id: String) -> String {
            """
            return rule {
              id = "\(id)", summary = "Busy.", on = { "shift" },
              check = function(change, schedule, report)
                local n = 0
                for i = 1, 200000 do n = n + i end
                report{ message = "\(id) done", shift = change.after, severity = "warning" }
              end,
            }
            """
        }
        let busy = try RuleFolder(["a.lua": burner("a"), "b.lua": burner("b"), "c.lua": burner("c")])
        let limits = LuaRuntime.Configuration(memoryLimit: 32 << 20, instructionBudget: 1_000_000, timeLimit: .seconds(2))
        let engine = try RuleEngine(RuleEngineConfiguration(directories: [busy.path], now: { fixedNow }, limits: limits))
        let (store, _) = try await w.store(engine)
        let proposal = try await w.proposal(adding: w.shift(1, w.day, "2026-03-02", w.bob), to: store)
        // Each loop alone is well within the budget; the three together are not.
        let violations = try engine.evaluate(proposal)
        #expect(violations.map(\.ruleID) == ["a", "b", "c"])
        #expect(violations.map(\.message) == ["a done", "b done", "c done"])

        // An error, and a runaway, are the rule's that raised them, not the first one's.
        let failing = try RuleFolder(["a.lua": burner("a"), "b.lua": """
            return rule {
              id = "b", summary = "Fails.", on = { "shift" },
              check = function(change) return change.after.nonexistent_field end,
            }
            """, "c.lua": """
            return rule {
              id = "c", summary = "Never ends.", on = { "shift" },
              check = function(change) while true do pcall(function() while true do end end) end end,
            }
            """])
        let broken = try RuleEngine(RuleEngineConfiguration(directories: [failing.path], now: { fixedNow }, limits: limits))
        #expect(throws: RuleError.self) { try broken.evaluate(proposal) }
        do {
            _ = try broken.evaluate(proposal)
        } catch {
            #expect("\(error)".contains("b.lua:3: rule b failed: a shift has no field 'nonexistent_field'"), "\(error)")
        }
        let runaway = try RuleFolder(["a.lua": burner("a"), "c.lua": """
            return rule {
              id = "c", summary = "Never ends.", on = { "shift" },
              check = function(change) while true do pcall(function() while true do end end) end end,
            }
            """])
        let stuck = try RuleEngine(RuleEngineConfiguration(directories: [runaway.path], now: { fixedNow }, limits: limits))
        do {
            _ = try stuck.evaluate(proposal)
            Issue.record("a runaway rule must fail")
        } catch {
            #expect("\(error)".contains("c.lua:3") && "\(error)".contains("rule c"), "\(error)")
            #expect("\(error)".contains("budget"), "\(error)")
        }
    }

    /// A check runs first as a trial (no instruction counting); one that runs past the trial's
    /// time is run again, counted, and what the trial reported is dropped: each finding once.
    @Test func aCheckRunAgainAfterItsTrialReportsEachFindingOnce() async throws {
        let folder = try RuleFolder(["slow.lua": """
            return rule {
              id = "slow", summary = "Reports, then works.", on = { "shift" },
              check = function(change, schedule, report)
                report{ message = "seen", shift = change.after, severity = "warning" }
                local n = 0
                for i = 1, 3000000 do n = n + i end
                report{ message = "done " .. n, shift = change.after, severity = "warning" }
              end,
            }
            """])
        let engine = try w.engine([folder.path])
        let (store, _) = try await w.store(engine)
        let proposal = try await w.proposal(adding: w.shift(1, w.day, "2026-03-02", w.bob), to: store)
        let before = engine.trialCounts
        let violations = try engine.evaluate(proposal)
        #expect(violations.map(\.message) == ["seen", "done 4500001500000"])
        // Six million instructions take longer than a trial's 5 ms on the machines of today (and
        // trials are off under ThreadSanitizer): when the trial was cut short, it was run again.
        let counts = engine.trialCounts
        #expect(counts.reruns - before.reruns <= counts.trials - before.trials)
    }

    @Test func aRunawayRuleIsStoppedAndTheStoreStillWorks() async throws {
        let folder = try RuleFolder(["loop.lua": """
            return rule {
              id = "loop", summary = "Never ends.", on = { "shift" },
              check = function(change)
                if change.after.date == "2026-03-02" then
                  while true do pcall(function() while true do end end) end
                end
              end,
            }
            """])
        let (store, repository) = try await w.store(try w.engine([folder.path]))
        let before = repository.snapshot
        let clock = ContinuousClock()
        let start = clock.now
        do {
            try await store.apply(.scheduleShift(w.shift(1, w.day, "2026-03-02", w.bob)))
            Issue.record("a runaway rule must reject")
        } catch let ScheduleError.validatorFailed(_, message) {
            #expect(message.contains("loop.lua:5"), "\(message)")
            #expect(message.contains("budget") || message.contains("time limit"), "\(message)")
        }
        #expect(clock.now - start < .seconds(10))
        #expect(repository.snapshot == before)
        try await store.apply(.scheduleShift(w.shift(2, w.day, "2026-03-03", w.bob)))
    }

    @Test(arguments: [
        ("syntax.lua", "return rule { id = \"x\",, }", "syntax.lua:1: syntax error"),
        ("nothing.lua", "local x = 1", "nothing.lua: the file must end with `return rule { … }` (it returned nothing)"),
        ("noid.lua", "return rule { summary = \"s\", on = {\"shift\"}, check = function() end }", "noid.lua: a rule needs an id"),
        ("typo.lua", "return rule { id = \"t\", summary = \"s\", on = {\"shift\"}, chek = function() end }", "unknown field 'chek'"),
        ("trigger.lua", "return rule { id = \"t\", summary = \"s\", on = {\"shfit\"}, check = function() end }", "'shfit' is not an entity kind"),
        ("toplevel.lua", "error(\"boom\")", "toplevel.lua:1: boom"),
        ("escape.lua", "local f = io.open('/etc/passwd')", "escape.lua:1: attempt to index a nil value"),
    ])
    func brokenRuleFilesFailToLoadWithFileAndLine(_ file: String, _ source: String, _ expected: String) throws {
        let folder = try RuleFolder([file: source])
        do {
            _ = try w.engine([folder.path])
            Issue.record("\(file) loaded")
        } catch let error as RuleError {
            #expect(error.description.contains(expected), "\(error)")
        }
    }

    @Test func duplicateIdsAndMissingFoldersAreReported() throws {
        let rule = "return rule { id = \"same\", summary = \"s\", on = {\"shift\"}, check = function() end }"
        let folder = try RuleFolder(["a.lua": rule, "b.lua": rule])
        #expect(throws: RuleError.duplicateID(id: "same", files: [folder.path + "/a.lua", folder.path + "/b.lua"])) {
            try w.engine([folder.path])
        }
        #expect(throws: RuleError.directoryNotFound(path: "/nonexistent/rules")) { try w.engine(["/nonexistent/rules"]) }
    }

    @Test func rulesCannotChangeWhatOtherRulesSee() async throws {
        let folder = try RuleFolder([
            "a_tamper.lua": """
            return rule { id = "a_tamper", summary = "Tampers.", on = { "shift" },
              check = function(change, schedule, report)
                pcall(function() string.format = nil end)
                pcall(function() cal.add_days = nil end)
                pcall(function() getmetatable("").__index = {} end)
                rawset(_ENV, "ipairs", nil)
              end }
            """,
            "b_victim.lua": """
            return rule { id = "b_victim", summary = "Relies on the library.", on = { "shift" },
              check = function(change, schedule, report)
                report{ message = ("%s %s %d"):format(cal.add_days(change.after.date, 1), ("x"):upper(), select("#", ipairs({}))),
                        severity = "warning" }
              end }
            """,
        ])
        let (store, _) = try await w.store(try w.engine([folder.path]))
        let result = try await store.apply(.scheduleShift(w.shift(1, w.day, "2026-03-02", w.bob)))
        #expect(result.violations.map(\.message) == ["2026-03-03 X 3"])
    }

    @Test func printGoesToTheLogWithTheFileAndRuleID() throws {
        let folder = try RuleFolder(["talker.lua": """
            return rule { id = "talker", summary = "Talks.", on = { "shift" },
              check = function(change) print("checking", change.after.date) end }
            """])
        let lines = Mutex<[String]>([])
        let engine = try RuleEngine(RuleEngineConfiguration(
            directories: [folder.path], log: { source, message in lines.withLock { $0.append("\(source): \(message)") } }))
        var schedule = try Schedule(settings: StoreSettings(timeZoneIdentifier: "UTC")).applying(w.setup).schedule
        schedule = try schedule.applying(.scheduleShift(w.shift(1, w.day, "2026-03-02", w.bob))).schedule
        _ = try engine.validate(schedule)
        #expect(lines.withLock { $0 } == ["\(folder.path)/talker.lua (talker): checking\t2026-03-02"])
    }

    @Test func theLuaAPIAnswersQueries() async throws {
        let folder = try RuleFolder(["probe.lua": """
            return rule { id = "probe", summary = "Reports what it sees.", on = { "shift" },
              check = function(change, schedule, report)
                local s = change.after
                local bob = schedule:person(s.person_id)
                local lines = {
                  s.date, s.type.symbol, s.type.duration, tostring(s.type.all_day), s.person.name, tostring(s.minutes),
                  tostring(#schedule:shifts{ person = bob }), tostring(schedule:count{ date = s.date }),
                  tostring(schedule:minutes{ person = bob }), tostring(#schedule:shifts{ type = "N" }),
                  tostring(#schedule:people()), schedule.time_zone, tostring(bob == s.person),
                  cal.weekday_name(s.date), tostring(cal.days_between("2026-03-01", s.date)), cal.week_start(s.date),
                  cal.time_of(s.starts_at), cal.date_of(s.ends_at), tostring(cal.is_weekend("2026-03-07")), cal.today(),
                  tostring(#bob.attributes.skills), change.action, change.entity,
                }
                report{ message = table.concat(lines, " "), severity = "warning" }
              end }
            """])
        let (store, _) = try await w.store(try w.engine([folder.path]))
        try await store.apply(.scheduleShift(w.shift(1, w.night, "2026-03-01", w.bob)))
        let result = try await store.apply(.scheduleShift(w.shift(2, w.day, "2026-03-03", w.bob)))
        #expect(result.violations.map(\.message) == [
            "2026-03-03 D 07:00-19:00 false Bob 720 2 1 1440 1 2 Europe/Berlin true tuesday 2 2026-03-02 07:00 2026-03-03 true 2026-03-01 1 added shift",
        ])
    }
    /// A shift view's date, times, type and person are served from the words its view was given
    /// (no call into Swift): they must be what the schedule says, for a change's before and
    /// after, a query's results and a timeline's shifts, across a change of clocks, for an open
    /// shift, and the type and person must be the very views reached any other way.
    @Test func aShiftViewsCommonFieldsAreTheSchedulesWhicheverWayItWasMade() async throws {
        let fields = """
            local function describe(s, schedule)
              return table.concat({ s.date, tostring(s.starts_at), tostring(s.ends_at), s.type.symbol,
                s.person and s.person.name or "open", tostring(s.type == schedule:shift_type(s.type.symbol)),
                tostring(s.person == nil or s.person == schedule:person(s.person.name)), tostring(s.minutes) }, " ")
            end

            """
        let folder = try RuleFolder(["probe.lua": fields + """
            return rule { id = "probe", summary = "Reports what it sees.", on = { "shift" },
              check = function(change, schedule, report)
                local lines = { "after " .. describe(change.after, schedule) }
                if change.before then lines[#lines + 1] = "before " .. describe(change.before, change.schedule_before) end
                for _, s in ipairs(schedule:shifts{ from = "2026-03-28", to = "2026-03-30" }) do
                  lines[#lines + 1] = "query " .. describe(s, schedule)
                end
                report{ message = table.concat(lines, " | "), severity = "warning" }
              end,
              validate_person = function(person, shifts, schedule, report)
                for i = 1, shifts.n do
                  report{ message = "timeline " .. describe(shifts[i], schedule), severity = "warning", shift = shifts[i] }
                end
              end }
            """])
        let engine = try w.engine([folder.path])
        let (store, _) = try await w.store(engine)
        // Berlin's clocks go forward in the night of 2026-03-28 to 29: that night shift is 11 h.
        let night = w.shift(1, w.night, "2026-03-28", w.bob)
        let open = w.shift(2, w.day, "2026-03-29", nil)
        try await store.apply(.scheduleShift(night))
        try await store.apply(.scheduleShift(open))
        let moved = ScheduledShift(id: night.id, shiftTypeID: w.day.id, date: date("2026-03-30"), personID: w.carol.id)
        let old = await store.schedule
        let result = try await store.apply(.updateShift(moved))
        let schedule = await store.schedule
        let before = try #require(result.violations.first).message

        func expected(_ shift: ScheduledShift, in schedule: Schedule, _ type: ShiftType, _ who: String) throws -> String {
            let span = try #require(schedule.interval(of: shift))
            return "\(shift.date) \(span.start) \(span.end) \(type.symbol) \(who) true true \((span.end - span.start) / 60)"
        }
        #expect(before == [
            "after " + (try expected(moved, in: schedule, w.day, "Carol")),
            "before " + (try expected(night, in: old, w.night, "Bob")),
            "query " + (try expected(open, in: schedule, w.day, "open")),
            "query " + (try expected(moved, in: schedule, w.day, "Carol")),
        ].joined(separator: " | "))
        #expect(try expected(night, in: old, w.night, "Bob").contains(" 660"), "the night of the change of clocks is 11 h")

        let found = try engine.validate(schedule).map(\.message).filter { $0.hasPrefix("timeline") }
        #expect(found == ["timeline " + (try expected(moved, in: schedule, w.day, "Carol"))])
    }

    /// Dates given to the calendar helpers and as query filters are read from the Lua string's
    /// bytes; what is not a date gets the same error as before, naming the helper or filter.
    @Test func datesAreReadFromTheLuaStringAndBadOnesNamed() async throws {
        let folder = try RuleFolder(["probe.lua": """
            local function try(f, ...) local ok, e = pcall(f, ...); return ok and tostring(e) or e:gsub("^.-:%d+: ", "") end
            return rule { id = "probe", summary = "Reports what it sees.", on = { "shift" },
              check = function(change, schedule, report)
                local s = change.after
                if s.date ~= "2026-03-03" then return end
                local p = s.person
                local run = schedule:work_run{ person = p, date = "2026-03-01" }
                local lines = {
                  cal.add_days("2026-02-28", 1), tostring(cal.days_between("2026-03-01", s.date)), cal.week_start("2026-03-08"),
                  tostring(#schedule:shifts{ person = p, from = "2026-03-01", to = "2026-03-02" }),
                  tostring(#schedule:shifts{ person = p, from = "2026-03-05", to = "2026-03-06", date = "2026-03-03" }),
                  tostring(#schedule:shifts{ person = p, from = "2026-03-02" }), tostring(#schedule:shifts{ person = p, to = "2026-03-02" }),
                  run.first .. ".." .. run.last, tostring(schedule:work_run{ person = p, date = "2026-03-02" }),
                  tostring(#schedule:availability{ person = p, date = "2026-03-03" }), tostring(#schedule:availability{ date = "2026-03-03" }),
                  try(cal.add_days, "2026-02-30", 1), try(cal.days_between, "2026-03-01", 20260301), try(cal.week_start, "2026-3-1"),
                  try(schedule.shifts, schedule, { from = "2026-13-01" }), try(schedule.shifts, schedule, { date = 5 }),
                  try(schedule.work_run, schedule, { person = p, date = "soon" }), try(schedule.availability, schedule, { date = "\\255\\255" }),
                }
                report{ message = table.concat(lines, " | "), severity = "warning" }
              end }
            """])
        let (store, _) = try await w.store(try w.engine([folder.path]))
        try await store.apply(.scheduleShift(w.shift(1, w.night, "2026-03-01", w.bob)))
        try await store.apply(.addAvailability(Availability(
            id: AvailabilityID(uuid(60)), personID: w.bob.id, from: LocalDate("2026-03-03")!, to: LocalDate("2026-03-03")!, kind: .unavailable)))
        let result = try await store.apply(.scheduleShift(w.shift(2, w.day, "2026-03-03", w.bob)))
        #expect(result.violations.map(\.message) == [[
            "2026-03-01", "2", "2026-03-02", "1", "1", "1", "1", "2026-03-01..2026-03-01", "nil", "1", "1",
            "cal.add_days: '2026-02-30' is not a date (YYYY-MM-DD)", "cal.days_between: expected a date string (YYYY-MM-DD)",
            "cal.week_start: '2026-3-1' is not a date (YYYY-MM-DD)", "shifts: from: '2026-13-01' is not a date (YYYY-MM-DD)",
            "shifts: date: expected a date string (YYYY-MM-DD)", "work_run: date: 'soon' is not a date (YYYY-MM-DD)",
            "availability: date: expected a date string (YYYY-MM-DD)",
        ].joined(separator: " | ")])
    }

    /// `x:attribute(name)` gives what `x.attributes[name]` gives, on each kind of view, and on a
    /// timeline's shifts; a list comes as a fresh table; a bad call is an error naming the rule.
    @Test func oneAttributeIsReadWithoutItsTable() async throws {
        let folder = try RuleFolder(["probe.lua": """
            local function show(v)
              if type(v) == "table" then return "{" .. table.concat(v, ",") .. "}" end
              return tostring(v) .. (math.type(v) and (":" .. math.type(v)) or "")
            end
            return rule { id = "probe", summary = "Reports what it sees.", on = { "shift" },
              check = function(change, schedule, report)
                local s = change.after
                local p, t = s.person, s.type
                local lines = {
                  show(s:attribute("skill")), show(s:attribute("level")), show(s:attribute("ratio")), show(s:attribute("missing")),
                  show(p:attribute("skills")), tostring(p:attribute("skills") ~= p:attribute("skills")),
                  show(t:attribute("paid")), show(t.location:attribute("beds")), show(t.location:attribute("name")),
                  tostring(s:attribute("level") == s.attributes.level and p:attribute("skills")[1] == p.attributes.skills[1]),
                }
                report{ message = table.concat(lines, " "), severity = "warning" }
              end,
              validate_person = function(person, shifts, schedule, report)
                if shifts.n == 0 then return end
                report{ message = person.name .. " " .. show(shifts[1]:attribute("skill")) .. " " .. show(person:attribute("skills")),
                        severity = "warning" }
              end }
            """, "bad.lua": """
            return rule { id = "bad", summary = "Calls it wrong.", on = { "shift" },
              check = function(change, schedule, report)
                local p = change.after.person
                if change.after.date == "2026-03-05" then return p.attribute("skills") end
                if change.after.date == "2026-03-06" then return p:attribute(7) end
              end }
            """])
        let (store, _) = try await w.store(try w.engine([folder.path]))
        let ward = Location(id: LocationID(uuid(40)), name: "Ward 9", attributes: ["beds": .number(12)])
        var paid = ShiftType(id: ShiftTypeID(uuid(41)), symbol: "P", title: "Paid", duration: ShiftDuration("08:00-16:00")!)
        paid.locationID = ward.id
        paid.attributes = ["paid": .bool(true)]
        try await store.apply(.batch([.addLocation(ward), .addShiftType(paid)]))
        var shift = w.shift(1, paid, "2026-03-03", w.bob)
        shift.attributes = ["skill": .string("head"), "level": .number(2), "ratio": .number(0.5)]
        let result = try await store.apply(.scheduleShift(shift))
        #expect(result.violations.map(\.message) == [
            "head 2:integer 0.5:float nil {nurse} true true 12:integer nil true",
        ])
        let whole = try w.engine([folder.path]).validate(await store.schedule)
        #expect(whole.map(\.message) == ["Bob head {nurse}"])
        for (day, expected) in [("2026-03-05", "call it as entity:attribute(name) (with a colon)"), ("2026-03-06", "attribute: the name must be a string")] {
            await #expect {
                try await store.apply(.scheduleShift(w.shift(2, w.day, day, w.bob)))
            } throws: { error in
                "\(error)".contains("bad.lua:") && "\(error)".contains(expected)
            }
        }
    }

    /// The queries the INRC-II rules needed, available to every rule: runs of days, attribute
    /// filters, store settings, the horizon and weekends.
    @Test func runsAttributesSettingsHorizonAndWeekends() async throws {
        let folder = try RuleFolder(["probe.lua": """
            return rule { id = "probe", summary = "Reports what it sees.", on = { "shift" },
              check = function(change, schedule, report)
                local s = change.after
                local function runs(by)
                  local out = {}
                  for _, r in ipairs(schedule:runs{ person = s.person, from = "2026-03-01", to = "2026-03-08", by = by }) do
                    out[#out + 1] = ("%s+%d%s%s"):format(r.first:sub(9), r.days, r.working and "w" or "o", r.type and r.type.symbol or "")
                  end
                  return table.concat(out, ",")
                end
                local h = schedule:horizon()
                local weekends = cal.weekends("2026-03-01", "2026-03-14")
                local lines = {
                  runs("work"), runs("type"),
                  tostring(schedule:count{ person = s.person, attributes = { skill = "head" } }),
                  tostring(#schedule:shifts{ attributes = { skill = "head", level = 2 } }),
                  tostring(schedule:setting("ward.name")), tostring(schedule:setting("missing")),
                  h.first, h.last, tostring(h.days),
                  tostring(#weekends), weekends[1].saturday, weekends[1].sunday, weekends[3].saturday,
                }
                report{ message = table.concat(lines, " "), severity = "warning" }
              end }
            """])
        let (store, _) = try await w.store(try w.engine([folder.path]))
        var settings = await store.schedule.settings
        settings.extra["ward.name"] = .string("Ward 3")
        try await store.apply(.updateSettings(settings))
        var head = w.shift(1, w.night, "2026-03-02", w.bob)
        head.attributes = ["skill": .string("head"), "level": .number(2)]
        try await store.apply(.batch([.scheduleShift(head), .scheduleShift(w.shift(2, w.night, "2026-03-03", w.bob)),
                                      .scheduleShift(w.shift(3, w.day, "2026-03-04", w.bob))]))
        let result = try await store.apply(.scheduleShift(w.shift(4, w.day, "2026-03-07", w.bob)))
        // Without horizon settings the horizon is the span of the shifts.
        #expect(result.violations.map(\.message) == [
            "01+1o,02+3w,05+2o,07+1w,08+1o 01+1o,02+2wN,04+1wD,05+2o,07+1wD,08+1o 1 1 Ward 3 nil 2026-03-02 2026-03-07 6 "
                + "3 2026-02-28 2026-03-01 2026-03-14",
        ])
        settings.extra["horizon.first"] = .string("2026-03-02")
        settings.extra["horizon.last"] = .string("2026-03-29")
        try await store.apply(.updateSettings(settings))
        let later = try await store.apply(.scheduleShift(w.shift(5, w.day, "2026-03-08", w.bob)))
        #expect(later.violations.first?.message.contains("2026-03-02 2026-03-29 28") == true, "\(later.violations)")
    }
}

/// The schedule API and its Lua runtime hold each other only one way: dropping the API frees the
/// runtime (a helper that held the API strongly from a closure the runtime keeps once leaked a
/// whole runtime per rule engine, which LeakSanitizer found).
@Suite struct RuntimeLifetimeTests {
    @Test func droppingTheScheduleAPIFreesItsRuntime() throws {
        weak var runtime: LuaRuntime?
        weak var api: LuaScheduleAPI?
        do {
            let made = try LuaScheduleAPI(runtime: try LuaRuntime(), now: { fixedNow })
            api = made
            runtime = made.runtime
            // A helper that goes through the shared date reader.
            let result = try made.runtime.loadPlugin(source: "return cal.add_days('2026-03-01', 1)", chunkName: "t.lua")
            #expect(try made.runtime.value(of: result) == .string("2026-03-02"))
        }
        #expect(api == nil)
        #expect(runtime == nil)
    }
}
