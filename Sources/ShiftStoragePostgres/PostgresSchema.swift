import Foundation
import PostgresNIO
import ShiftCore

/// The tables of a PostgreSQL schedule and the migrations that build them.
///
/// Each schedule of a database lives in a schema of its own (`shiftscheduler`, or
/// `shiftscheduler_<name>` for `?schedule=<name>`), so schedules never share a table, a lock or
/// an index page. Migrations are named and only ever appended; each one applied is a row of
/// `migrations`. A schema holding a migration this build does not know was set up by a newer
/// ShiftScheduler and is refused.
///
/// Layout (migrations `v1-schema`, `v2-created-shifts`; `v3-requests` adds the requests, see
/// `RequestTable`; `v4-database-roles` the database's own check of roles, see `PostgresRoles`):
/// - Ids are `uuid` (ordered by their bytes, which is `Identifier`'s order); dates are integer
///   day numbers (`LocalDate.dayNumber`); log instants are integer milliseconds since 1970.
/// - Attributes and `settings.extra` are JSON text as the JSON store writes them (NULL when
///   empty); durations are their text form (`07:00-19:00`, `all-day`).
/// - Foreign keys and the unique custom calendar UID are checked at commit (`DEFERRABLE
///   INITIALLY DEFERRED`), so a commit may write its rows in any order.
/// - `meta` holds the format, a random store id and the catalog generation, bumped by every
///   commit that changes anything but shifts and the log: the part of the schedule a store keeps
///   in memory. Shift writers only read it, so they never conflict over it.
/// - `change_log.seq` is the order entries were written; `xid` is the writing transaction's
///   id, by which a follower reads entries without missing one that committed late.
/// - `commits` has one row per commit (its transaction id, when, whether it changed the
///   catalog): the store's revision, and what observers read when woken by `NOTIFY`.
/// - A migration that adds a table of the schedule's data adds it to `PostgresRoles.dataTables`
///   and gives it the same row-level security policies (`v4-database-roles` made them for the
///   tables before it); its grants follow when it runs on a schedule whose roles are set up.
enum PostgresSchema {
    static let format = "shiftscheduler"
    /// The channel commits notify (payload: the schema name).
    static let channel = "shiftscheduler_commits"

    /// The migrations in order: a name and its statements (`{schema}` is the schema's name).
    static let migrations: [(name: String, statements: [String])] = [
        ("v1-schema", version1),
        // One change-log entry for the shifts a commit creates in bulk, instead of one each.
        ("v2-created-shifts", [
            "ALTER TABLE {schema}.change_log ADD COLUMN created_shift_ids bytea, ADD COLUMN created_last_date integer",
        ]),
        ("v3-requests", RequestTable.migration),
        ("v4-database-roles", PostgresRoles.migration),
    ]

    /// What a database holds for one schema.
    enum State: Equatable {
        /// No schema by this name (the database may hold other things: `foreignTables`).
        case empty(foreignTables: [String])
        case current
        /// Missing migrations this build has.
        case older(missing: [String])
        /// Migrations this build does not know.
        case newer(unknown: [String])
        /// A schema by this name that is not ShiftScheduler's.
        case foreign(String)
    }

    static func state(schema: String, _ session: PostgresSession) throws -> State {
        let exists = try session.rows("SELECT 1 FROM pg_namespace WHERE nspname = \(schema)")
        guard !exists.isEmpty else {
            // Tables outside ShiftScheduler's schemas: another application's database.
            let others = try session.rows("""
                SELECT schemaname || '.' || tablename FROM pg_tables
                WHERE schemaname NOT IN ('pg_catalog', 'information_schema') AND schemaname NOT LIKE 'shiftscheduler%'
                ORDER BY 1 LIMIT 3
                """).map { try $0.decode(String.self) }
            return .empty(foreignTables: others)
        }
        let tables = try session.rows("SELECT tablename FROM pg_tables WHERE schemaname = \(schema)").map { try $0.decode(String.self) }
        guard tables.contains("migrations"), tables.contains("meta") else {
            return tables.isEmpty ? .empty(foreignTables: []) : .foreign("schema \(schema) holds tables that are not ShiftScheduler's")
        }
        let format = try session.rows(PostgresQuery(unsafeSQL: "SELECT format FROM \(quoted(schema)).meta WHERE id = 1"))
            .first.map { try $0.decode(String.self) }
        guard format == Self.format else { return .foreign("schema \(schema) has a meta table that is not ShiftScheduler's") }
        let applied = Set(try session.rows(PostgresQuery(unsafeSQL: "SELECT name FROM \(quoted(schema)).migrations"))
            .map { try $0.decode(String.self) })
        let known = migrations.map(\.name)
        let unknown = applied.subtracting(known).sorted()
        if !unknown.isEmpty { return .newer(unknown: unknown) }
        let missing = known.filter { !applied.contains($0) }
        return missing.isEmpty ? .current : .older(missing: missing)
    }

    /// Creates the schema or applies the missing migrations, in one transaction under an
    /// advisory lock, so that two processes setting up one schedule at once do it once.
    static func migrate(schema: String, initialSettings: StoreSettings, _ session: PostgresSession) throws {
        try session.begin("BEGIN")
        do {
            try session.execute("SELECT pg_advisory_xact_lock(hashtext(\(schema)))")
            try session.execute(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(quoted(schema))"))
            try session.execute(PostgresQuery(unsafeSQL: """
                CREATE TABLE IF NOT EXISTS \(quoted(schema)).migrations (
                    name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())
                """))
            let applied = Set(try session.rows(PostgresQuery(unsafeSQL: "SELECT name FROM \(quoted(schema)).migrations"))
                .map { try $0.decode(String.self) })
            for migration in migrations where !applied.contains(migration.name) {
                for statement in migration.statements {
                    try session.execute(PostgresQuery(unsafeSQL: statement.replacingOccurrences(of: "{schema}", with: quoted(schema))))
                }
                if migration.name == "v1-schema" { try seed(schema: schema, initialSettings: initialSettings, session) }
                var binds = PostgresBindings()
                binds.append(migration.name)
                try session.execute(PostgresQuery(unsafeSQL: "INSERT INTO \(quoted(schema)).migrations (name) VALUES ($1)", binds: binds))
            }
            // Where the database checks roles, what a migration added gets its grants too.
            if try !session.rows(PostgresQuery(unsafeSQL: "SELECT 1 FROM \(quoted(schema)).database_roles LIMIT 1")).isEmpty {
                for statement in PostgresRoles.enforcement(schema: schema) { try session.execute(PostgresQuery(unsafeSQL: statement)) }
            }
            try session.commit()
        } catch {
            session.rollback()
            throw error
        }
    }

    private static func seed(schema: String, initialSettings: StoreSettings, _ session: PostgresSession) throws {
        var binds = PostgresBindings()
        binds.append(format)
        binds.append(UUID())
        try session.execute(PostgresQuery(
            unsafeSQL: "INSERT INTO \(quoted(schema)).meta (id, format, store_id, catalog_generation) VALUES (1, $1, $2, 0)", binds: binds))
        try session.execute(SettingsRow.insert(initialSettings))
    }

    /// A schema name as an SQL identifier (names are checked to be `[a-z0-9_]` already).
    static func quoted(_ name: String) -> String { "\"\(name)\"" }

    private static func snapshotColumns(_ prefix: String) -> String {
        """
            \(prefix)_shift_id uuid, \(prefix)_type_id uuid, \(prefix)_symbol text, \(prefix)_title text,
            \(prefix)_duration text, \(prefix)_date integer, \(prefix)_location_id uuid, \(prefix)_location_name text,
            \(prefix)_person_id uuid, \(prefix)_person_name text, \(prefix)_notes text
        """
    }

    private static let version1: [String] = [
        """
        CREATE TABLE {schema}.meta (
            id integer PRIMARY KEY CHECK (id = 1),
            format text NOT NULL,
            store_id uuid NOT NULL,
            catalog_generation bigint NOT NULL)
        """,
        """
        CREATE TABLE {schema}.settings (
            id integer PRIMARY KEY CHECK (id = 1),
            time_zone text NOT NULL,
            week_start text NOT NULL,
            change_log_retention text NOT NULL,
            extra text)
        """,
        "CREATE TABLE {schema}.locations (id uuid PRIMARY KEY, name text NOT NULL, address text NOT NULL, attributes text)",
        """
        CREATE TABLE {schema}.shift_types (
            id uuid PRIMARY KEY, symbol text NOT NULL, title text NOT NULL, description text NOT NULL,
            duration text NOT NULL,
            location_id uuid REFERENCES {schema}.locations (id) DEFERRABLE INITIALLY DEFERRED,
            attributes text)
        """,
        "CREATE INDEX shift_types_by_location ON {schema}.shift_types (location_id)",
        "CREATE TABLE {schema}.people (id uuid PRIMARY KEY, display_name text NOT NULL, attributes text)",
        """
        CREATE TABLE {schema}.shifts (
            id uuid PRIMARY KEY,
            type_id uuid NOT NULL REFERENCES {schema}.shift_types (id) DEFERRABLE INITIALLY DEFERRED,
            date integer NOT NULL,
            person_id uuid REFERENCES {schema}.people (id) DEFERRABLE INITIALLY DEFERRED,
            notes text,
            attributes text,
            event_identifier text,
            CONSTRAINT shifts_event_identifier_unique UNIQUE (event_identifier) DEFERRABLE INITIALLY DEFERRED)
        """,
        "CREATE INDEX shifts_by_person ON {schema}.shifts (person_id, date, id) INCLUDE (type_id)",
        "CREATE INDEX shifts_by_date ON {schema}.shifts (date, id)",
        "CREATE INDEX shifts_by_type ON {schema}.shifts (type_id, date)",
        """
        CREATE TABLE {schema}.demand (
            id uuid PRIMARY KEY, date integer, weekday integer CHECK (weekday BETWEEN 1 AND 7),
            type_id uuid NOT NULL REFERENCES {schema}.shift_types (id) DEFERRABLE INITIALLY DEFERRED,
            skill text, minimum integer NOT NULL, optimal integer NOT NULL,
            CHECK ((date IS NULL) <> (weekday IS NULL)))
        """,
        "CREATE INDEX demand_by_type ON {schema}.demand (type_id)",
        """
        CREATE TABLE {schema}.availability (
            id uuid PRIMARY KEY,
            person_id uuid NOT NULL REFERENCES {schema}.people (id) DEFERRABLE INITIALLY DEFERRED,
            from_date integer NOT NULL, to_date integer NOT NULL,
            type_id uuid REFERENCES {schema}.shift_types (id) DEFERRABLE INITIALLY DEFERRED,
            kind text NOT NULL, weight double precision)
        """,
        "CREATE INDEX availability_by_person ON {schema}.availability (person_id)",
        "CREATE INDEX availability_by_type ON {schema}.availability (type_id)",
        """
        CREATE TABLE {schema}.change_log (
            seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
            id uuid NOT NULL UNIQUE,
            timestamp bigint NOT NULL,
            user_id text NOT NULL,
            user_display_name text NOT NULL,
            change_type text NOT NULL,
            shift_date integer NOT NULL,
            reason text,
        \(snapshotColumns("old")),
        \(snapshotColumns("new")))
        """,
        "CREATE INDEX change_log_by_timestamp ON {schema}.change_log (timestamp)",
        "CREATE INDEX change_log_by_xid ON {schema}.change_log (xid, seq)",
        """
        CREATE TABLE {schema}.commits (
            seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
            committed_at timestamptz NOT NULL DEFAULT now(),
            catalog boolean NOT NULL)
        """,
        "CREATE INDEX commits_by_xid ON {schema}.commits (xid)",
    ]
}
