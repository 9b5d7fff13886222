import Foundation
import TestSupport
import LuaHost
import Testing
import ShiftCore
@testable import ShiftRules

/// Script plugins: operations through the rules, one batch by default, `ops.commit()` checkpoints.
@Suite struct ScriptTests {
    static let engine = try! World().engine()
    let world = World()

    /// Runs `source` as a script against the world's store (with `shifts` already in it).
    private func run(
        _ source: String, arguments: [String] = [], shifts: [ScheduledShift] = [], engine: RuleEngine = ScriptTests.engine,
        limits: LuaRuntime.Configuration = .script
    ) async throws -> (ScriptOutcome, ScheduleStore, InMemoryRepository, String) {
        let (store, repository) = try await world.store(engine)
        if !shifts.isEmpty { try await store.apply(.batch(shifts.map { .scheduleShift($0) })) }
        let folder = try RuleFolder(["script.lua": source])
        let file = folder.path + "/script.lua"
        let counter = Counter()
        let outcome = try engine.runScript(file: file, arguments: arguments, schedule: await store.schedule,
                                           user: UserProfile(userId: "t", displayName: "T"), now: fixedNow, limits: limits,
                                           makeID: { counter.next() })
        return (outcome, store, repository, file)
    }

    /// Writes an outcome through the store the way `shiftctl run` does; returns the batches written.
    private func write(_ outcome: ScriptOutcome, to store: ScheduleStore) async -> (written: Int, rejected: [Violation]) {
        var written = 0
        for batch in outcome.batches {
            do {
                try await store.apply(batch.mutation)
                written += 1
            } catch let ScheduleError.rejected(violations) {
                return (written, violations)
            } catch {
                Issue.record("unexpected \(error)")
                return (written, [])
            }
        }
        return (written, [])
    }

    private func failure(_ source: String, limits: LuaRuntime.Configuration = .script) async throws -> ScriptError? {
        do {
            _ = try await run(source, limits: limits)
            return nil
        } catch let error as ScriptError {
            return error
        }
    }

    // MARK: One batch by default

    @Test func withoutCommitTheWholeScriptIsOneBatchAndAViolationAnywhereWritesNothing() async throws {
        let (outcome, store, _, _) = try await run("""
            return script { id = "three", run = function(ctx, schedule, ops)
              ops.schedule{ type = "D", date = "2026-03-02", person = "Bob" }
              ops.schedule{ type = "E", date = "2026-03-02", person = "Bob" }   -- overlaps the day shift
              ops.schedule{ type = "D", date = "2026-03-03", person = "Carol" }
            end }
            """)
        #expect(outcome.batches.count == 1)
        #expect(outcome.batches[0].isCheckpoint == false)
        #expect(outcome.batches[0].changes.count == 3)
        let before = await store.schedule
        let (written, rejected) = await write(outcome, to: store)
        #expect(written == 0)
        #expect(rejected.contains { $0.ruleID == "no_double_booking" })
        #expect(await store.schedule == before, "nothing of the batch was written")
    }

    @Test func aCleanScriptIsWrittenAsOneMutation() async throws {
        let (outcome, store, _, _) = try await run("""
            return script { id = "two", run = function(ctx, schedule, ops)
              ops.schedule{ type = "D", date = "2026-03-02", person = "Bob", notes = "first" }
              ops.schedule{ type = "D", date = "2026-03-02", person = "Carol" }
            end }
            """)
        #expect(outcome.batches.count == 1)
        #expect(await write(outcome, to: store).written == 1)
        let schedule = await store.schedule
        #expect(schedule.shifts(ShiftQuery.on(date("2026-03-02"))).count == 2)
        #expect(schedule.changeLog.count == 2)
    }

    @Test func theScheduleShowsTheScriptsOwnPendingChanges() async throws {
        let (outcome, _, _, _) = try await run("""
            return script { id = "views", run = function(ctx, schedule, ops)
              assert(schedule:count{ person = "Bob" } == 0)
              local s = ops.schedule{ type = "D", date = "2026-03-02", person = "Bob" }
              assert(schedule:count{ person = "Bob" } == 1, "the new shift is visible")
              assert(s.person.name == "Bob" and s.type.symbol == "D")
              ops.reassign(s, "Carol", "swap")
              assert(s.person.name == "Carol", "a view shows the shift's new state")
              ops.switch(s, "E", "earlier")
              assert(s.type.symbol == "E")
              assert(schedule:shifts{ person = "Carol" }[1] == s)
              ops.unschedule(s, "not needed")
              assert(schedule:count{} == 0)
              assert(ctx.today == "2026-03-01" and #ctx.args == 2 and ctx.args[2] == "two")
            end }
            """, arguments: ["one", "two"])
        #expect(outcome.batches.count == 1)
        #expect(outcome.batches[0].changes.isEmpty, "added then removed: no net change")
    }

    @Test func entityOperationsAddUpdateAndRemove() async throws {
        let (outcome, store, _, _) = try await run("""
            return script { id = "entities", run = function(ctx, schedule, ops)
              local ward = ops.add_location{ name = "Ward 3", address = "Main St 1", attributes = { beds = 12 } }
              ops.update_location(ward, { address = "Main St 2", attributes = { floor = 2 }, remove_attributes = { "beds" } })
              local t = ops.add_shift_type{ symbol = "X", title = "Extra", time = "08:00-12:00", location = ward }
              ops.update_shift_type("X", { time = "all-day", location = false })
              local ann = ops.add_person{ name = "Ann", attributes = { skills = { "nurse", "lead" }, max_hours_per_week = 38.5 } }
              ops.update_person(ann, { name = "Anna" })
              ops.remove_person("Carol")
              assert(schedule:location("Ward 3").address == "Main St 2")
              assert(t.duration == "all-day" and t.location == nil)
              assert(schedule:person("Anna").attributes.skills[2] == "lead")
            end }
            """)
        #expect(await write(outcome, to: store).written == 1)
        let schedule = await store.schedule
        let ward = try #require(schedule.locations.first { $0.name == "Ward 3" })
        #expect(ward.address == "Main St 2" && ward.attributes == ["floor": .number(2)])
        let extra = try #require(schedule.shiftType(symbol: "X"))
        #expect(extra.duration == .allDay && extra.locationID == nil && extra.title == "Extra")
        let anna = try #require(schedule.people.first { $0.displayName == "Anna" })
        #expect(anna.attributes["max_hours_per_week"] == .number(38.5))
        #expect(schedule.person(world.carol.id) == nil)
    }

    @Test func coreInvariantErrorsAreLuaErrorsAScriptCanCatch() async throws {
        _ = try await run("""
            return script { id = "invariants", run = function(ctx, schedule, ops)
              local ok, message = pcall(ops.add_shift_type, { symbol = "D", time = "07:00-19:00" })
              assert(not ok and message:find("symbol"), message)
              ok, message = pcall(ops.schedule, { type = "nope", date = "2026-03-02" })
              assert(not ok and message:find("no shift type 'nope'"), message)
              ok, message = pcall(ops.add_person, { name = "Ann", nickname = "A" })
              assert(not ok and message:find("unknown field 'nickname'"), message)
              ok, message = pcall(ops.schedule, { type = "D", date = "2026-02-30" })
              assert(not ok and message:find("not a date"), message)
            end }
            """)
    }

    // MARK: Step by step

    @Test func eachAcceptedCommitIsACheckpointWrittenInOrder() async throws {
        let (outcome, store, _, _) = try await run("""
            return script { id = "steps", run = function(ctx, schedule, ops)
              ops.schedule{ type = "D", date = "2026-03-02", person = "Bob" }
              assert(ops.commit())
              ops.schedule{ type = "D", date = "2026-03-03", person = "Bob" }
              ops.schedule{ type = "D", date = "2026-03-03", person = "Carol" }
              assert(ops.commit())
              assert(ops.commit(), "an empty commit is fine")
              ops.schedule{ type = "D", date = "2026-03-04", person = "Bob" }
            end }
            """)
        #expect(outcome.batches.map(\.isCheckpoint) == [true, true, false])
        #expect(outcome.batches.map(\.changes.count) == [1, 2, 1])
        #expect(await write(outcome, to: store).written == 3)
        #expect(await store.schedule.shiftCount == 4)
    }

    @Test func earlierCheckpointsStayWrittenWhenTheTailIsRejected() async throws {
        let (outcome, store, _, _) = try await run("""
            return script { id = "tail", run = function(ctx, schedule, ops)
              ops.schedule{ type = "D", date = "2026-03-02", person = "Bob" }
              assert(ops.commit())
              ops.schedule{ type = "E", date = "2026-03-02", person = "Bob" }   -- never committed: the store checks it
            end }
            """)
        #expect(outcome.batches.map(\.isCheckpoint) == [true, false])
        let (written, rejected) = await write(outcome, to: store)
        #expect(written == 1)
        #expect(rejected.contains { $0.ruleID == "no_double_booking" })
        #expect(await store.schedule.shiftCount == 1)
    }

    @Test func aRefusedCommitReturnsTheViolationsAndRollsBack() async throws {
        let (outcome, _, _, _) = try await run("""
            return script { id = "refused", run = function(ctx, schedule, ops)
              ops.schedule{ type = "D", date = "2026-03-02", person = "Bob" }
              assert(ops.commit())
              local s = ops.schedule{ type = "E", date = "2026-03-02", person = "Bob" }
              ops.add_person{ name = "Dan" }
              local ok, violations = ops.commit()
              assert(ok == false, "the double booking is refused")
              local found = false
              for _, v in ipairs(violations) do
                if v.rule == "no_double_booking" then
                  found = true
                  assert(v.severity == "error" and v.date == "2026-03-02" and v.person.name == "Bob" and v.message:find("already works"))
                end
              end
              assert(found)
              assert(schedule:count{ person = "Bob" } == 1, "rolled back to the checkpoint")
              assert(schedule:person("Dan") == nil, "everything since the checkpoint is rolled back")
              ops.schedule{ type = "E", date = "2026-03-02", person = "Carol" }
              assert(ops.commit(), "an alternative is accepted")
            end }
            """)
        #expect(outcome.refusedCommits == 1)
        #expect(outcome.batches.map(\.isCheckpoint) == [true, true])
        #expect(outcome.schedule.shiftCount == 2)
        #expect(outcome.schedule.people.map(\.displayName) == ["Bob", "Carol"])
    }

    @Test func rotateGeneratesARotationIntoTheBatch() async throws {
        let (outcome, store, _, _) = try await run("""
            return script { id = "rotate", run = function(ctx, schedule, ops)
              local n = ops.rotate{ rotation = "panama", teams = { A = { "Bob" }, B = { "Carol" } },
                                    from = "2026-03-02", to = "2026-03-15", shifts = { D = "D", N = "N" } }
              assert(n == 14, n)
              assert(schedule:count{} == 14)
              local ok, violations = ops.commit()
              assert(ok, violations[1] and violations[1].message)
            end }
            """)
        #expect(outcome.batches.count == 1 && outcome.batches[0].isCheckpoint)
        #expect(await write(outcome, to: store).written == 1)
        #expect(await store.schedule.shiftCount == 14)
    }

    // MARK: Errors

    @Test func aScriptErrorNamesTheFileAndLine() async throws {
        let error = try #require(try await failure("""
            return script { id = "boom", run = function(ctx, schedule, ops)
              ops.schedule{ type = "D", date = "2026-03-02", person = "Bob" }
              error("something is wrong")
            end }
            """))
        guard case let .failed(id, file, line, message) = error else { Issue.record("\(error)"); return }
        #expect(id == "boom" && file.hasSuffix("script.lua") && line == 3 && message == "something is wrong")
        #expect(error.description.hasSuffix("script.lua:3: script boom failed: something is wrong"))
    }

    @Test func anUncaughtOperationErrorNamesTheLineOfTheCall() async throws {
        let error = try #require(try await failure("""
            return script { id = "op", run = function(ctx, schedule, ops)

              ops.schedule{ type = "Z", date = "2026-03-02" }
            end }
            """))
        #expect(error.description.contains("script.lua:3: script op failed: ops.schedule: type: no shift type 'Z'"), "\(error)")
    }

    @Test func aFileThatIsNotAScriptIsRefused() async throws {
        let notScript = try #require(try await failure("return rule { id = \"x\", summary = \"x\", validate = function() end }"))
        #expect(notScript.description.contains("must end with `return script"))
        let syntax = try #require(try await failure("return script {\n  id = \"x\",\n  run = function( end }"))
        guard case let .invalidScript(_, line, message) = syntax else { Issue.record("\(syntax)"); return }
        #expect(line == 3 && message.contains("syntax error"))
        let noRun = try #require(try await failure("return script { id = \"x\" }"))
        #expect(noRun.description.contains("needs run = function"))
    }

    @Test func aRunawayScriptEndsWithTheBudgetError() async throws {
        var limits = LuaRuntime.Configuration.script
        limits.instructionBudget = 1_000_000
        let error = try #require(try await failure("""
            return script { id = "loop", run = function(ctx, schedule, ops)
              while true do pcall(function() end) end
            end }
            """, limits: limits))
        #expect(error.description.contains("instruction budget exceeded"), "\(error)")
    }

    @Test func scriptLimitsAreLargerThanARulesLimits() {
        #expect(LuaRuntime.Configuration.script.instructionBudget == 200_000_000)
        #expect(LuaRuntime.Configuration.script.timeLimit == .seconds(30))
    }

    @Test func aRuleFailingDuringCommitFailsTheScriptEvenInsidePcall() async throws {
        let rules = try RuleFolder(["broken.lua": """
            return rule { id = "broken", summary = "fails", on = { "shift" },
              check = function(change, schedule, report) error("rule bug") end }
            """])
        let engine = try world.engine([rules.path])
        do {
            _ = try await run("""
                return script { id = "swallow", run = function(ctx, schedule, ops)
                  ops.schedule{ type = "D", date = "2026-03-02", person = "Bob" }
                  pcall(ops.commit)
                  ops.schedule{ type = "D", date = "2026-03-03", person = "Bob" }
                end }
                """, engine: engine)
            Issue.record("the script should fail")
        } catch let error as ScriptError {
            #expect(error.description.contains("rule bug"), "\(error)")
        }
    }

    // MARK: Rules stay read-only

    @Test func rulesCannotReachTheOperationsEvenWhileAScriptCommits() async throws {
        let rules = try RuleFolder(["peek.lua": """
            return rule { id = "peek", summary = "ops must be out of reach", on = { "shift" },
              check = function(change, schedule, report)
                if ops ~= nil or rawget(_ENV, "ops") ~= nil then report("ops is reachable from a rule") end
              end }
            """])
        let grabbing = try RuleFolder(["grab.lua": """
            return rule { id = "grab", summary = "calls an operation", on = { "person" },
              check = function(change, schedule, report) ops.add_person{ name = "Mallory" } end }
            """])
        // The rules run (in their own Lua state) during ops.commit(): `ops` is not there.
        let (outcome, _, _, _) = try await run("""
            return script { id = "commit", run = function(ctx, schedule, ops)
              ops.schedule{ type = "D", date = "2026-03-02", person = "Bob" }
              local ok, violations = ops.commit()
              assert(ok, violations[1] and violations[1].message)
            end }
            """, engine: try world.engine([stockRules, rules.path]))
        #expect(outcome.batches.count == 1)

        // A rule that calls an operation fails, and the change is rejected (fail closed).
        let (store, _) = try await world.store(try world.engine([stockRules]))
        await store.setValidators([try world.engine([grabbing.path])])
        await #expect {
            try await store.apply(.addPerson(Person(id: PersonID(uuid(900)), displayName: "Eve")))
        } throws: { error in
            guard case let ScheduleError.validatorFailed(_, message) = error else { return false }
            return message.contains("grab.lua:2") && message.contains("ops")
        }
        #expect(await store.schedule.person(PersonID(uuid(900))) == nil)
        #expect(await store.schedule.people.count == 2)
    }

    @Test func operationsAreRefusedOutsideAScriptsRun() throws {
        let runner = try ScriptRunner(engine: Self.engine, file: "x.lua", path: "/tmp/x.lua", limits: .script, clock: { fixedNow })
        runner.api.begin(after: try Schedule(), before: nil)
        defer { runner.api.end() }
        let ops = try runner.makeOperations()
        guard case let .reference(table) = ops, case let .function(addPerson) = try runner.runtime.field(table, "add_person") else {
            Issue.record("ops.add_person is a function")
            return
        }
        #expect(runner.operationsEnabled == false)
        #expect {
            _ = try runner.runtime.call(addPerson, [.table(LuaTable(hash: [.string("name"): .string("Mallory")]))])
        } throws: { error in
            "\(error)".contains("operations are only available to scripts run with shiftctl run")
        }
        #expect(runner.pending.isEmpty)
    }

    // MARK: The example scripts

    @Test func handOverMovesOnePersonsShiftsInTheRangeWithAReason() async throws {
        let shifts = [world.shift(1, world.day, "2026-03-02", world.bob), world.shift(2, world.day, "2026-03-04", world.bob),
                      world.shift(3, world.day, "2026-03-09", world.bob), world.shift(4, world.day, "2026-03-03", world.carol)]
        let (store, _) = try await world.store(Self.engine)
        try await store.apply(.batch(shifts.map { .scheduleShift($0) }))
        let outcome = try Self.engine.runScript(
            file: stockRules + "/scripts/hand_over.lua", arguments: ["Bob", "Carol", "2026-03-01", "2026-03-07", "Bob", "is", "ill"],
            schedule: await store.schedule, user: UserProfile(userId: "t", displayName: "T"), now: fixedNow)
        #expect(outcome.batches.count == 1)
        #expect(await write(outcome, to: store).written == 1)
        let schedule = await store.schedule
        #expect(schedule.shift(shifts[0].id)?.personID == world.carol.id)
        #expect(schedule.shift(shifts[1].id)?.personID == world.carol.id)
        #expect(schedule.shift(shifts[2].id)?.personID == world.bob.id, "outside the range")
        let reasons = schedule.changeLog.filter { $0.changeType == .reassigned }.map(\.reason)
        #expect(reasons == ["Bob is ill", "Bob is ill"])
    }

    @Test func fillOpenDemandStaffsOpenSlotsAndTriesTheNextVolunteer() async throws {
        let (store, _) = try await world.store(Self.engine)
        // Bob works a night before the Tuesday day shift (no 11 h rest), an open D shift waits on Wednesday.
        try await store.apply(.batch([
            .scheduleShift(world.shift(1, world.night, "2026-03-02", world.bob)),
            .scheduleShift(world.shift(2, world.day, "2026-03-04", nil)),
            .addDemand(Demand(id: DemandID(uuid(50)), day: .date(date("2026-03-03")), shiftTypeID: world.day.id, minimum: 1, optimal: 1)),
            .addDemand(Demand(id: DemandID(uuid(51)), day: .date(date("2026-03-04")), shiftTypeID: world.day.id, minimum: 1, optimal: 1)),
        ]))
        let outcome = try Self.engine.runScript(
            file: stockRules + "/scripts/fill_open_demand.lua", arguments: ["2026-03-03", "2026-03-04", "Bob", "Carol"],
            schedule: await store.schedule, user: UserProfile(userId: "t", displayName: "T"), now: fixedNow)
        #expect(outcome.refusedCommits == 1, "Bob is refused for Tuesday (rest after his night)")
        #expect(outcome.batches.map(\.isCheckpoint) == [true, true])
        #expect(await write(outcome, to: store).written == 2)
        let schedule = await store.schedule
        #expect(schedule.shifts(ShiftQuery(from: date("2026-03-03"), to: date("2026-03-03"), shiftTypeIDs: [world.day.id])).map(\.personID) == [world.carol.id])
        #expect(schedule.shift(world.shift(2, world.day, "2026-03-04", nil).id)?.personID == world.bob.id, "the open shift was given to a volunteer")
    }
}
