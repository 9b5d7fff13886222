import Foundation
import Testing

/// `schedule assign` and `schedule unassign`: who works a shift, through the rules and the log.
@Suite struct AssignTests {
    /// Schedules a shift and returns its id.
    private func schedule(_ sandbox: Sandbox, _ arguments: String...) throws -> String {
        let added = try sandbox.run(arguments: ["schedule", "add"] + arguments + ["--format", "json"])
        #expect(added.status == 0, "\(added.stderr)")
        return try #require(try json(added.stdout)["id"] as? String)
    }

    @Test func assignGivesAShiftToSomeoneElseAndLogsBeforeAndAfter() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        let id = try schedule(sandbox, "--type", "D", "--date", "2026-03-02", "--person", "Alice")
        let assigned = try sandbox.run("--as", "lead", "schedule", "assign", String(id.prefix(8)), "--to", "Bob", "--reason", "Alice is ill")
        #expect(assigned.status == 0, "\(assigned.stderr)")
        #expect(assigned.stdout == "assigned shift D on 2026-03-02 to Bob, was Alice (\(id.prefix(8)))\n")
        let shift = try #require(try sandbox.schedule().shifts().first)
        #expect(try sandbox.schedule().person(try #require(shift.personID))?.displayName == "Bob")

        let entry = try #require((try json(try sandbox.run("log", "--limit", "1", "--format", "json").stdout)["entries"] as? [[String: Any]])?.first)
        #expect(entry["changeType"] as? String == "reassigned")
        #expect(entry["userId"] as? String == "lead")
        #expect(entry["reason"] as? String == "Alice is ill")
        #expect((entry["oldShiftSnapshot"] as? [String: Any])?["personName"] as? String == "Alice")
        #expect((entry["newShiftSnapshot"] as? [String: Any])?["personName"] as? String == "Bob")
        #expect((entry["newShiftSnapshot"] as? [String: Any])?["symbol"] as? String == "D", "the type stays")
    }

    @Test func unassignMakesTheShiftOpen() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        let id = try schedule(sandbox, "--type", "N", "--date", "2026-03-03", "--person", "Bob")
        let result = try sandbox.run("schedule", "unassign", String(id.prefix(8)), "--format", "json")
        #expect(result.status == 0, "\(result.stderr)")
        let output = try json(result.stdout)
        #expect(output["action"] as? String == "unassigned")
        #expect((output["item"] as? [String: Any])?["person"] == nil)
        #expect(try sandbox.schedule().shifts().first?.personID == nil)

        let again = try sandbox.run("schedule", "unassign", String(id.prefix(8)))
        #expect(again.status == 2)
        #expect(again.stderr == "shiftctl: SHIFT: 2026-03-03 N open is already open (nobody works it)\n")
    }

    @Test func theRulesCheckAnAssignmentAndARejectionWritesNothing() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        _ = try schedule(sandbox, "--type", "D", "--date", "2026-03-02", "--person", "Alice")
        let open = try schedule(sandbox, "--type", "D", "--date", "2026-03-02")
        let before = try #require(sandbox.bytes())
        let result = try sandbox.run("schedule", "assign", String(open.prefix(8)), "--to", "Alice")
        #expect(result.status == 1)
        #expect(result.stdout.contains("no_double_booking"))
        #expect(result.stderr.contains("nothing was written"))
        #expect(sandbox.bytes() == before)
    }

    @Test func assigningToTheSamePersonOrAnUnknownOneIsBadInput() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        let id = try schedule(sandbox, "--type", "D", "--date", "2026-03-02", "--person", "Alice")
        let before = try #require(sandbox.bytes())
        let same = try sandbox.run("schedule", "assign", String(id.prefix(8)), "--to", "alice")
        #expect(same.status == 2)
        #expect(same.stderr == "shiftctl: --to: Alice already works this shift; name someone else\n")
        let unknown = try sandbox.run("schedule", "assign", String(id.prefix(8)), "--to", "Alcie")
        #expect(unknown.status == 2)
        #expect(unknown.stderr == "shiftctl: --to: no person 'Alcie'; did you mean: Alice\n")
        #expect(sandbox.bytes() == before)
    }
}
