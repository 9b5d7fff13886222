import Foundation
import ShiftCore
import Testing

/// `shiftctl role …` and `--as` on a file store: the first grant turns roles on, then every
/// change is checked against the acting user's role.
@Suite struct RoleEndToEndTests {
    @Test func rolesDecideWhoMayChangeWhat() throws {
        let sandbox = try Sandbox.withTeam()
        #expect(try sandbox.run("role", "list").stderr.contains("nobody has a role: roles are not enforced"))
        let first = try sandbox.run("role", "grant", "Alice", "admin")
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("roles are now enforced"))
        #expect(try sandbox.run("role", "grant", "Bob", "staff", "--as", "alice").status == 0)

        let shift = try sandbox.run("schedule", "add", "--type", "D", "--date", "2031-03-03", "--person", "Bob", "--as", "alice", "--format", "json")
        #expect(shift.status == 0, "\(shift.stderr)")
        let id = try #require(json(shift.stdout)["id"] as? String)

        let before = sandbox.bytes()
        let edit = try sandbox.run("schedule", "add", "--type", "D", "--date", "2031-03-04", "--as", "bob")
        #expect(edit.status == 2)
        #expect(edit.stderr == "shiftctl: permission denied: Bob (staff) may not edit shifts; a scheduler or admin may\n")
        let escalate = try sandbox.run("role", "grant", "Bob", "admin", "--as", "bob")
        #expect(escalate.stderr == "shiftctl: permission denied: Bob (staff) may not grant or revoke roles; an admin may\n")
        let stranger = try sandbox.run("person", "add", "Eve", "--as", "eve")
        #expect(stranger.stderr.hasPrefix("shiftctl: permission denied: eve (nobody in the schedule) may not change the schedule"))
        #expect(sandbox.bytes() == before)

        let offer = try sandbox.run("request", "offer", id, "--as", "bob", "--format", "json")
        #expect(offer.status == 0, "\(offer.stderr)")
        let request = try #require(json(offer.stdout)["id"] as? String)
        let approve = try sandbox.run("request", "approve", request, "--as", "bob")
        #expect(approve.stderr == "shiftctl: permission denied: Bob (staff) may not approve requests; a scheduler or admin may\n")
        #expect(try sandbox.run("request", "approve", request, "--as", "alice").status == 0)
        #expect(try sandbox.schedule().shift(ShiftID(id)!)?.personID == nil)

        // A script's operations are changes like any other.
        try sandbox.write("return script { id = \"add\", run = function(ctx, schedule, ops) ops.schedule{ type = \"D\", date = \"2031-03-05\" } end }",
                          to: "add.lua")
        let script = try sandbox.run("run", "add.lua", "--as", "bob")
        #expect(script.stderr == "shiftctl: permission denied: Bob (staff) may not edit shifts; a scheduler or admin may\n")
        #expect(try sandbox.run("run", "add.lua", "--as", "alice").status == 0)

        let revoke = try sandbox.run("role", "revoke", "Bob", "staff", "--as", "alice")
        #expect(revoke.status == 0, "\(revoke.stderr)")
        #expect(try sandbox.run("request", "list", "--as", "bob").status == 0, "reading needs no role")
    }
}
