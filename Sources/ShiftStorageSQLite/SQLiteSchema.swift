import Foundation
import GRDB
import ShiftCore

/// The tables of a SQLite store and the migrations that build them.
///
/// Migrations are named and only ever appended. Each one ends by setting `meta.version` to its
/// number, so a build that meets a higher number (or a migration it does not know) refuses the
/// store instead of writing over a layout it does not understand.
///
/// Layout (version 3; version 1 lacked the two `created_*` columns of `change_log`, version 2
/// the requests, see `RequestTable`):
/// - Ids are 16-byte BLOBs: the UUID's bytes, whose order is `Identifier`'s `<` (and the order
///   of their lowercase text), so `ORDER BY id` is id order and a hex prefix is a BLOB range.
/// - Dates are INTEGER day numbers (`LocalDate.dayNumber`); change-log instants are INTEGER
///   milliseconds since 1970, the precision the log keeps (`Timestamp.truncated`).
/// - Attributes and `settings.extra` are JSON text written as the JSON store writes them (NULL
///   when empty). Durations are their text form (`07:00-19:00`, `all-day`).
/// - `change_log.seq` (the rowid) is the commit order. Snapshots are columns (`old_*`, `new_*`),
///   NULL when the entry has none; they are history and reference nothing. An entry for the
///   shifts one commit created (`CreatedShifts`) keeps their ids in `created_shift_ids`, 16 bytes
///   each back to back, and their latest date in `created_last_date`.
/// - The two big tables, `shifts` and `change_log`, keep rows by an integer rowid (`seq`) and
///   every key, their unique ids too, in separate indexes: a bulk `write` drops the indexes,
///   appends the rows and builds each index in one sorted pass.
/// - Foreign keys are checked at commit (`DEFERRABLE INITIALLY DEFERRED`), so one transaction
///   may touch rows in any order; removing a referenced row fails the commit.
/// - `meta` holds the format name, version, a random store id, the generation (bumped by every
///   commit; the store's revision) and the row counts of `shifts` and `change_log`.
enum SQLiteSchema {
    static let format = "shiftscheduler"
    /// The version this build reads and writes.
    static let currentVersion = 3

    /// The migrations, in order. `initialSettings` are the settings a new store starts with.
    static func migrator(initialSettings: StoreSettings) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-schema") { db in
            try db.execute(sql: version1)
            var storeID = UUID().uuid
            let storeIDBytes = withUnsafeBytes(of: &storeID) { Data($0) }
            try db.execute(
                sql: """
                    INSERT INTO meta (id, format, version, store_id, generation, shift_count, change_log_count)
                    VALUES (1, ?, 1, ?, 0, 0, 0)
                    """,
                arguments: [format, storeIDBytes])
            try SettingsRow.insert(initialSettings, db)
        }
        // One change-log entry for the shifts a commit creates in bulk, instead of one each.
        migrator.registerMigration("v2-created-shifts") { db in
            try db.execute(sql: """
                ALTER TABLE change_log ADD COLUMN created_shift_ids BLOB;
                ALTER TABLE change_log ADD COLUMN created_last_date INTEGER;
                UPDATE meta SET version = 2 WHERE id = 1;
                """)
        }
        // Version 3: requests and their history, in tables of their own (`RequestTable`).
        migrator.registerMigration("v3-requests") { db in
            try db.execute(sql: RequestTable.schema)
            try db.execute(sql: "UPDATE meta SET version = 3 WHERE id = 1")
        }
        return migrator
    }

    private static func snapshotColumns(_ prefix: String) -> String {
        """
            \(prefix)_shift_id BLOB,
            \(prefix)_type_id BLOB,
            \(prefix)_symbol TEXT,
            \(prefix)_title TEXT,
            \(prefix)_duration TEXT,
            \(prefix)_date INTEGER,
            \(prefix)_location_id BLOB,
            \(prefix)_location_name TEXT,
            \(prefix)_person_id BLOB,
            \(prefix)_person_name TEXT,
            \(prefix)_notes TEXT
        """
    }

    private static let version1 = """
        CREATE TABLE meta (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            format TEXT NOT NULL,
            version INTEGER NOT NULL,
            store_id BLOB NOT NULL,
            generation INTEGER NOT NULL,
            shift_count INTEGER NOT NULL,
            change_log_count INTEGER NOT NULL
        );
        CREATE TABLE settings (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            time_zone TEXT NOT NULL,
            week_start TEXT NOT NULL,
            change_log_retention TEXT NOT NULL,
            extra TEXT
        );
        CREATE TABLE locations (
            id BLOB PRIMARY KEY NOT NULL,
            name TEXT NOT NULL,
            address TEXT NOT NULL,
            attributes TEXT
        );
        CREATE TABLE shift_types (
            id BLOB PRIMARY KEY NOT NULL,
            symbol TEXT NOT NULL,
            title TEXT NOT NULL,
            description TEXT NOT NULL,
            duration TEXT NOT NULL,
            location_id BLOB REFERENCES locations(id) DEFERRABLE INITIALLY DEFERRED,
            attributes TEXT
        );
        CREATE INDEX shift_types_by_location ON shift_types(location_id);
        CREATE TABLE people (
            id BLOB PRIMARY KEY NOT NULL,
            display_name TEXT NOT NULL,
            attributes TEXT
        );
        CREATE TABLE shifts (
            seq INTEGER PRIMARY KEY,
            id BLOB NOT NULL,
            type_id BLOB NOT NULL REFERENCES shift_types(id) DEFERRABLE INITIALLY DEFERRED,
            date INTEGER NOT NULL,
            person_id BLOB REFERENCES people(id) DEFERRABLE INITIALLY DEFERRED,
            notes TEXT,
            attributes TEXT,
            event_identifier TEXT
        );
        CREATE UNIQUE INDEX shifts_by_id ON shifts(id);
        CREATE INDEX shifts_by_person ON shifts(person_id, date, id, type_id);
        CREATE INDEX shifts_by_date ON shifts(date, id);
        CREATE INDEX shifts_by_type ON shifts(type_id, date);
        CREATE UNIQUE INDEX shifts_by_event_identifier ON shifts(event_identifier) WHERE event_identifier IS NOT NULL;
        CREATE TABLE demand (
            id BLOB PRIMARY KEY NOT NULL,
            date INTEGER,
            weekday INTEGER CHECK (weekday BETWEEN 1 AND 7),
            type_id BLOB NOT NULL REFERENCES shift_types(id) DEFERRABLE INITIALLY DEFERRED,
            skill TEXT,
            minimum INTEGER NOT NULL,
            optimal INTEGER NOT NULL,
            CHECK ((date IS NULL) <> (weekday IS NULL))
        );
        CREATE INDEX demand_by_type ON demand(type_id);
        CREATE TABLE availability (
            id BLOB PRIMARY KEY NOT NULL,
            person_id BLOB NOT NULL REFERENCES people(id) DEFERRABLE INITIALLY DEFERRED,
            from_date INTEGER NOT NULL,
            to_date INTEGER NOT NULL,
            type_id BLOB REFERENCES shift_types(id) DEFERRABLE INITIALLY DEFERRED,
            kind TEXT NOT NULL,
            weight REAL
        );
        CREATE INDEX availability_by_person ON availability(person_id);
        CREATE INDEX availability_by_type ON availability(type_id);
        CREATE TABLE change_log (
            seq INTEGER PRIMARY KEY,
            id BLOB NOT NULL,
            timestamp INTEGER NOT NULL,
            user_id TEXT NOT NULL,
            user_display_name TEXT NOT NULL,
            change_type TEXT NOT NULL,
            shift_date INTEGER NOT NULL,
            reason TEXT,
        \(snapshotColumns("old")),
        \(snapshotColumns("new"))
        );
        CREATE UNIQUE INDEX change_log_by_id ON change_log(id);
        CREATE INDEX change_log_by_timestamp ON change_log(timestamp);
        """
}
