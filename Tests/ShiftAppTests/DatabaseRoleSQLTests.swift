import Foundation
import ShiftCore
import TestSupport
import Testing

/// The database enforces the matrix itself: each forbidden write, tried with plain SQL in
/// `psql` as the team's login roles, is refused (permission denied, or a row-level security
/// policy) and changes nothing. What the matrix allows them is let through.
@Suite(.enabled(if: PostgresTestServer.enabled, PostgresTestServer.skipReason))
struct DatabaseRoleSQLTests {
    typealias T = RoleTeam

    /// `'20000000-…'`: an id as an SQL literal.
    static func q<V>(_ id: Identifier<V>) -> String { "'\(id.description)'" }

    /// A history entry of a request as staff would append it.
    static func history(_ request: RequestID, _ position: Int, _ state: String, by user: String) -> String {
        "INSERT INTO request_history (request_id, position, state, timestamp, user_id, user_display_name) VALUES (\(q(request)), \(position), '\(state)', 0, '\(user)', 'x')"
    }

    /// Each statement is refused for the role, and the schedule is byte for byte as before.
    private func expectRefused(_ statements: [String], as who: RoleTeam.Who, in team: PostgresTeam, says: [String] = ["permission denied", "row-level security policy"]) throws {
        let url = try team.url(who)
        for statement in statements {
            let before = try team.digest()
            do {
                try PostgresTestServer.psql("SET search_path TO \(team.schema); " + statement, url: url)
                Issue.record("\(who) may: \(statement)")
            } catch let error as PostgresTestError {
                #expect(says.contains { error.description.contains($0) }, "\(who): \(statement): \(error)")
            }
            #expect(try team.digest() == before, "\(who): \(statement) changed nothing")
        }
    }

    @Test func staffCannotWriteShiftsPeopleTypesOrAnyoneElsesRequest() throws {
        let team = try PostgresTeam()
        defer { team.remove() }
        let bob = team.prefix + "bob"
        let newID = "'\(UUID().uuidString.lowercased())'"
        try expectRefused([
            // Shifts.
            "INSERT INTO shifts (id, type_id, date, person_id) VALUES (\(newID), \(Self.q(T.day.id)), 20530, \(Self.q(T.bob)))",
            "UPDATE shifts SET person_id = \(Self.q(T.bob)) WHERE id = \(Self.q(T.open.id))",
            "DELETE FROM shifts WHERE id = \(Self.q(T.carolsDay.id))",
            // People, and the role and database role they hold.
            "INSERT INTO people (id, display_name) VALUES (\(newID), 'Eve')",
            "UPDATE people SET attributes = '{\"role\": \"admin\"}' WHERE id = \(Self.q(T.bob))",
            "UPDATE people SET display_name = 'Robert' WHERE id = \(Self.q(T.bob))",
            "DELETE FROM people WHERE id = \(Self.q(T.erin))",
            // Shift types, locations, demand, availability, the change log.
            "INSERT INTO shift_types (id, symbol, title, description, duration) VALUES (\(newID), 'E', 'E', '', '15:00-23:00')",
            "UPDATE shift_types SET title = 'Early' WHERE id = \(Self.q(T.day.id))",
            "DELETE FROM shift_types WHERE id = \(Self.q(T.night.id))",
            "INSERT INTO locations (id, name, address) VALUES (\(newID), 'Ward B', '')",
            "INSERT INTO demand (id, weekday, type_id, minimum, optimal) VALUES (\(newID), 1, \(Self.q(T.day.id)), 1, 1)",
            "INSERT INTO availability (id, person_id, from_date, to_date, kind) VALUES (\(newID), \(Self.q(T.bob)), 20530, 20530, 'unavailable')",
            "INSERT INTO change_log (id, timestamp, user_id, user_display_name, change_type, shift_date) VALUES (\(newID), 0, 'x', 'x', 'created', 0)",
            "DELETE FROM change_log",
            // Someone else's request: made in their name, cancelled, declined, expired; a swap
            // addressed to someone else accepted; any request approved; history rewritten.
            "INSERT INTO requests (id, kind, requester_id, from_date, to_date) VALUES (\(newID), 'time_off', \(Self.q(T.carol)), 20540, 20540)",
            Self.history(T.carolsTimeOff, 1, "cancelled", by: bob),
            Self.history(T.carolsTimeOff, 1, "declined", by: bob),
            Self.history(T.carolsTimeOff, 1, "expired", by: bob),
            Self.history(T.bobsSwap, 1, "accepted", by: bob),
            Self.history(T.bobsSwap, 1, "approved", by: bob),
            Self.history(T.carolsTimeOff, 1, "approved", by: bob),
            "UPDATE requests SET requester_id = \(Self.q(T.bob)) WHERE id = \(Self.q(T.carolsTimeOff))",
            "DELETE FROM request_history WHERE request_id = \(Self.q(T.carolsTimeOff))",
            "UPDATE request_history SET state = 'approved' WHERE request_id = \(Self.q(T.bobsSwap))",
            // One's own request, but in someone else's name, out of turn, or made approved.
            Self.history(T.bobsSwap, 1, "cancelled", by: team.prefix + "carol"),
            Self.history(T.bobsSwap, 3, "cancelled", by: bob),
            "INSERT INTO requests (id, kind, requester_id, from_date, to_date) VALUES (\(newID), 'time_off', \(Self.q(T.bob)), 20540, 20540); "
                + "INSERT INTO request_history (request_id, position, state, timestamp, user_id, user_display_name) VALUES (\(newID), 0, 'approved', 0, '\(bob)', 'Bob')",
            // The settings (the rules' configuration), the store's bookkeeping.
            "UPDATE settings SET extra = '{\"rules.disabled\": [\"no_double_booking\"]}'",
            "UPDATE settings SET time_zone = 'UTC'",
            "UPDATE meta SET format = 'mine'",
            "UPDATE meta SET catalog_generation = 0",
            "INSERT INTO commits (xid, catalog) VALUES ('1', true)",
            "INSERT INTO database_roles (role, name) VALUES ('admin', '\(bob)')",
            "DELETE FROM database_roles",
            "INSERT INTO migrations (name) VALUES ('v9-mine')",
        ], as: .staff, in: team, says: ["permission denied", "row-level security policy", "only a scheduler or admin", "only goes up"])
        // Nor make themselves an admin, or act as one.
        try expectRefused(["GRANT \(team.groups[3]) TO \(bob)", "SET ROLE \(team.groups[3])", "ALTER ROLE \(bob) BYPASSRLS"], as: .staff, in: team,
                          says: ["permission denied", "must have admin option", "must be superuser"])
    }

    @Test func staffMayMakeCancelAndAcceptWhatIsTheirsAndSaveTheirOwnName() throws {
        let team = try PostgresTeam()
        defer { team.remove() }
        let (bob, carol) = (team.prefix + "bob", team.prefix + "carol")
        let request = RequestID(UUID())
        let id = Self.q(request)
        try PostgresTestServer.psql("""
            SET search_path TO \(team.schema);
            INSERT INTO requests (id, kind, requester_id, from_date, to_date) VALUES (\(id), 'time_off', \(Self.q(T.bob)), 20540, 20540);
            INSERT INTO request_history (request_id, position, state, timestamp, user_id, user_display_name) VALUES (\(id), 0, 'pending', 0, '\(bob)', 'Bob');
            INSERT INTO request_history (request_id, position, state, timestamp, user_id, user_display_name) VALUES (\(id), 1, 'cancelled', 0, '\(bob)', 'Bob');
            UPDATE meta SET catalog_generation = catalog_generation + 1;
            INSERT INTO commits (catalog) VALUES (true);
            UPDATE settings SET extra = jsonb_set(coalesce(extra, '{}')::jsonb, '{user.displayName.\(bob)}', '"Bobby"')::text;
            """, url: try team.url(.staff))
        try PostgresTestServer.psql("SET search_path TO \(team.schema); " + Self.history(T.bobsSwap, 1, "accepted", by: carol), url: try team.url(.colleague))
        let states = try PostgresTestServer.psql(
            "SELECT string_agg(state, ',' ORDER BY request_id, position) FROM \(team.schema).request_history WHERE request_id IN (\(id), \(Self.q(T.bobsSwap)))")
        #expect(states.contains("pending,accepted") && states.contains("pending,cancelled"), "\(states)")
        // Once cancelled, it stays cancelled.
        try expectRefused([Self.history(request, 2, "expired", by: bob)], as: .staff, in: team)
    }

    @Test func aSchedulerEditsButCannotGrantRolesAndAStrangerOnlyReads() throws {
        let team = try PostgresTeam()
        defer { team.remove() }
        try PostgresTestServer.psql(
            "SET search_path TO \(team.schema); UPDATE shifts SET person_id = \(Self.q(T.carol)) WHERE id = \(Self.q(T.open.id))",
            url: try team.url(.scheduler))
        try expectRefused([
            "UPDATE people SET attributes = '{\"role\": \"admin\", \"db_role\": \"\(team.prefix)sam\"}' WHERE id = \(Self.q(T.sam))",
            "UPDATE people SET attributes = '{\"role\": \"staff\"}' WHERE id = \(Self.q(T.erin))",
            "UPDATE people SET attributes = '{\"db_role\": \"\(team.prefix)erin\"}' WHERE id = \(Self.q(T.erin))",
            "DELETE FROM people WHERE id = \(Self.q(T.bob))",
            "GRANT \(team.groups[3]) TO \(team.prefix)sam",
        ], as: .scheduler, in: team, says: ["only an admin may grant or revoke roles", "permission denied", "must have admin option"])
        // Mallory has the table grants of the old team guide but no group: she reads, and her
        // writes find no policy (an insert is refused; an update or delete finds no row).
        #expect(try PostgresTestServer.psql("SELECT count(*) FROM \(team.schema).shifts", url: try team.url(.stranger)).contains("3"))
        try expectRefused([
            "INSERT INTO shifts (id, type_id, date) VALUES ('\(UUID().uuidString.lowercased())', \(Self.q(T.day.id)), 20530)",
            "INSERT INTO request_history (request_id, position, state, timestamp, user_id, user_display_name) VALUES (\(Self.q(T.bobsSwap)), 1, 'approved', 0, 'x', 'x')",
        ], as: .stranger, in: team)
        let before = try team.digest()
        let updated = try PostgresTestServer.psql(
            "SET search_path TO \(team.schema); UPDATE shifts SET person_id = NULL; DELETE FROM people; SELECT 'done'", url: try team.url(.stranger))
        #expect(updated.contains("done"))
        #expect(try team.digest() == before)
    }
}
