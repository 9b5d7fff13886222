import Foundation
import ShiftCore
import ShiftStorage
import TestSupport
import Testing

/// `shiftctl run`: script plugins through the built CLI.
@Suite struct ScriptEndToEndTests {
    /// Alice on D 2026-03-02, then a double booking of her: the rules refuse the second shift.
    static let doubleBooking = """
        return script { id = "double", run = function(ctx, schedule, ops)
          ops.schedule{ type = "D", date = "2026-03-02", person = "Alice" }
          ops.schedule{ type = "D", date = "2026-03-03", person = "Bob" }
          ops.schedule{ type = "D", date = "2026-03-02", person = "Alice" }
        end }
        """

    @Test func byDefaultTheWholeScriptIsOneBatchAndARejectionWritesNothing() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        try sandbox.write(Self.doubleBooking, to: "double.lua")
        let before = sandbox.bytes()
        let result = try sandbox.run("run", "double.lua")
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdout.contains("no_double_booking"), "\(result.stdout)")
        #expect(result.stderr.hasPrefix("shiftctl: rejected by the rules ("), "\(result.stderr)")
        #expect(result.stderr.hasSuffix("); nothing was written\n"), "\(result.stderr)")
        #expect(sandbox.bytes() == before, "the store file is byte for byte unchanged")
    }

    @Test func aCleanScriptIsWrittenAndReported() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        try sandbox.write("""
            return script { id = "two", run = function(ctx, schedule, ops)
              print("hello from " .. ctx.args[1])
              ops.schedule{ type = "D", date = "2026-03-02", person = "Alice" }
              ops.schedule{ type = "N", date = "2026-03-02", person = "Bob" }
              ops.add_person{ name = "Carol" }
            end }
            """, to: "two.lua")
        let result = try sandbox.run("run", "two.lua", "tests")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "script two: 1 person added, 2 shifts added\n")
        #expect(result.stderr == "two.lua: hello from tests\n", "print goes to stderr, tagged with the file")
        let schedule = try sandbox.schedule()
        #expect(schedule.shiftCount == 2)
        #expect(schedule.people.map(\.displayName).contains("Carol"))
        #expect(schedule.changeLog.map(\.userId) == ["tester", "tester"])
    }

    @Test func checkpointsAreWrittenInOrderEvenWhenTheRestIsRejected() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        try sandbox.write("""
            return script { id = "steps", run = function(ctx, schedule, ops)
              ops.schedule{ type = "D", date = "2026-03-02", person = "Alice" }
              assert(ops.commit())
              ops.schedule{ type = "D", date = "2026-03-02", person = "Alice" }
            end }
            """, to: "steps.lua")
        let result = try sandbox.run("run", "steps.lua", "--format", "json")
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("the first 1 batch was written, the rest was not"), "\(result.stderr)")
        let output = try json(result.stdout)
        #expect(output["written"] as? Int == 1)
        #expect(output["ok"] as? Bool == false)
        let batches = try #require(output["batches"] as? [[String: Any]])
        #expect(batches.map { $0["kind"] as? String } == ["checkpoint", "tail"])
        #expect(batches.map { $0["status"] as? String } == ["written", "rejected"])
        #expect(try sandbox.schedule().shiftCount == 1)
    }

    @Test func aRefusedCommitIsRolledBackAndTheScriptCarriesOn() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        try sandbox.write("""
            return script { id = "retry", run = function(ctx, schedule, ops)
              ops.schedule{ type = "D", date = "2026-03-02", person = "Alice" }
              assert(ops.commit())
              ops.schedule{ type = "D", date = "2026-03-02", person = "Alice" }
              local ok, violations = ops.commit()
              print(tostring(ok) .. " " .. violations[1].rule)
              ops.schedule{ type = "D", date = "2026-03-02", person = "Bob" }
            end }
            """, to: "retry.lua")
        let result = try sandbox.run("run", "retry.lua")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("retry.lua: false "), "\(result.stderr)")
        #expect(result.stdout.contains("1 commit refused and rolled back"), "\(result.stdout)")
        let schedule = try sandbox.schedule()
        #expect(schedule.shifts(ShiftQuery()).compactMap { $0.personID.flatMap { schedule.person($0)?.displayName } }.sorted() == ["Alice", "Bob"])
    }

    @Test func dryRunReportsAndWritesNothing() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        try sandbox.write(Self.doubleBooking, to: "double.lua")
        let before = sandbox.bytes()
        let rejected = try sandbox.run("run", "double.lua", "--dry-run")
        #expect(rejected.status == 1)
        #expect(rejected.stdout.hasPrefix("dry run (nothing written): "), "\(rejected.stdout)")
        #expect(rejected.stderr.contains("the rules would reject"), "\(rejected.stderr)")

        try sandbox.write("""
            return script { id = "fine", run = function(ctx, schedule, ops)
              ops.schedule{ type = "D", date = "2026-03-02", person = "Alice" }
            end }
            """, to: "fine.lua")
        let fine = try sandbox.run("run", "fine.lua", "--dry-run", "--format", "json")
        #expect(fine.status == 0, "\(fine.stderr)")
        let output = try json(fine.stdout)
        #expect(output["dryRun"] as? Bool == true)
        #expect(output["written"] as? Int == 0)
        #expect((output["changes"] as? [String: [String: Int]])?["shifts"]?["added"] == 1)
        #expect(sandbox.bytes() == before)
    }

    @Test func aScriptErrorIsOneLineWithFileAndLineAndExitTwo() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        try sandbox.write("""
            return script { id = "broken", run = function(ctx, schedule, ops)
              ops.schedule{ type = "D", date = "2026-03-02", person = "Alice" }
              ops.schedule{ type = "D", date = "2026-03-02", person = "Nobody" }
            end }
            """, to: "broken.lua")
        let before = sandbox.bytes()
        let result = try sandbox.run("run", "broken.lua")
        #expect(result.status == 2)
        #expect(result.stderr == "shiftctl: broken.lua:3: script broken failed: ops.schedule: person: no person 'Nobody'\n")
        #expect(sandbox.bytes() == before)

        let missing = try sandbox.run("run", "nope.lua")
        #expect(missing.status == 2)
        #expect(missing.stderr == "shiftctl: nope.lua: no such script\n")
    }

    @Test func scriptFilesInTheRulesFolderAreNotRules() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        #expect(FileManager.default.fileExists(atPath: sandbox.path + "/rules/scripts/hand_over.lua"), "init copies the example scripts")
        let result = try sandbox.run("rules", "list", "--format", "json")
        #expect(result.status == 0, "\(result.stderr)")
        let ids = try #require((try json(result.stdout)["rules"] as? [[String: Any]])?.compactMap { $0["id"] as? String })
        #expect(ids.count == 13 && !ids.contains("hand_over") && !ids.contains("fill_open_demand"), "\(ids)")
    }

    @Test func handOverMovesShiftsInTheRangeWithTheReason() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        for day in ["2026-03-02", "2026-03-04", "2026-03-10"] {
            #expect(try sandbox.run("schedule", "add", "--type", "D", "--date", day, "--person", "Alice").status == 0)
        }
        let result = try sandbox.run("run", "rules/scripts/hand_over.lua", "Alice", "Bob", "2026-03-01", "2026-03-08", "Alice", "on", "leave")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "script hand_over: 2 shifts updated\n")
        let schedule = try sandbox.schedule()
        let names = schedule.shifts(ShiftQuery()).map { schedule.person($0.personID!)!.displayName }
        #expect(names == ["Bob", "Bob", "Alice"])
        #expect(schedule.changeLog.filter { $0.changeType == .reassigned }.map(\.reason) == ["Alice on leave", "Alice on leave"])

        let clash = try sandbox.run("run", "rules/scripts/hand_over.lua", "Alice", "Bob", "2026-03-01", "2026-03-31")
        #expect(clash.status == 0, "Bob can take 03-10 as well: \(clash.stderr)")
    }

    @Test func handOverIsAllOrNothing() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        #expect(try sandbox.run("schedule", "add", "--type", "D", "--date", "2026-03-02", "--person", "Alice").status == 0)
        #expect(try sandbox.run("schedule", "add", "--type", "D", "--date", "2026-03-03", "--person", "Alice").status == 0)
        #expect(try sandbox.run("schedule", "add", "--type", "D", "--date", "2026-03-03", "--person", "Bob").status == 0)
        let before = sandbox.bytes()
        let result = try sandbox.run("run", "rules/scripts/hand_over.lua", "Alice", "Bob", "2026-03-01", "2026-03-07")
        #expect(result.status == 1, "Bob already works on 03-03: \(result.stdout)")
        #expect(sandbox.bytes() == before, "03-02 is not moved either")
    }

    @Test func fillOpenDemandStaffsTheGapsFromTheVolunteers() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        for arguments in [
            ["demand", "add", "--type", "D", "--date", "2026-03-03", "--min", "1", "--optimal", "2"],
            ["demand", "add", "--type", "N", "--date", "2026-03-04", "--min", "1"],
            ["schedule", "add", "--type", "N", "--date", "2026-03-02", "--person", "Alice"],  // no rest before D on 03-03
            ["availability", "add", "--person", "Bobby", "--from", "2026-03-04"],
        ] {
            #expect(try sandbox.run(arguments: arguments).status == 0, "\(arguments)")
        }
        let result = try sandbox.run("run", "rules/scripts/fill_open_demand.lua", "2026-03-03", "2026-03-04", "Alice", "Bob", "Bobby",
                                     "--format", "json")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("Alice cannot take it"), "\(result.stderr)")
        let output = try json(result.stdout)
        #expect(output["refusedCommits"] as? Int == 1, "Alice is refused for the D slots once, and not tried again")
        #expect(output["written"] as? Int == 3)
        let schedule = try sandbox.schedule()
        func staff(_ symbol: String, _ day: String) -> [String] {
            schedule.shifts(ShiftQuery(from: LocalDate(day)!, to: LocalDate(day)!, shiftTypeIDs: [schedule.shiftType(symbol: symbol)!.id]))
                .map { schedule.person($0.personID!)!.displayName }.sorted()
        }
        #expect(staff("D", "2026-03-03") == ["Bob", "Bobby"])
        #expect(staff("N", "2026-03-04") == ["Alice"], "Bobby is unavailable and Alice has the fewest shifts in the range")
    }

    @Test func runsOptionsAreDocumented() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let help = try sandbox.run("help", "run")
        #expect(help.status == 0)
        let reference = try String(contentsOfFile: repositoryRoot + "/docs/cli.md", encoding: .utf8)
        #expect(reference.contains("shiftctl run"))
        for option in Set(help.stdout.matches(of: /--[a-z][a-z-]+/).map { String($0.output) }) where option != "--help" {
            #expect(reference.contains("`" + option), "docs/cli.md does not document \(option) of run")
        }
        #expect(try sandbox.run("--help").stdout.contains("  run"))
    }
}
