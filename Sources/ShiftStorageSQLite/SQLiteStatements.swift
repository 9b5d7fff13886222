import Foundation
import GRDB
import GRDBSQLite
import ShiftCore

// Statements are prepared and cached by GRDB (`db.cachedStatement`); values are bound and read
// here through the C API, so a row costs no boxed `DatabaseValue`s and a bad value in the file is
// a thrown error rather than a crash.

/// SQLite copies the bytes before the bind call returns.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
private let emptyText: StaticString = ""

/// A value in the file that cannot be read back: the table, row and column, and why.
struct ContentError: Error, CustomStringConvertible {
    let description: String
}

/// Binds one row of parameters, in order, to a prepared statement.
struct Binder {
    /// Kept so the prepared statement outlives its use even if the cache drops it.
    private let owner: Statement
    let statement: SQLiteStatement
    private var index: CInt = 1

    init(_ statement: Statement) {
        owner = statement
        self.statement = statement.sqliteStatement
        sqlite3_reset(self.statement)
        sqlite3_clear_bindings(self.statement)
    }

    mutating func id<Entity>(_ value: Identifier<Entity>) {
        withUnsafeBytes(of: value.rawValue.uuid) { bytes in
            _ = sqlite3_bind_blob(statement, index, bytes.baseAddress, 16, transient)
        }
        index += 1
    }

    mutating func id<Entity>(_ value: Identifier<Entity>?) {
        if let value { id(value) } else { null() }
    }

    mutating func int(_ value: Int64) {
        sqlite3_bind_int64(statement, index, value)
        index += 1
    }

    mutating func int(_ value: Int) { int(Int64(value)) }

    mutating func date(_ value: LocalDate) { int(Int64(value.dayNumber)) }

    mutating func date(_ value: LocalDate?) {
        if let value { date(value) } else { null() }
    }

    mutating func double(_ value: Double?) {
        if let value { sqlite3_bind_double(statement, index, value) } else { sqlite3_bind_null(statement, index) }
        index += 1
    }

    mutating func text(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            if utf8.isEmpty {
                // A nil pointer would bind NULL, not the empty string.
                emptyText.withUTF8Buffer { empty in
                    _ = sqlite3_bind_text(statement, index, UnsafeRawPointer(empty.baseAddress!).assumingMemoryBound(to: CChar.self), 0, nil)
                }
            } else {
                _ = sqlite3_bind_text(
                    statement, index, UnsafeRawPointer(utf8.baseAddress!).assumingMemoryBound(to: CChar.self), CInt(utf8.count), transient)
            }
        }
        index += 1
    }

    mutating func text(_ value: String?) {
        if let value { text(value) } else { null() }
    }

    /// Binds bytes as a BLOB (an empty one too, which a nil pointer would make NULL).
    mutating func blob(_ bytes: [UInt8]) {
        if bytes.isEmpty {
            sqlite3_bind_zeroblob(statement, index, 0)
        } else {
            bytes.withUnsafeBytes { _ = sqlite3_bind_blob(statement, index, $0.baseAddress, CInt($0.count), transient) }
        }
        index += 1
    }

    mutating func null() {
        sqlite3_bind_null(statement, index)
        index += 1
    }

    /// Runs a statement that returns no rows; returns how many rows it changed.
    @discardableResult
    func execute(_ db: Database) throws -> Int {
        defer { sqlite3_reset(statement) }
        let code = sqlite3_step(statement)
        guard code == SQLITE_DONE else { throw SQLiteFailure.error(code, db, statement) }
        return db.changesCount
    }

    /// Runs a query and calls `body` with each row.
    func forEachRow(_ db: Database, _ body: (Columns) throws -> Void) throws {
        defer { sqlite3_reset(statement) }
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else { throw SQLiteFailure.error(code, db, statement) }
            try body(Columns(statement: statement))
        }
    }

    /// The first row of a query, read by `body` (nil when there is none).
    func firstRow<T>(_ db: Database, _ body: (Columns) throws -> T) throws -> T? {
        defer { sqlite3_reset(statement) }
        let code = sqlite3_step(statement)
        if code == SQLITE_DONE { return nil }
        guard code == SQLITE_ROW else { throw SQLiteFailure.error(code, db, statement) }
        return try body(Columns(statement: statement))
    }
}

enum SQLiteFailure {
    static func error(_ code: CInt, _ db: Database, _ statement: SQLiteStatement) -> DatabaseError {
        DatabaseError(
            resultCode: ResultCode(rawValue: code),
            message: db.sqliteConnection.map { String(cString: sqlite3_errmsg($0)) },
            sql: String(cString: sqlite3_sql(statement)))
    }
}

/// The columns of the current row, read by index. Reads that find the wrong kind of value throw
/// `ContentError` naming the column.
struct Columns {
    let statement: SQLiteStatement

    func isNull(_ index: CInt) -> Bool { sqlite3_column_type(statement, index) == SQLITE_NULL }

    func int(_ index: CInt) throws -> Int64 {
        guard sqlite3_column_type(statement, index) == SQLITE_INTEGER else { throw mismatch(index, "an integer") }
        return sqlite3_column_int64(statement, index)
    }

    func double(_ index: CInt) throws -> Double? {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_NULL: return nil
        case SQLITE_FLOAT, SQLITE_INTEGER: return sqlite3_column_double(statement, index)
        default: throw mismatch(index, "a number")
        }
    }

    func date(_ index: CInt) throws -> LocalDate {
        let day = try int(index)
        let range = Int64(LocalDate.minimum.dayNumber)...Int64(LocalDate.maximum.dayNumber)
        guard range.contains(day) else { throw mismatch(index, "a day number within years 1…9999") }
        return LocalDate(dayNumber: Int32(day))
    }

    func text(_ index: CInt) throws -> String {
        guard sqlite3_column_type(statement, index) == SQLITE_TEXT else { throw mismatch(index, "text") }
        let count = Int(sqlite3_column_bytes(statement, index))
        guard count > 0, let bytes = sqlite3_column_text(statement, index) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    func optionalText(_ index: CInt) throws -> String? {
        isNull(index) ? nil : try text(index)
    }

    func uuid(_ index: CInt) throws -> UUID {
        guard sqlite3_column_type(statement, index) == SQLITE_BLOB, sqlite3_column_bytes(statement, index) == 16,
              let blob = sqlite3_column_blob(statement, index) else { throw mismatch(index, "a 16-byte id") }
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &raw) { $0.copyMemory(from: UnsafeRawBufferPointer(start: blob, count: 16)) }
        return UUID(uuid: raw)
    }

    /// The bytes of a blob column, read in place (valid only inside `body`).
    func withBlob<T>(_ index: CInt, _ body: (UnsafeRawBufferPointer) throws -> T) throws -> T {
        guard sqlite3_column_type(statement, index) == SQLITE_BLOB else { throw mismatch(index, "bytes") }
        let count = Int(sqlite3_column_bytes(statement, index))
        guard count > 0, let bytes = sqlite3_column_blob(statement, index) else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return try body(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    func id<Entity>(_ index: CInt) throws -> Identifier<Entity> { Identifier(try uuid(index)) }

    func optionalID<Entity>(_ index: CInt) throws -> Identifier<Entity>? {
        isNull(index) ? nil : try id(index)
    }

    /// A description of the column for errors: its name.
    func name(_ index: CInt) -> String { String(cString: sqlite3_column_name(statement, index)) }

    private func mismatch(_ index: CInt, _ expected: String) -> ContentError {
        ContentError(description: "column \(name(index)) does not hold \(expected)")
    }
}

/// Instants in the change log are whole milliseconds since 1970 (what `Timestamp.truncated` keeps).
enum Millis {
    /// The stored value of a log timestamp (nearest millisecond, as the JSON store formats it).
    static func of(_ date: Date) -> Int64 {
        clamp((date.timeIntervalSince1970 * 1000).rounded())
    }

    static func date(_ millis: Int64) -> Date { Date(timeIntervalSince1970: Double(millis) / 1000) }

    /// The least stored value whose instant is `>= bound`: `timestamp >= bound` in memory is
    /// `timestamp >= lower(bound)` in the file, exactly.
    static func lower(_ bound: Date) -> Int64 {
        var millis = clamp((bound.timeIntervalSince1970 * 1000).rounded(.up))
        while millis > Int64.min, date(millis - 1) >= bound { millis -= 1 }
        while millis < Int64.max, date(millis) < bound { millis += 1 }
        return millis
    }

    /// The greatest stored value whose instant is `<= bound`.
    static func upper(_ bound: Date) -> Int64 {
        var millis = clamp((bound.timeIntervalSince1970 * 1000).rounded(.down))
        while millis < Int64.max, date(millis + 1) <= bound { millis += 1 }
        while millis > Int64.min, date(millis) > bound { millis -= 1 }
        return millis
    }

    private static func clamp(_ value: Double) -> Int64 {
        guard value.isFinite else { return value > 0 ? Int64.max : Int64.min }
        // 2^53: beyond it doubles are not whole milliseconds anyway, and Int64(value) must not trap.
        return Int64(max(-9.0e15, min(9.0e15, value)))
    }
}
