import Foundation
import GRDB
import GRDBSQLite
import ShiftCore
import ShiftStorage
import Synchronization

/// The shifts and change log of a SQLite store, read on demand for a `Schedule` opened over it.
///
/// Every answer is the store's last commit: each call is one read transaction on one of the
/// pool's reader connections (WAL lets them run beside each other and beside a writer), so the
/// rule engine's workers read at once. While the store holds its write lock nobody else commits,
/// so a mutation's rules all see the same state. Statements are prepared once per connection.
///
/// The source never writes and is never read from inside the repository's write transaction
/// (GRDB does not allow a read to start inside a write on the same pool).
final class SQLiteScheduleSource: ScheduleSource {
    private let pool: DatabasePool
    private let path: String
    private let failure = Mutex<(any Error)?>(nil)
    /// Where recent walks through the log stopped, so the next page starts at a seq instead of
    /// skipping `offset` rows.
    private let cursors = Mutex<[LogCursor]>([])

    private struct LogCursor {
        var generation: Int64
        var notBefore: Int64?
        var offset: Int
        var lastSeq: Int64
    }

    init(pool: DatabasePool, path: String) {
        self.pool = pool
        self.path = path
    }

    // MARK: Shifts

    var shiftCount: Int {
        read(0) { db in Int(try Meta.read(db).shiftCount) }
    }

    var shiftDateRange: ClosedRange<LocalDate>? {
        read(nil) { db in try Self.dateRange(db) }
    }

    /// The earliest and latest date of a shift, from the two ends of the date index.
    /// - Throws: `ContentError` when the index puts a later date first (a damaged database).
    static func dateRange(_ db: Database) throws -> ClosedRange<LocalDate>? {
        let sql = "SELECT (SELECT min(date) FROM shifts), (SELECT max(date) FROM shifts)"
        return try Binder(try db.cachedStatement(sql: sql)).firstRow(db) { row -> ClosedRange<LocalDate>? in
            guard !row.isNull(0), !row.isNull(1) else { return nil }
            let (first, last) = (try row.date(0), try row.date(1))
            // A damaged date index can put a later date first.
            guard first <= last else { throw ContentError(description: "the shifts' date index is out of order (the database is damaged)") }
            return first...last
        } ?? nil
    }

    /// Refuses a database whose date index is out of order, when the store is opened: queries
    /// no longer ask for the dates' range, so a command would otherwise read the damaged index
    /// without noticing. Two index probes.
    static func checkDateIndex(_ db: Database) throws {
        _ = try dateRange(db)
    }

    func shift(_ id: ShiftID) -> ScheduledShift? {
        read(nil) { db in
            var binder = Binder(try db.cachedStatement(sql: "SELECT \(ShiftTable.columnList) FROM shifts WHERE id = ?1"))
            binder.id(id)
            return try binder.firstRow(db, ShiftTable.decodeRow)
        }
    }

    func shift(customEventIdentifier: String) -> ScheduledShift? {
        read(nil) { db in
            let sql = "SELECT \(ShiftTable.columnList) FROM shifts WHERE event_identifier = ?1"
            var binder = Binder(try db.cachedStatement(sql: sql))
            binder.text(customEventIdentifier)
            return try binder.firstRow(db, ShiftTable.decodeRow)
        }
    }

    func shifts(_ request: ShiftSourceRequest) -> [ScheduledShift] {
        if request.from > request.to || (request.limit ?? 1) <= 0 || request.shiftTypeIDs?.isEmpty == true { return [] }
        if request.unassignedOnly, request.personID != nil { return [] }
        return read([]) { db in
            var sql = "SELECT \(ShiftTable.columnList) FROM shifts WHERE date BETWEEN ?1 AND ?2"
            var parameter = 3
            if request.personID != nil {
                sql += " AND person_id = ?\(parameter)"
                parameter += 1
            } else if request.unassignedOnly {
                sql += " AND person_id IS NULL"
            }
            if let types = request.shiftTypeIDs {
                sql += " AND type_id IN (" + types.indices.map { "?\(parameter + $0)" }.joined(separator: ", ") + ")"
                parameter += types.count
            }
            sql += request.newestFirst ? " ORDER BY date DESC, id DESC" : " ORDER BY date, id"
            sql += " LIMIT ?\(parameter)"

            var binder = Binder(try db.cachedStatement(sql: sql))
            binder.date(request.from)
            binder.date(request.to)
            if let person = request.personID { binder.id(person) }
            for type in request.shiftTypeIDs ?? [] { binder.id(type) }
            binder.int(request.limit ?? -1)
            var result: [ScheduledShift] = []
            try binder.forEachRow(db) { result.append(try ShiftTable.decodeRow($0)) }
            return result
        }
    }

    func shiftReferences(of person: PersonID, from: LocalDate, to: LocalDate) -> [ShiftReference] {
        guard from <= to else { return [] }
        return read([]) { db in
            let sql = "SELECT date, id, type_id FROM shifts WHERE person_id = ?1 AND date BETWEEN ?2 AND ?3 ORDER BY date, id"
            var binder = Binder(try db.cachedStatement(sql: sql))
            binder.id(person)
            binder.date(from)
            binder.date(to)
            var result: [ShiftReference] = []
            try binder.forEachRow(db) { row in
                result.append(ShiftReference(date: try row.date(0), id: try row.id(1), type: try row.id(2)))
            }
            return result
        }
    }

    func shiftCount(ofType type: ShiftTypeID) -> Int {
        read(0) { db in
            var binder = Binder(try db.cachedStatement(sql: "SELECT count(*) FROM shifts WHERE type_id = ?1"))
            binder.id(type)
            return Int(try binder.firstRow(db) { try $0.int(0) } ?? 0)
        }
    }

    /// One pass over the person index (`shifts_by_person` covers it).
    func shiftCountsByPerson() -> [PersonID: Int]? {
        read(nil) { db in
            var binder = Binder(try db.cachedStatement(
                sql: "SELECT person_id, count(*) FROM shifts WHERE person_id IS NOT NULL GROUP BY person_id"))
            var counts: [PersonID: Int] = [:]
            try binder.forEachRow(db) { row in counts[try row.id(0)] = Int(try row.int(1)) }
            return counts
        }
    }

    func shiftCount(of person: PersonID, from: LocalDate?) -> Int {
        read(0) { db in
            var binder = Binder(try db.cachedStatement(sql: "SELECT count(*) FROM shifts WHERE person_id = ?1 AND date >= ?2"))
            binder.id(person)
            binder.int(from.map { Int64($0.dayNumber) } ?? Int64.min)
            return Int(try binder.firstRow(db) { try $0.int(0) } ?? 0)
        }
    }

    func shifts(idPrefix: String, limit: Int) -> [ScheduledShift] {
        guard limit > 0, let range = IDPrefix(idPrefix) else { return [] }
        return read([]) { db in
            var sql = "SELECT \(ShiftTable.columnList) FROM shifts WHERE id >= ?1"
            if range.upper != nil { sql += " AND id < ?2" }
            sql += " ORDER BY id LIMIT ?\(range.upper == nil ? 2 : 3)"
            var binder = Binder(try db.cachedStatement(sql: sql))
            binder.blob(range.lower)
            if let upper = range.upper { binder.blob(upper) }
            binder.int(limit)
            var result: [ScheduledShift] = []
            try binder.forEachRow(db) { result.append(try ShiftTable.decodeRow($0)) }
            return result
        }
    }

    // MARK: Change log

    func changeLogCount(notBefore: Date?) -> Int {
        read(0) { db in
            guard let notBefore else { return Int(try Meta.read(db).changeLogCount) }
            var binder = Binder(try db.cachedStatement(sql: "SELECT count(*) FROM change_log WHERE timestamp >= ?1"))
            binder.int(Millis.lower(notBefore))
            return Int(try binder.firstRow(db) { try $0.int(0) } ?? 0)
        }
    }

    func changeLogEntries(notBefore: Date?, offset: Int, limit: Int) -> [ChangeLogEntry] {
        guard offset >= 0, limit > 0 else { return [] }
        return read([]) { db in
            let meta = try Meta.read(db)
            let lower = notBefore.map(Millis.lower)
            // The filter is on the rows walked in seq order (`+timestamp` keeps SQLite from
            // sorting a timestamp-index range instead).
            let filter = lower == nil ? "" : " AND +timestamp >= ?3"
            let columns = ChangeLogTable.columnList + ", seq"
            let statement: Statement
            let start: Int64
            var skip: Int?
            if let cursor = cursor(generation: meta.generation, notBefore: lower, offset: offset) {
                statement = try db.cachedStatement(sql: "SELECT \(columns) FROM change_log WHERE seq > ?1\(filter) ORDER BY seq LIMIT ?2")
                start = cursor.lastSeq
            } else if lower == nil, let first = try Self.firstSeqIfDense(db, count: meta.changeLogCount) {
                // Seqs without gaps (nothing deleted but a prefix): the offset is arithmetic.
                statement = try db.cachedStatement(sql: "SELECT \(columns) FROM change_log WHERE seq > ?1 ORDER BY seq LIMIT ?2")
                start = first + Int64(offset) - 1
            } else {
                let sql = "SELECT \(columns) FROM change_log WHERE seq > ?1\(filter) ORDER BY seq LIMIT ?2 OFFSET ?\(lower == nil ? 3 : 4)"
                statement = try db.cachedStatement(sql: sql)
                start = Int64.min
                skip = offset
            }
            var binder = Binder(statement)
            binder.int(start)
            binder.int(limit)
            if let lower { binder.int(lower) }
            if let skip { binder.int(skip) }
            var result: [ChangeLogEntry] = []
            var lastSeq = start
            try binder.forEachRow(db) { row in
                result.append(try ChangeLogTable.decodeRow(row))
                lastSeq = try row.int(CInt(ChangeLogTable.columns.count))
            }
            if !result.isEmpty {
                remember(LogCursor(generation: meta.generation, notBefore: lower, offset: offset + result.count, lastSeq: lastSeq))
            }
            return result
        }
    }

    func changeLogEntries(from: Date?, to: Date?, newestFirst: Bool, limit: Int?) -> [ChangeLogEntry] {
        if let limit, limit <= 0 { return [] }
        return read([]) { db in
            var conditions: [String] = []
            if from != nil { conditions.append("timestamp >= ?2") }
            if to != nil { conditions.append("timestamp <= ?3") }
            let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
            // What `log` lists: a bulk entry's ids are read only if asked for (its JSON output).
            let sql = "SELECT \(ChangeLogTable.columnListCountingIDs) FROM change_log\(filter) ORDER BY seq\(newestFirst ? " DESC" : "") LIMIT ?1"
            var binder = Binder(try db.cachedStatement(sql: sql))
            binder.int(limit ?? -1)
            binder.int(from.map(Millis.lower) ?? Int64.min)
            binder.int(to.map(Millis.upper) ?? Int64.max)
            var result: [ChangeLogEntry] = []
            try binder.forEachRow(db) { result.append(try ChangeLogTable.decodeDeferringIDs($0, load: self.createdShiftIDs)) }
            return result
        }
    }

    /// The ids a bulk entry created, read when a deferred entry is asked for them.
    private func createdShiftIDs(of id: ChangeLogEntryID) throws -> [ShiftID] {
        do {
            guard let ids = try pool.read({ try ChangeLogTable.createdShiftIDs(of: id, $0) }) else {
                throw ContentError(description: "change_log \(id): the entry is gone or lists no shifts")
            }
            return ids
        } catch let error as ContentError {
            throw StorageError.unreadable(path: path, reason: "\(error)")
        } catch {
            throw SQLiteRepository.readError(error, path: path)
        }
    }

    func containsChangeLogEntry(_ id: ChangeLogEntryID) -> Bool {
        read(false) { db in
            var binder = Binder(try db.cachedStatement(sql: "SELECT 1 FROM change_log WHERE id = ?1"))
            binder.id(id)
            return try binder.firstRow(db) { _ in true } ?? false
        }
    }

    // MARK: Failures

    func takeFailure() -> (any Error)? {
        failure.withLock { failure in
            defer { failure = nil }
            return failure
        }
    }

    // MARK: Helpers

    /// Runs a read; a failure is remembered for `takeFailure()` and `fallback` returned.
    private func read<T>(_ fallback: T, _ body: (Database) throws -> T) -> T {
        do {
            return try pool.read(body)
        } catch {
            // The file is ours (it opened): damage met now is a store that cannot be read, not
            // another program's file, as the same error at open would say.
            let reported: any Error = switch error {
            case let error as DatabaseError where error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB:
                StorageError.unreadable(path: path, reason: "the database is damaged (\(error.message ?? "corrupt"))")
            default: SQLiteRepository.readError(error, path: path)
            }
            failure.withLock { failure in
                if failure == nil { failure = reported }
            }
            return fallback
        }
    }

    /// The first seq when the log's seqs are consecutive (nil when some in the middle are gone).
    private static func firstSeqIfDense(_ db: Database, count: Int64) throws -> Int64? {
        let sql = "SELECT (SELECT min(seq) FROM change_log), (SELECT max(seq) FROM change_log)"
        return try Binder(try db.cachedStatement(sql: sql)).firstRow(db) { row -> Int64? in
            guard !row.isNull(0), !row.isNull(1) else { return count == 0 ? 1 : nil }
            let first = try row.int(0)
            return try row.int(1) - first + 1 == count ? first : nil
        } ?? nil
    }

    private func cursor(generation: Int64, notBefore: Int64?, offset: Int) -> LogCursor? {
        cursors.withLock { cursors in
            cursors.first { $0.generation == generation && $0.notBefore == notBefore && $0.offset == offset }
        }
    }

    private func remember(_ cursor: LogCursor) {
        cursors.withLock { cursors in
            cursors.removeAll { $0.generation != cursor.generation || ($0.notBefore == cursor.notBefore && $0.offset <= cursor.offset) }
            cursors.append(cursor)
            if cursors.count > 8 { cursors.removeFirst(cursors.count - 8) }
        }
    }
}

/// The BLOB range of the ids whose lowercase text starts with a prefix (`4f1c`, `4f1c0a2e-9`).
struct IDPrefix: Equatable {
    /// The least id bytes with the prefix (a shorter BLOB sorts before every longer one it starts).
    var lower: [UInt8]
    /// The least bytes past the prefix; nil when every id from `lower` on has it (`ffff…`).
    var upper: [UInt8]?

    /// nil when no id's text can start with `prefix` (a character that is not a lowercase hex
    /// digit, or a dash out of place, or longer than an id).
    init?(_ prefix: String) {
        let dashes: Set<Int> = [8, 13, 18, 23]
        var nibbles: [UInt8] = []
        for (position, byte) in prefix.utf8.enumerated() {
            guard position < 36 else { return nil }
            if dashes.contains(position) {
                guard byte == UInt8(ascii: "-") else { return nil }
                continue
            }
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibbles.append(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibbles.append(byte - UInt8(ascii: "a") + 10)
            default: return nil
            }
        }
        lower = Self.bytes(nibbles)
        var next = nibbles
        while let last = next.last, last == 15 { next.removeLast() }
        if next.isEmpty {
            upper = nil
        } else {
            next[next.count - 1] += 1
            upper = Self.bytes(next)
        }
    }

    /// Nibbles as bytes, an odd last one as the high half of a byte.
    private static func bytes(_ nibbles: [UInt8]) -> [UInt8] {
        stride(from: 0, to: nibbles.count, by: 2).map { index in
            nibbles[index] << 4 | (index + 1 < nibbles.count ? nibbles[index + 1] : 0)
        }
    }
}
