import Foundation
import PostgresNIO
import ShiftCore

/// The database enforces the permissions matrix (docs/requests.md "Permissions") with grants
/// and row-level security, so that a staff member cannot write shifts or someone else's
/// request even from `psql`.
///
/// - Migration `v4-database-roles` adds what needs only the tables' owner: the table
///   `database_roles`, a unique index on each person's `db_role` attribute (the database role
///   that is that person), the functions the policies use (`current_person()`, `has_role(r)`,
///   `may_edit()`, `staff_may_record(…)`), the policies, and triggers that keep roles an
///   admin's business and the settings and `meta` honest. Until the roles are set up all of it
///   is inert: row-level security is off and the triggers step aside.
/// - `setUp` (the first `shiftctl person link`, by the tables' owner with CREATEROLE) creates
///   four NOLOGIN group roles, `<schema>_reader`, `_staff`, `_scheduler`, `_admin`, grants them
///   what each may do, and turns row-level security on.
/// - From then on a person's database role is a member of `<schema>_reader` and of the group of
///   their `role` attribute: a trigger on `people` grants and revokes the groups as the
///   attributes change (as the owner: `SECURITY DEFINER`), so the database and the people table
///   always agree.
///
/// The owner of the tables and superusers bypass row-level security (PostgreSQL exempts them);
/// every other role may write only what a policy lets its groups write, and a role in no group
/// only reads what the database administrator granted it.
enum PostgresRoles {
    /// A group role of the schedule: the matrix's three roles, and `reader` for every linked
    /// person (reading needs no role).
    enum Group: String, CaseIterable {
        case reader, staff, scheduler, admin
    }

    /// The tables under row-level security: every table of the schedule's data.
    static let dataTables = [
        "meta", "settings", "locations", "shift_types", "people", "shifts", "demand", "availability", "change_log", "commits",
        "requests", "request_history",
    ]

    /// What schedulers and admins insert, update and delete; the commit's bookkeeping (`meta`,
    /// `commits`) has narrower grants of its own.
    static let editedTables = dataTables.filter { $0 != "meta" && $0 != "commits" }

    /// The group role's name: `<schema>_<group>`, cut to PostgreSQL's 63 bytes (only
    /// `_scheduler` of a 40-character schedule name loses its last letters, so names stay apart).
    static func groupName(schema: String, _ group: Group) -> String {
        String("\(schema)_\(group.rawValue)".prefix(63))
    }

    // MARK: Migration v4-database-roles

    static let migration: [String] = [
        """
        CREATE TABLE {schema}.database_roles (
            role text PRIMARY KEY CHECK (role IN ('reader', 'staff', 'scheduler', 'admin')),
            name text NOT NULL UNIQUE)
        """,
        // One person a database role; `current_person()` finds them by it (a role's name has
        // the collation "C", which the index's text does not: without COLLATE it is not used).
        "CREATE UNIQUE INDEX people_by_db_role ON {schema}.people ((attributes::jsonb ->> 'db_role'))",
        """
        CREATE FUNCTION {schema}.current_person() RETURNS uuid LANGUAGE sql STABLE AS $$
            SELECT id FROM {schema}.people WHERE (attributes::jsonb ->> 'db_role') = current_user::text COLLATE "default"
        $$
        """,
        // What PostgreSQL exempts from row-level security: the tables' owner (and its members),
        // superusers and BYPASSRLS roles.
        """
        CREATE FUNCTION {schema}.checks_roles() RETURNS boolean LANGUAGE sql STABLE AS $$
            SELECT EXISTS (SELECT 1 FROM {schema}.database_roles)
                AND NOT pg_has_role(current_user, (SELECT relowner FROM pg_catalog.pg_class WHERE oid = '{schema}.people'::regclass), 'USAGE')
                AND NOT coalesce((SELECT rolbypassrls FROM pg_catalog.pg_roles WHERE rolname = current_user), false)
        $$
        """,
        """
        CREATE FUNCTION {schema}.has_role(wanted text) RETURNS boolean LANGUAGE sql STABLE AS $$
            SELECT EXISTS (SELECT 1 FROM {schema}.database_roles WHERE role = wanted AND pg_has_role(current_user, name, 'USAGE'))
        $$
        """,
        """
        CREATE FUNCTION {schema}.may_edit() RETURNS boolean LANGUAGE sql STABLE AS $$
            SELECT {schema}.has_role('scheduler') OR {schema}.has_role('admin')
        $$
        """,
        // A staff member's state change of a request: the first entry (pending) of their own new
        // request, cancelling or expiring their own open one, or accepting a pending swap
        // addressed to them; in their own name, right after the request's last entry.
        """
        CREATE FUNCTION {schema}.staff_may_record(asked uuid, at integer, moved_to text, by_user text) RETURNS boolean
        LANGUAGE sql STABLE AS $$
            SELECT coalesce(by_user = current_user::text AND at = h.entries AND CASE
                    WHEN moved_to = 'pending' THEN h.entries = 0 AND r.requester_id = {schema}.current_person()
                    WHEN moved_to IN ('cancelled', 'expired') THEN h.last IN ('pending', 'accepted') AND r.requester_id = {schema}.current_person()
                    WHEN moved_to = 'accepted' THEN h.last = 'pending' AND r.kind = 'swap' AND r.colleague_id = {schema}.current_person()
                    ELSE false END, false)
            FROM {schema}.requests r,
                LATERAL (SELECT count(*)::integer AS entries,
                                (SELECT l.state FROM {schema}.request_history l WHERE l.request_id = asked ORDER BY l.position DESC LIMIT 1) AS last
                         FROM {schema}.request_history c WHERE c.request_id = asked) h
            WHERE r.id = asked
        $$
        """,
        // Roles are an admin's: granting, revoking, linking a database role, and the login of a
        // person with a role (as `Permissions.changesRoles`).
        """
        CREATE FUNCTION {schema}.guard_people() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            old_attributes jsonb := '{}';
            new_attributes jsonb := '{}';
        BEGIN
            IF TG_OP <> 'INSERT' THEN old_attributes := coalesce(OLD.attributes, '{}')::jsonb; END IF;
            IF TG_OP <> 'DELETE' THEN new_attributes := coalesce(NEW.attributes, '{}')::jsonb; END IF;
            IF (old_attributes -> 'role' IS DISTINCT FROM new_attributes -> 'role'
                    OR old_attributes -> 'db_role' IS DISTINCT FROM new_attributes -> 'db_role'
                    OR (old_attributes ? 'role' AND old_attributes -> 'login' IS DISTINCT FROM new_attributes -> 'login'))
                AND {schema}.checks_roles() AND NOT {schema}.has_role('admin') THEN
                RAISE EXCEPTION 'only an admin may grant or revoke roles or link database roles'
                    USING ERRCODE = 'insufficient_privilege', TABLE = 'people', COLUMN = 'role';
            END IF;
            IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
            RETURN NEW;
        END
        $$
        """,
        // Keeps each linked database role a member of the reader group and of its person's
        // role's group, as the owner (who set the groups up).
        """
        CREATE FUNCTION {schema}.sync_database_roles() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
        SET search_path = pg_catalog, pg_temp AS $$
        DECLARE
            old_login text;
            old_role text;
            new_login text;
            new_role text;
            group_name text;
        BEGIN
            IF NOT EXISTS (SELECT 1 FROM {schema}.database_roles) THEN RETURN NULL; END IF;
            IF TG_OP <> 'INSERT' THEN
                old_login := coalesce(OLD.attributes, '{}')::jsonb ->> 'db_role';
                old_role := coalesce(OLD.attributes, '{}')::jsonb ->> 'role';
            END IF;
            IF TG_OP <> 'DELETE' THEN
                new_login := coalesce(NEW.attributes, '{}')::jsonb ->> 'db_role';
                new_role := coalesce(NEW.attributes, '{}')::jsonb ->> 'role';
            END IF;
            IF old_login IS NOT DISTINCT FROM new_login AND old_role IS NOT DISTINCT FROM new_role THEN RETURN NULL; END IF;
            IF old_login IS NOT NULL THEN
                FOR group_name IN
                    SELECT DISTINCT g.name FROM {schema}.database_roles g
                    JOIN pg_roles gr ON gr.rolname = g.name
                    JOIN pg_auth_members m ON m.roleid = gr.oid
                    JOIN pg_roles mr ON mr.oid = m.member AND mr.rolname = old_login
                LOOP
                    EXECUTE format('REVOKE %I FROM %I', group_name, old_login);
                END LOOP;
            END IF;
            IF new_login IS NOT NULL THEN
                FOR group_name IN SELECT name FROM {schema}.database_roles WHERE role = 'reader' OR role = new_role LOOP
                    EXECUTE format('GRANT %I TO %I', group_name, new_login);
                END LOOP;
            END IF;
            RETURN NULL;
        END
        $$
        """,
        // Staff may save their own display name (`user.displayName.<their role>`) and nothing
        // else of the settings, which hold the rules' configuration.
        """
        CREATE FUNCTION {schema}.guard_settings() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            own text := 'user.displayName.' || current_user::text;
        BEGIN
            IF ((NEW.time_zone, NEW.week_start, NEW.change_log_retention) IS DISTINCT FROM (OLD.time_zone, OLD.week_start, OLD.change_log_retention)
                    OR coalesce(NEW.extra, '{}')::jsonb - own IS DISTINCT FROM coalesce(OLD.extra, '{}')::jsonb - own)
                AND {schema}.checks_roles() AND NOT {schema}.may_edit() THEN
                RAISE EXCEPTION 'only a scheduler or admin may change the settings; staff may change only their own display name'
                    USING ERRCODE = 'insufficient_privilege', TABLE = 'settings';
            END IF;
            RETURN NEW;
        END
        $$
        """,
        // A commit only ever bumps the catalog generation.
        """
        CREATE FUNCTION {schema}.guard_meta() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF NEW.catalog_generation <= OLD.catalog_generation AND {schema}.checks_roles() THEN
                RAISE EXCEPTION 'the catalog generation only goes up' USING ERRCODE = 'insufficient_privilege', TABLE = 'meta';
            END IF;
            RETURN NEW;
        END
        $$
        """,
        "CREATE TRIGGER guard_people BEFORE INSERT OR UPDATE OR DELETE ON {schema}.people FOR EACH ROW EXECUTE FUNCTION {schema}.guard_people()",
        "CREATE TRIGGER sync_database_roles AFTER INSERT OR UPDATE OR DELETE ON {schema}.people FOR EACH ROW EXECUTE FUNCTION {schema}.sync_database_roles()",
        "CREATE TRIGGER guard_settings BEFORE UPDATE ON {schema}.settings FOR EACH ROW EXECUTE FUNCTION {schema}.guard_settings()",
        "CREATE TRIGGER guard_meta BEFORE UPDATE ON {schema}.meta FOR EACH ROW EXECUTE FUNCTION {schema}.guard_meta()",
    ] + policies

    /// Everyone the grants let in reads; schedulers and admins write; staff make and move their
    /// own requests and write a commit's bookkeeping. `(SELECT f())` runs a check once per
    /// statement, not once per row.
    private static let policies: [String] = {
        let editor = "(SELECT {schema}.may_edit())"
        let staff = "(SELECT {schema}.has_role('staff'))"
        var statements: [String] = []
        for table in dataTables {
            statements += [
                "CREATE POLICY everyone_reads ON {schema}.\(table) FOR SELECT USING (true)",
                "CREATE POLICY editors_insert ON {schema}.\(table) FOR INSERT WITH CHECK (\(editor))",
                "CREATE POLICY editors_update ON {schema}.\(table) FOR UPDATE USING (\(editor)) WITH CHECK (\(editor))",
                "CREATE POLICY editors_delete ON {schema}.\(table) FOR DELETE USING (\(editor))",
            ]
        }
        return statements + [
            "CREATE POLICY staff_make ON {schema}.requests FOR INSERT WITH CHECK (\(staff) AND requester_id = (SELECT {schema}.current_person()))",
            "CREATE POLICY staff_move ON {schema}.request_history FOR INSERT WITH CHECK (\(staff) AND {schema}.staff_may_record(request_id, position, state, user_id))",
            "CREATE POLICY staff_commit ON {schema}.commits FOR INSERT WITH CHECK (\(staff))",
            "CREATE POLICY staff_commit ON {schema}.meta FOR UPDATE USING (\(staff))",
            "CREATE POLICY staff_own_name ON {schema}.settings FOR UPDATE USING (\(staff))",
        ]
    }()

    // MARK: Setting up

    /// The grants of each group and row-level security on: what `setUp` does once the groups
    /// exist, and what opening does again after a migration (a new table gets its grants).
    static func enforcement(schema: String) -> [String] {
        let s = PostgresSchema.quoted(schema)
        let name = { (group: Group) in PostgresSchema.quoted(groupName(schema: schema, group)) }
        let everyone = Group.allCases.map(name).joined(separator: ", ")
        let writers = [Group.staff, .scheduler, .admin].map(name).joined(separator: ", ")
        let editors = [Group.scheduler, .admin].map(name).joined(separator: ", ")
        return [
            "GRANT USAGE ON SCHEMA \(s) TO \(everyone)",
            "GRANT SELECT ON ALL TABLES IN SCHEMA \(s) TO \(everyone)",
            "GRANT INSERT, UPDATE, DELETE ON \(editedTables.map { "\(s).\($0)" }.joined(separator: ", ")) TO \(editors)",
            "GRANT UPDATE (catalog_generation) ON \(s).meta TO \(writers)",
            "GRANT INSERT (catalog) ON \(s).commits TO \(writers)",
            "GRANT INSERT ON \(s).requests, \(s).request_history TO \(name(.staff))",
            "GRANT UPDATE (time_zone, week_start, change_log_retention, extra) ON \(s).settings TO \(name(.staff))",
        ] + dataTables.map { "ALTER TABLE \(s).\($0) ENABLE ROW LEVEL SECURITY" }
    }

    /// Whether the schedule's group roles are set up.
    static func areSetUp(_ session: PostgresSession) throws -> Bool {
        try !session.rows("SELECT 1 FROM database_roles LIMIT 1").isEmpty
    }

    /// Creates the group roles, grants them their part of the matrix, turns row-level security
    /// on, and makes each person's linked database role a member of their groups: one
    /// transaction. The connecting role must own the schedule's tables and may create roles,
    /// and so must the owner (the trigger that keeps memberships in step runs as the owner).
    ///
    /// - Returns: false when the roles were set up already (nothing done).
    /// - Throws: `PostgresStoreError.cannotSetUpRoles` saying who lacks what, or a database error.
    static func setUp(schema: String, store: String, _ session: PostgresSession) throws -> Bool {
        try session.begin("BEGIN")
        do {
            try session.execute("SELECT pg_advisory_xact_lock(hashtext(\(schema)))")
            if try areSetUp(session) {
                session.rollback()
                return false
            }
            try checkPrivileges(store: store, session)
            guard let storeRow = try session.rows("SELECT store_id, (SELECT rolname FROM pg_roles WHERE oid = (SELECT relowner FROM pg_class WHERE oid = 'people'::regclass)), current_user::text FROM meta WHERE id = 1").first else {
                throw ContentError(description: "meta: the row is missing")
            }
            let reader = RowReader(storeRow)
            let storeID = try reader.uuid(0).lowercasedString
            let (owner, user) = (try reader.text(1), try reader.text(2))
            for group in Group.allCases {
                let name = groupName(schema: schema, group)
                let marker = "ShiftScheduler: the \(group.rawValue) role of schedule \(schema), store \(storeID)"
                let existing = try session.rows("SELECT coalesce(shobj_description(oid, 'pg_authid'), '') FROM pg_roles WHERE rolname = \(name)")
                if let comment = try existing.first.map({ try RowReader($0).text(0) }) {
                    guard comment == marker else {
                        throw PostgresStoreError.cannotSetUpRoles(
                            store: store,
                            reason: "the database role \(name) exists already and is not this schedule's; drop it, or keep this schedule under another name (?schedule=NAME)")
                    }
                } else {
                    try session.execute(PostgresQuery(unsafeSQL: "CREATE ROLE \(PostgresSchema.quoted(name)) NOLOGIN"))
                    try session.execute(PostgresQuery(unsafeSQL: "COMMENT ON ROLE \(PostgresSchema.quoted(name)) IS '\(marker)'"))
                }
                // The trigger granting the groups runs as the owner, who needs the right to.
                if owner != user {
                    try session.execute(PostgresQuery(unsafeSQL: "GRANT \(PostgresSchema.quoted(name)) TO \(PostgresSchema.quoted(owner)) WITH ADMIN OPTION"))
                }
                try session.execute("INSERT INTO database_roles (role, name) VALUES (\(group.rawValue), \(name))")
            }
            // The rest as the owner: memberships are revoked by whoever granted them (PostgreSQL
            // 16 keeps the grantor), and the trigger that revokes them runs as the owner.
            if owner != user { try session.execute(PostgresQuery(unsafeSQL: "SET LOCAL ROLE \(PostgresSchema.quoted(owner))")) }
            for statement in enforcement(schema: schema) { try session.execute(PostgresQuery(unsafeSQL: statement)) }
            try grantLinkedRoles(schema: schema, store: store, session)
            try session.commit()
            return true
        } catch {
            session.rollback()
            throw error
        }
    }

    /// The connecting role owns the tables and may create roles, and so may the owner.
    private static func checkPrivileges(store: String, _ session: PostgresSession) throws {
        guard let first = try session.rows("""
            SELECT current_user::text, pg_has_role(current_user, o.oid, 'USAGE'), o.rolname::text, o.rolcreaterole OR o.rolsuper,
                   (SELECT rolcreaterole OR rolsuper FROM pg_roles WHERE rolname = current_user)
            FROM pg_roles o WHERE o.oid = (SELECT relowner FROM pg_class WHERE oid = 'people'::regclass)
            """).first else { throw ContentError(description: "people: the table has no owner") }
        let row = RowReader(first)
        let (user, owns, owner, ownerMayCreate, userMayCreate) = (
            try row.text(0), try row.value(1, Bool.self), try row.text(2), try row.value(3, Bool.self), try row.value(4, Bool.self))
        guard owns else {
            throw PostgresStoreError.cannotSetUpRoles(
                store: store, reason: "\(user) does not own the schedule's tables; do it once as their owner, \(owner)")
        }
        guard userMayCreate else {
            throw PostgresStoreError.cannotSetUpRoles(
                store: store, reason: "\(user) may not create roles; a superuser can allow it: ALTER ROLE \(user) CREATEROLE")
        }
        guard ownerMayCreate else {
            throw PostgresStoreError.cannotSetUpRoles(
                store: store,
                reason: "the tables' owner \(owner) may not create roles, which it needs to grant them; a superuser can allow it: ALTER ROLE \(owner) CREATEROLE")
        }
    }

    /// Grants the groups to the database roles people are linked to already.
    private static func grantLinkedRoles(schema: String, store: String, _ session: PostgresSession) throws {
        let linked = try session.rows("""
            SELECT p.display_name, p.attributes::jsonb ->> 'db_role', coalesce(p.attributes::jsonb ->> 'role', ''),
                   EXISTS (SELECT 1 FROM pg_roles WHERE rolname = p.attributes::jsonb ->> 'db_role')
            FROM people p WHERE p.attributes::jsonb ? 'db_role' ORDER BY p.display_name
            """)
        for row in linked {
            let reader = RowReader(row)
            let (person, login, role, exists) = (try reader.text(0), try reader.text(1), try reader.text(2), try reader.value(3, Bool.self))
            guard exists else {
                throw PostgresStoreError.cannotSetUpRoles(
                    store: store, reason: "\(person) is linked to the database role \(login), which does not exist; create it, or unlink them (shiftctl person unlink)")
            }
            let groups = [Group.reader] + (Group(rawValue: role).map { $0 == .reader ? [] : [$0] } ?? [])
            for group in groups {
                try session.execute(PostgresQuery(unsafeSQL: "GRANT \(PostgresSchema.quoted(groupName(schema: schema, group))) TO \(PostgresSchema.quoted(login))"))
            }
        }
    }

    // MARK: Who is connected

    /// Who the session's connection is: its role, the person linked to it, whether roles are set
    /// up and checked for it, and the highest of the schedule's roles it holds.
    static func identity(_ session: PostgresSession) throws -> DatabaseIdentity {
        guard let first = try session.rows("""
            SELECT current_user::text, checks_roles(), EXISTS (SELECT 1 FROM database_roles),
                   ARRAY(SELECT role FROM database_roles WHERE role <> 'reader' AND pg_has_role(current_user, name, 'USAGE')),
                   p.id, p.display_name
            FROM (SELECT 1) one LEFT JOIN people p ON p.id = current_person()
            """).first else { throw ContentError(description: "the connection's identity could not be read") }
        let row = RowReader(first)
        let roles = try row.value(3, [String].self).compactMap(Role.init(rawValue:))
        return DatabaseIdentity(
            role: try row.text(0), personID: try row.optionalID(4), personName: try row.optionalText(5),
            rolesSetUp: try row.value(2, Bool.self), checked: try row.value(1, Bool.self), granted: roles.max())
    }

    /// Whether a role by this name exists on the server.
    static func roleExists(_ name: String, _ session: PostgresSession) throws -> Bool {
        try !session.rows("SELECT 1 FROM pg_roles WHERE rolname = \(name)").isEmpty
    }
}
