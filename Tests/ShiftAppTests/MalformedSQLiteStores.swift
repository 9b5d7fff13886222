import Foundation
import GRDB
import ShiftCore
import TestSupport
import Testing

/// Damaged and foreign SQLite stores: each is refused with exit 2 and one line naming the store
/// and what is wrong, and nothing is written (`MalformedInputTests.damagedSQLiteStoresAreRefused`).
extension MalformedInputTests {
    /// One damaged database: what to do to a fresh valid store (checkpointed, so the store file
    /// holds all of it), the commands to run against it (each checked on its own), and what the
    /// first line of stderr must say besides the store's name.
    struct SQLiteCase: Sendable, CustomTestStringConvertible {
        let name: String
        let prepare: @Sendable (_ sandbox: Sandbox, _ path: String) throws -> Void
        var commands: [[String]] = [["person", "list"], MalformedInputTests.mutation]
        let says: [String]
        /// Whether the store file must stay byte for byte the same. It does when the store is
        /// refused before SQLite opens it for writing; once it is open, GRDB's pool commits a
        /// transaction that creates and drops a table (to start the `-wal` file) and SQLite checks
        /// it in on close, so only the content (the dump, which reads the meta row's generation
        /// and counts too) is compared.
        var sameBytes = true
        var testDescription: String { name }
    }

    static func sqliteCase(_ name: String, _ says: [String], _ prepare: @escaping @Sendable (String) throws -> Void) -> SQLiteCase {
        SQLiteCase(name: name, prepare: { try prepare($1) }, says: ["schedule.sqlite"] + says)
    }

    /// The store's file replaced by these bytes.
    static func sqliteBytes(_ name: String, _ says: [String], _ make: @escaping @Sendable (Data) -> [UInt8]) -> SQLiteCase {
        sqliteCase(name, says) { path in try SQLiteFile.replace(path, with: make(try Data(contentsOf: URL(fileURLWithPath: path)))) }
    }

    /// SQL run on the store behind the repository's back (foreign keys off when asked).
    static func sqliteEdit(_ name: String, _ says: [String], foreignKeys: Bool = true, opened: Bool = false, _ sql: String) -> SQLiteCase {
        var input = sqliteCase(name, says) { path in try SQLiteFile.execute(path, sql, foreignKeys: foreignKeys) }
        input.sameBytes = !opened
        return input
    }

    static let aPerson = "INSERT INTO people (id, display_name) VALUES (X'5e1f0000000040008000000000000009', "

    static let sqliteStoreCases: [SQLiteCase] = [
        // Not a database, or not all of one.
        sqliteBytes("empty file", ["empty"]) { _ in [] },
        sqliteBytes("truncated to 100 bytes", ["damaged"]) { Array($0.prefix(100)) },
        sqliteBytes("truncated to its first page", ["damaged"]) { Array($0.prefix(SQLiteFile.pageSize(of: $0))) },
        sqliteBytes("random bytes", ["not a SQLite database"]) { _ in
            var random = SplitMix64(seed: 6)
            return (0..<8192).map { _ in UInt8.random(in: 0...255, using: &random) }
        },
        sqliteBytes("a SQLite header and then random bytes", ["not a SQLite database"]) { _ in
            var random = SplitMix64(seed: 7)
            return Array("SQLite format 3\0".utf8) + (16..<8192).map { _ in UInt8.random(in: 0...255, using: &random) }
        },
        // Valid SQLite, but not a ShiftScheduler store.
        sqliteCase("another program's database", ["not a ShiftScheduler store", "without ShiftScheduler's tables"]) { path in
            try SQLiteFile.replace(path, with: [])
            try SQLiteFile.execute(path, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('hello')")
        },
        sqliteCase("another program's database in WAL mode", ["not a ShiftScheduler store", "without ShiftScheduler's tables"]) { path in
            try SQLiteFile.replace(path, with: [])
            try SQLiteFile.execute(path, "PRAGMA journal_mode = WAL", transaction: false)
            try SQLiteFile.execute(path, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('hello')")
        },
        sqliteCase("another program's meta table", ["not a ShiftScheduler store", "meta"]) { path in
            try SQLiteFile.replace(path, with: [])
            try SQLiteFile.execute(path, "CREATE TABLE meta (key TEXT, value TEXT); INSERT INTO meta VALUES ('owner', 'someone else')")
        },
        sqliteEdit("the meta row is gone", ["not a ShiftScheduler store", "meta"], "DELETE FROM meta"),
        // Written by a newer build.
        sqliteEdit("a future format version", ["version 99", "newer", "upgrade"], "UPDATE meta SET version = 99"),
        sqliteEdit("a migration this build does not know", ["newer", "upgrade"],
                   "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future')"),
        // A catalog that breaks a core invariant.
        sqliteEdit("an empty display name", ["displayName", "must not be empty"], opened: true, aPerson + "'')"),
        sqliteEdit("a control character in a name", ["displayName", "control character"], opened: true, aPerson + "'Bo' || char(27) || '[2Jb')"),
        sqliteEdit("an unknown time zone", ["settings.timeZone", "Mars/Olympus"], opened: true, "UPDATE settings SET time_zone = 'Mars/Olympus'"),
        sqliteEdit("a duration that is not one", ["duration", "24:00-08:00"], opened: true, "UPDATE shift_types SET duration = '24:00-08:00'"),
        sqliteEdit("a shift type whose location is gone", ["location"], foreignKeys: false, opened: true,
                   "UPDATE shift_types SET location_id = X'5e1f0000000040008000000000000001'"),
        sqliteEdit("an id that is not 16 bytes", ["shift_types"], opened: true, "UPDATE shift_types SET id = 'D'"),
        sqliteEdit("two shift types with one symbol", ["symbol"], opened: true,
                   "INSERT INTO shift_types SELECT X'5e1f0000000040008000000000000002', symbol, title, description, duration, location_id, attributes FROM shift_types"),
        // A damaged date index (found by fuzzing: it crashed on a date range whose first day
        // came after its last): the index claims the opposite order of its entries.
        SQLiteCase(name: "a date index out of order", prepare: { _, path in
            try SQLiteFile.execute(path, """
                INSERT INTO shifts (id, type_id, date) SELECT X'5e1f0000000040008000000000000071', id, 20513 FROM shift_types;
                INSERT INTO shifts (id, type_id, date) SELECT X'5e1f0000000040008000000000000072', id, 20544 FROM shift_types;
                UPDATE meta SET shift_count = shift_count + 2
                """)
            try SQLiteFile.execute(path, """
                PRAGMA writable_schema = ON;
                UPDATE sqlite_master SET sql = 'CREATE INDEX shifts_by_date ON shifts(date DESC, id)' WHERE name = 'shifts_by_date';
                PRAGMA writable_schema = OFF
                """, transaction: false)
        }, commands: [["schedule", "list"], ["validate"]], says: ["schedule.sqlite", "date index", "damaged"], sameBytes: false),
        // The catalog opens, the shifts' pages are damaged: a command that reads them fails.
        // (`validate` reads only what its rules judge, each person's shifts through the index;
        // these open shifts are in no one's timeline, so it is not among these commands.)
        SQLiteCase(name: "damaged shift pages", prepare: { sandbox, path in try damageShiftPages(sandbox, path) },
                   commands: [["schedule", "list"], ["schedule", "add", "--type", "D", "--date", "2031-06-01"],
                              ["export", "--file-format", "csv"]],
                   says: ["schedule.sqlite", "malformed"], sameBytes: false),
    ]

    /// A shift row whose shift type is gone, written behind the store's back. A SQLite store
    /// checks its catalog when it opens but reads shifts only when asked, so this is met when the
    /// shift is read; removing or switching that shift must be refused with a message saying the
    /// store is damaged (it once crashed on the change-log snapshot of a shift with no type).
    @Test func aShiftWhoseTypeIsGoneIsRefusedNotACrash() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let store = try Self.validStore(.sqlite, in: sandbox)
        try SQLiteFile.execute(sandbox.path + "/" + store, """
            INSERT INTO shifts (id, type_id, date) VALUES (X'5e1f0000000040008000000000000077', X'5e1f0000000040008000000000000078', 20000);
            UPDATE meta SET shift_count = shift_count + 1
            """, foreignKeys: false)
        for arguments in [["schedule", "remove", "5e1f0000"], ["switch", "5e1f0000", "--to", "D"]] {
            try Self.expectRefused(.sqlite, sandbox, name: arguments.joined(separator: " "), arguments: arguments,
                                   says: ["store is damaged", "5e1f0000"], sameBytes: false, environment: ["SWIFT_BACKTRACE": "enable=no"])
        }
    }

    /// A store of 3 000 shifts whose `shifts` table has its pages in the middle third of the file
    /// overwritten: the catalog (written first, at the front) still opens, and the damaged pages
    /// include the table's last leaf, where `schedule add` inserts.
    static func damageShiftPages(_ sandbox: Sandbox, _ path: String) throws {
        let rows = (0..<3_000).map { "\(LocalDate("2020-01-01")!.adding(days: $0 % 1_000)),D,,shift \($0)\n" }.joined()
        try sandbox.write("date,type,person,notes\n" + rows, to: "big.csv")
        let result = try sandbox.run("--store", "schedule.sqlite", "import", "big.csv")
        try #require(result.status == 0, "\(result.stderr)")
        try FileManager.default.removeItem(atPath: sandbox.path + "/big.csv")
        try SQLiteFile.checkpoint(path)
        let pages = try SQLiteFile.pages(of: "shifts", in: path)
        let size = try SQLiteFile.pageSize(path)
        let fileSize = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        // The table's pages past the first third of the file: every scan of the shifts meets them,
        // and so does adding one (its row goes into the last leaf). The import is one log entry,
        // so the shifts fill most of the file.
        let middle = pages.filter { $0 > fileSize / size / 3 }
        try #require(middle.count >= 3, "shift pages in the middle of the file: \(pages)")
        let file = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        for page in middle {
            try file.seek(toOffset: UInt64((page - 1) * size))
            try file.write(contentsOf: Data(repeating: 0xA5, count: size))
        }
        try file.close()
        // The damage is where it was meant to be: the catalog and the meta row still read, the
        // shifts do not.
        let dump = SQLiteFile.dump(path)
        #expect(dump.contains("shifts unreadable") && dump.contains("\nmeta ") && dump.contains("\nshift_types "), "\(dump.prefix(2_000))")
    }
}

/// SQLite files handled behind the repository's back (through GRDB, not `shiftctl`).
enum SQLiteFile {
    /// Moves everything in the `-wal` file into the database file and closes, so SQLite removes
    /// the `-wal` and `-shm` files: the store file alone then holds the store.
    static func checkpoint(_ path: String) throws {
        let queue = try DatabaseQueue(path: path)
        _ = try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        try queue.close()
    }

    /// Runs SQL in one transaction (or none, for pragmas that need that) and closes.
    static func execute(_ path: String, _ sql: String, foreignKeys: Bool = true, transaction: Bool = true) throws {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = foreignKeys
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        if transaction {
            try queue.write { try $0.execute(sql: sql) }
        } else {
            try queue.writeWithoutTransaction { try $0.execute(sql: sql) }
        }
        try queue.close()
    }

    /// Replaces the store's file by these bytes, with no journal files left beside it.
    static func replace(_ path: String, with bytes: [UInt8]) throws {
        for suffix in ["-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// The page size a database file's header gives (bytes 16–17, big-endian; 1 means 65 536).
    static func pageSize(of header: Data) -> Int {
        let value = Int(header[header.startIndex + 16]) << 8 | Int(header[header.startIndex + 17])
        return value == 1 ? 65_536 : value
    }

    static func pageSize(_ path: String) throws -> Int {
        try DatabaseQueue(path: path).read { try Int.fetchOne($0, sql: "PRAGMA page_size") ?? 4096 }
    }

    /// The pages (1-based numbers) of a table's B-tree, from SQLite's `dbstat` table.
    static func pages(of table: String, in path: String) throws -> [Int] {
        try DatabaseQueue(path: path).read { db in
            try Int.fetchAll(db, sql: "SELECT pageno FROM dbstat WHERE name = ? ORDER BY pageno", arguments: [table])
        }
    }

    /// The logical content of a database: its schema and every row of every table, as SQLite
    /// reads them (the `-wal` file included), through a read-only connection. For a file SQLite
    /// cannot read, the error.
    static func dump(_ path: String) -> String {
        do {
            var configuration = Configuration()
            configuration.readonly = true
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            var text = ""
            let tables = try queue.read { db in
                for row in try Row.fetchAll(db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name") {
                    text += "\(row)\n"
                }
                return try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            }
            // Table by table, each in its own read, so that a damaged table still leaves the
            // others compared.
            for table in tables {
                do {
                    let rows = try queue.read { try Row.fetchAll($0, sql: "SELECT * FROM \(table.quotedDatabaseIdentifier)") }
                    for row in rows { text += "\(table) \(row)\n" }
                } catch {
                    text += "\(table) unreadable\n"
                }
            }
            return text
        } catch {
            return "unreadable: \(error)"
        }
    }
}
