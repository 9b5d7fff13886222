import Foundation
import ShiftApp
import ShiftCore
import ShiftStoragePostgres
import TestSupport
import Testing

/// PostgreSQL with database roles: the database role is who you are, `person link` ties people
/// to roles and sets the roles up, what the database lets staff write shapes their requests
/// (no automatic approval, only their own expiries), and the database has the last word.
@Suite(.enabled(if: PostgresTestServer.enabled, PostgresTestServer.skipReason))
struct DatabaseRoleTests {
    typealias T = RoleTeam

    @Test func theDatabaseRoleIsWhoYouAreAndAsCannotChangeIt() throws {
        let team = try PostgresTeam()
        defer { team.remove() }
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let bob = try team.url(.staff)

        let asAda = try sandbox.run("--store", bob, "request", "list", "--as", "Ada")
        #expect(asAda.status == 2)
        #expect(asAda.stderr == "shiftctl: permission denied: you are connected as database role \(team.prefix)bob (Bob), and the database decides who you are: you cannot act as Ada; connect as their database role instead\n")
        for himself in ["Bob", "bob", team.prefix + "bob"] {
            let listed = try sandbox.run("--store", bob, "request", "list", "--as", himself)
            #expect(listed.status == 0, "--as \(himself): \(listed.stderr)")
        }
        let roles = try sandbox.run("--store", bob, "role", "list")
        #expect(roles.stderr == "shiftctl: you are database role \(team.prefix)bob: Bob, staff; the database checks what you write\n")
        #expect(roles.stdout.contains("DATABASE ROLE"), "\(roles.stdout)")

        // A role linked to nobody is nobody, whatever it says.
        let mallory = try sandbox.run("--store", try team.url(.stranger), "schedule", "add", "--type", "D", "--date", "2026-03-13", "--as", "Sam")
        #expect(mallory.status == 2)
        #expect(mallory.stderr.contains("you are connected as database role \(team.prefix)mallory (nobody in the schedule)"), "\(mallory.stderr)")
        // Without --as, the refusal says what would help: a link, then a role.
        let unlinked = try sandbox.run("--store", try team.url(.stranger), "schedule", "add", "--type", "D", "--date", "2026-03-13")
        #expect(unlinked.status == 2)
        #expect(unlinked.stderr.contains("(nobody in the schedule) may not change the schedule; ask an admin to link your database role to you (shiftctl person link NAME --db-role \(team.prefix)mallory)"),
                "\(unlinked.stderr)")

        // The owner is exempt from the database's checks and works as on a file store.
        let owner = try sandbox.run("--store", team.ownerURL, "schedule", "add", "--type", "D", "--date", "2026-03-13", "--as", "Sam", "--no-rules")
        #expect(owner.status == 0, "\(owner.stderr)")
        let logged = try PostgresTestServer.psql("SELECT user_id FROM \(team.schema).change_log")
        #expect(logged.contains("Sam"), "\(logged)")
        // The change log names the database role.
        let added = try sandbox.run("--store", try team.url(.scheduler), "schedule", "add", "--type", "D", "--date", "2026-03-14", "--no-rules")
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try PostgresTestServer.psql("SELECT user_id, user_display_name FROM \(team.schema).change_log WHERE shift_date = 20526")
            .contains("\(team.prefix)sam|Sam"))
    }

    @Test func linkingNeedsAKnownRoleOfNoOneElseAndAnAdmin() async throws {
        let team = try PostgresTeam()
        defer { team.remove() }
        let folder = try TemporaryFolder(prefix: "link-")
        defer { folder.remove() }
        let ada = T.app(store: try team.url(.admin), user: nil, folder: folder.path)
        let before = try team.digest()
        for (role, says) in [
            ("nosuchrole_x", "--db-role: the server has no database role 'nosuchrole_x'; create it first"),
            (team.prefix + "bob", "--db-role: \(team.prefix)bob is Bob's database role already; unlink it first: shiftctl person unlink Bob"),
            (team.groups[1], "--db-role: \(team.groups[1]) is one of this schedule's group roles"),
        ] {
            let outcome = await T.run(ada) { try await $0.linkPerson("Erin", databaseRole: role) }
            #expect(outcome.status == .badInput)
            #expect(outcome.stderr.hasPrefix("shiftctl: " + says), "\(outcome.stderr)")
        }
        let sam = await T.run(T.app(store: try team.url(.scheduler), user: nil, folder: folder.path)) {
            try await $0.linkPerson("Erin", databaseRole: team.prefix + "erin")
        }
        #expect(sam.stderr == "shiftctl: permission denied: Sam (scheduler) may not grant or revoke roles; an admin may\n")
        #expect(try team.digest() == before)

        let linked = await T.run(ada) { try await $0.linkPerson("Erin", databaseRole: team.prefix + "erin") }
        #expect(linked.status == .ok, "\(linked.stderr)")
        #expect(linked.stdout == "Erin is now database role \(team.prefix)erin, without a role (reads only)\n")
        #expect(try isMember(team.prefix + "erin", of: team.groups[0]))
        #expect(try !isMember(team.prefix + "erin", of: team.groups[1]))
        #expect(await T.run(ada) { try await $0.grantRole(person: "Erin", role: .staff) }.status == .ok)
        #expect(try isMember(team.prefix + "erin", of: team.groups[1]))
        let unlinked = await T.run(ada) { try await $0.unlinkPerson("Erin") }
        #expect(unlinked.stdout == "Erin is no longer database role \(team.prefix)erin\n")
        #expect(try !isMember(team.prefix + "erin", of: team.groups[0]) && !isMember(team.prefix + "erin", of: team.groups[1]))

        let fileStore = await T.run(T.app(store: folder.file("s.json"), user: nil, folder: folder.path)) {
            try await $0.linkPerson("Erin", databaseRole: "erin")
        }
        #expect(fileStore.stderr.hasPrefix("shiftctl: --store: database roles exist only on a PostgreSQL store"), "\(fileStore.stderr)")
    }

    @Test func settingTheRolesUpNeedsTheTablesOwnerWithCreateRole() async throws {
        let name = "r" + UUID().uuidString.lowercased().prefix(8)
        let (owner, clerk) = (name + "_owner", name + "_clerk")
        let server = try PostgresLocation(url: try PostgresTestServer.requireURL())
        try PostgresTestServer.psql("CREATE ROLE \(owner) LOGIN; CREATE ROLE \(clerk) LOGIN; GRANT CREATE ON DATABASE \(server.database) TO \(owner)")
        let url = try PostgresTestServer.url(try PostgresTestServer.freshScheduleURL(), user: owner)
        let schema = try PostgresLocation(url: url).schemaName
        let groups = PostgresRepository.groupRoleNames(of: try PostgresLocation(url: url))
        defer {
            _ = try? PostgresTestServer.psql("DROP SCHEMA IF EXISTS \(schema) CASCADE")
            _ = try? PostgresTestServer.psql("REVOKE CREATE ON DATABASE \(server.database) FROM \(owner)")
            _ = try? PostgresTestServer.psql((groups + [owner, clerk]).map { "DROP ROLE IF EXISTS \($0);" }.joined())
        }
        let folder = try TemporaryFolder(prefix: "setup-")
        defer { folder.remove() }
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        #expect(try sandbox.run("--store", url, "init", "--no-rules").status == 0)
        #expect(try sandbox.run("--store", url, "person", "add", "Clara").status == 0)
        try PostgresTestServer.psql("GRANT USAGE ON SCHEMA \(schema) TO \(clerk); GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA \(schema) TO \(clerk)", url: url)
        let digest = { try PostgresTestServer.psql("SELECT md5(string_agg(x::text, ',' ORDER BY x::text)) FROM \(schema).people x") }
        let before = try digest()

        let byClerk = try sandbox.run("--store", try PostgresTestServer.url(url, user: clerk), "person", "link", "Clara", "--db-role", clerk)
        #expect(byClerk.status == 2)
        #expect(byClerk.stderr.contains("cannot set up the database roles: \(clerk) does not own the schedule's tables; do it once as their owner, \(owner); nothing was changed"), "\(byClerk.stderr)")
        let withoutCreateRole = try sandbox.run("--store", url, "person", "link", "Clara", "--db-role", clerk)
        #expect(withoutCreateRole.stderr.contains("\(owner) may not create roles; a superuser can allow it: ALTER ROLE \(owner) CREATEROLE"), "\(withoutCreateRole.stderr)")
        #expect(try digest() == before)
        #expect(try PostgresTestServer.psql("SELECT count(*) FROM pg_roles WHERE rolname LIKE '\(schema)\\_%'").contains("0"))

        // A superuser sets the roles up for the owner, who keeps the memberships in step after.
        try PostgresTestServer.psql("ALTER ROLE \(owner) CREATEROLE")
        let linked = try sandbox.run("--store", try PostgresTestServer.url(url, user: server.user), "person", "link", "Clara", "--db-role", clerk)
        #expect(linked.status == 0, "\(linked.stderr)")
        #expect(linked.stderr.contains("the database now checks roles for this schedule"), "\(linked.stderr)")
        #expect(try PostgresTestServer.psql("SELECT pg_has_role('\(clerk)', '\(groups[0])', 'MEMBER')").hasPrefix("t"))
        #expect(try sandbox.run("--store", url, "person", "unlink", "Clara").status == 0)
        #expect(try PostgresTestServer.psql("SELECT pg_has_role('\(clerk)', '\(groups[0])', 'MEMBER')").hasPrefix("f"))
        #expect(try sandbox.run("--store", url, "person", "link", "Clara", "--db-role", clerk).status == 0)
        // The clerk's old table grants no longer let it write: it is Clara now, without a role.
        let write = try sandbox.run("--store", try PostgresTestServer.url(url, user: clerk), "person", "add", "Dora")
        #expect(write.stderr == "shiftctl: permission denied: Clara (no role) may not change the schedule; ask an admin for a role (shiftctl role grant)\n")
        let read = try sandbox.run("--store", try PostgresTestServer.url(url, user: clerk), "person", "list")
        #expect(read.status == 0 && read.stdout.contains("Clara"), "\(read.stderr)")
    }

    @Test func staffRequestsWaitForASchedulerInsteadOfBeingApprovedAutomatically() async throws {
        let team = try PostgresTeam()
        defer { team.remove() }
        let folder = try TemporaryFolder(prefix: "auto-")
        defer { folder.remove() }
        let app = { (who: RoleTeam.Who) in T.app(store: try team.url(who), user: nil, folder: folder.path) }
        #expect(await T.run(try app(.admin)) { try await $0.setAutoApprove(true) }.status == .ok)

        let claim = await T.run(try app(.staff)) { try await $0.requestClaim(shift: T.ref(T.open.id), person: nil, reason: nil) }
        #expect(claim.status == .ok, "\(claim.stderr)")
        #expect(claim.stdout.hasPrefix("made claim request"), "\(claim.stdout)")
        #expect(claim.stderr == "shiftctl: \(RequestWorkflow.databaseStaffNotice)\n")
        let accepted = await T.run(try app(.colleague)) { try await $0.acceptRequest(T.ref(T.bobsSwap), reason: nil) }
        #expect(accepted.stdout.hasPrefix("accepted swap request"), "\(accepted.stdout)")
        #expect(accepted.stderr == "shiftctl: \(RequestWorkflow.databaseStaffNotice)\n")
        var schedule = try PostgresRepository(url: team.ownerURL).load().0
        #expect(try schedule.materialized().shift(T.open.id)?.personID == nil)
        #expect(schedule.request(T.bobsSwap)?.state == .accepted)

        // A scheduler's claim is approved at once; the staff requests wait for one.
        let approved = await T.run(try app(.scheduler)) { try await $0.approveRequest(T.ref(T.bobsSwap), reason: nil) }
        #expect(approved.status == .ok, "\(approved.stderr)")
        let own = await T.run(try app(.scheduler)) { try await $0.requestClaim(shift: T.ref(T.open.id), person: nil, reason: nil) }
        #expect(own.stdout.hasPrefix("made and approved claim request"), "\(own.stdout)")
        schedule = try PostgresRepository(url: team.ownerURL).load().0
        #expect(try schedule.materialized().shift(T.bobsDay.id)?.personID == T.carol)
        #expect(try schedule.materialized().shift(T.open.id)?.personID == T.sam)
    }

    @Test func staffExpireOnlyTheirOwnRequestsAndSchedulersTheRest() async throws {
        let team = try PostgresTeam()
        defer { team.remove() }
        let folder = try TemporaryFolder(prefix: "expiry-")
        defer { folder.remove() }
        let offer = await T.run(T.app(store: try team.url(.colleague), user: nil, folder: folder.path)) {
            try await $0.requestOffer(shift: T.ref(T.carolsDay.id), person: nil, reason: nil)
        }
        #expect(offer.status == .ok, "\(offer.stderr)")
        // Noon on 2026-03-11: Bob's day (the swap's) and Carol's day (the offer's) have started.
        let later = Date(timeIntervalSince1970: 1_773_226_800)
        let states = { () throws -> [String] in
            let schedule = try PostgresRepository(url: team.ownerURL).load().0
            return schedule.requests.sorted { $0.madeAt! < $1.madeAt! }.map { "\(schedule.person($0.requesterID)!.displayName) \($0.kind.rawValue) \($0.state.rawValue)" }
        }
        let timeOff = await T.run(T.app(store: try team.url(.staff), user: nil, folder: folder.path, now: later)) {
            try await $0.requestTimeOff(from: "2026-03-25", to: nil, type: nil, person: nil, reason: nil)
        }
        #expect(timeOff.status == .ok, "\(timeOff.stderr)")
        #expect(try states() == ["Bob swap expired", "Carol time_off pending", "Carol offer pending", "Bob time_off pending"])
        let declined = await T.run(T.app(store: try team.url(.scheduler), user: nil, folder: folder.path, now: later)) {
            try await $0.declineRequest(T.ref(T.carolsTimeOff), reason: nil)
        }
        #expect(declined.status == .ok, "\(declined.stderr)")
        #expect(try states() == ["Bob swap expired", "Carol time_off declined", "Carol offer expired", "Bob time_off pending"])
    }

    @Test func theDatabaseHasTheLastWord() async throws {
        let team = try PostgresTeam()
        defer { team.remove() }
        let folder = try TemporaryFolder(prefix: "last-word-")
        defer { folder.remove() }
        // Behind the people table's back, Sam loses the scheduler group: the people table still
        // says scheduler, so the commands let him, and the database refuses.
        try PostgresTestServer.psql("REVOKE \(team.groups[2]) FROM \(team.prefix)sam")
        let before = try team.digest()
        let outcome = await T.run(T.app(store: try team.url(.scheduler), user: nil, folder: folder.path)) {
            try await $0.scheduleShift(type: "D", date: "2026-03-13", person: "Bob", notes: nil)
        }
        #expect(outcome.status == .badInput)
        #expect(outcome.stderr == "shiftctl: permission denied: \(team.prefix)sam (no role) may not edit shifts: the database refused it (permission denied for table shifts)\n")
        #expect(try team.digest() == before)
    }

    private func isMember(_ role: String, of group: String) throws -> Bool {
        try PostgresTestServer.psql("SELECT pg_has_role('\(role)', '\(group)', 'MEMBER')").hasPrefix("t")
    }
}
