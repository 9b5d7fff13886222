import Foundation
import PostgresNIO
import ShiftCore
import Synchronization

/// The shifts and change log of a PostgreSQL schedule, read on demand for a `Schedule` opened
/// over it: every query the rules, scripts and commands make is one indexed SQL query, so a
/// change never reads the schedule.
///
/// Reads go through the repository's session: inside the funnel's SERIALIZABLE transaction while
/// a mutation is checked (so PostgreSQL's conflict detection covers what the rules looked at),
/// else each on its own (the last committed state). A read that fails returns nothing and is
/// remembered for `takeFailure()`; the funnel throws it before committing, so a serialization
/// failure met by a rule's read makes the mutation run again.
final class PostgresScheduleSource: ScheduleSource {
    private let session: PostgresSession
    private let failure = Mutex<(any Error)?>(nil)

    init(session: PostgresSession) {
        self.session = session
    }

    // MARK: Shifts

    var shiftCount: Int {
        read(0) { Int(try RowReader(try first("SELECT count(*) FROM shifts")).int(0)) }
    }

    var shiftDateRange: ClosedRange<LocalDate>? {
        read(nil) {
            let row = RowReader(try first("SELECT (SELECT min(date) FROM shifts), (SELECT max(date) FROM shifts)"))
            guard !row.isNull(0), !row.isNull(1) else { return nil }
            return try row.date(0)...row.date(1)
        }
    }

    /// The SQL condition "this person's shifts from this date to that one" as a range of the
    /// person index's keys, `(person_id, date)` between two rows. Written as `person_id = … AND
    /// date BETWEEN …`, a short range ties with the date index in the planner's estimate, and
    /// whenever the date index wins, the read takes SERIALIZABLE's lock on that day's page of it:
    /// then every writer booking anyone on that day conflicts with this transaction. A row
    /// comparison only the person index can serve keeps the read, and its lock, on this person.
    static func personRange(person: String, from: String, to: String) -> String {
        "(person_id, date) >= (\(person), \(from)) AND (person_id, date) <= (\(person), \(to))"
    }

    /// `select` over one person's shifts from day number `from` to `to` (`personRange`).
    private static func personQuery(_ select: String, _ person: PersonID, _ from: Int32, _ to: Int32, then rest: String = "") -> PostgresQuery {
        var binds = PostgresBindings()
        binds.append(from)
        binds.append(to)
        binds.id(person)
        return PostgresQuery(unsafeSQL: select + " WHERE " + personRange(person: "$3", from: "$1", to: "$2") + rest, binds: binds)
    }

    func shift(_ id: ShiftID) -> ScheduledShift? {
        read(nil) {
            try session.rows("SELECT \(unescaped: ShiftTable.columnList) FROM shifts WHERE id = \(id.rawValue)")
                .first.map(ShiftTable.decodeRow)
        }
    }

    func shift(customEventIdentifier: String) -> ScheduledShift? {
        read(nil) {
            try session.rows("SELECT \(unescaped: ShiftTable.columnList) FROM shifts WHERE event_identifier = \(customEventIdentifier)")
                .first.map(ShiftTable.decodeRow)
        }
    }

    func shifts(_ request: ShiftSourceRequest) -> [ScheduledShift] {
        if request.from > request.to || (request.limit ?? 1) <= 0 || request.shiftTypeIDs?.isEmpty == true { return [] }
        if request.unassignedOnly, request.personID != nil { return [] }
        return read([]) {
            var binds = PostgresBindings()
            binds.date(request.from)
            binds.date(request.to)
            var sql = "SELECT \(ShiftTable.columnList) FROM shifts WHERE "
            if let person = request.personID {
                // One person's dates as a range of the person index's keys (see `personRange`).
                binds.id(person)
                sql += Self.personRange(person: "$3", from: "$1", to: "$2")
            } else {
                sql += "date BETWEEN $1 AND $2"
                if request.unassignedOnly { sql += " AND person_id IS NULL" }
            }
            if let types = request.shiftTypeIDs {
                let first = binds.count + 1
                for type in types { binds.id(type) }
                sql += " AND type_id IN (" + (first...binds.count).map { "$\($0)" }.joined(separator: ", ") + ")"
            }
            switch (request.personID != nil, request.newestFirst) {
            case (true, false): sql += " ORDER BY person_id, date, id"
            case (true, true): sql += " ORDER BY person_id DESC, date DESC, id DESC"
            case (false, false): sql += " ORDER BY date, id"
            case (false, true): sql += " ORDER BY date DESC, id DESC"
            }
            if let limit = request.limit {
                binds.append(Int64(limit))
                sql += " LIMIT $\(binds.count)"
            }
            return try session.rows(PostgresQuery(unsafeSQL: sql, binds: binds)).map(ShiftTable.decodeRow)
        }
    }

    func shiftReferences(of person: PersonID, from: LocalDate, to: LocalDate) -> [ShiftReference] {
        guard from <= to else { return [] }
        return read([]) {
            try session.rows(Self.personQuery("SELECT date, id, type_id FROM shifts", person, from.dayNumber, to.dayNumber,
                                              then: " ORDER BY person_id, date, id")).map { row in
                let reader = RowReader(row)
                return ShiftReference(date: try reader.date(0), id: try reader.id(1), type: try reader.id(2))
            }
        }
    }

    func shiftCount(ofType type: ShiftTypeID) -> Int {
        read(0) { Int(try RowReader(try first("SELECT count(*) FROM shifts WHERE type_id = \(type.rawValue)")).int(0)) }
    }

    func shiftCountsByPerson() -> [PersonID: Int]? {
        read(nil) {
            var counts: [PersonID: Int] = [:]
            for row in try session.rows("SELECT person_id, count(*) FROM shifts WHERE person_id IS NOT NULL GROUP BY person_id") {
                let reader = RowReader(row)
                counts[try reader.id(0)] = Int(try reader.int(1))
            }
            return counts
        }
    }

    func shiftCount(of person: PersonID, from: LocalDate?) -> Int {
        read(0) {
            let query = Self.personQuery("SELECT count(*) FROM shifts", person, from?.dayNumber ?? Int32.min, Int32.max)
            return Int(try RowReader(try first(query)).int(0))
        }
    }

    func shifts(idPrefix: String, limit: Int) -> [ScheduledShift] {
        guard limit > 0, let range = IDRange(idPrefix) else { return [] }
        return read([]) {
            var binds = PostgresBindings()
            binds.append(range.lower)
            var sql = "SELECT \(ShiftTable.columnList) FROM shifts WHERE id >= $1"
            if let upper = range.upper {
                binds.append(upper)
                sql += " AND id < $2"
            }
            binds.append(Int64(limit))
            sql += " ORDER BY id LIMIT $\(binds.count)"
            return try session.rows(PostgresQuery(unsafeSQL: sql, binds: binds)).map(ShiftTable.decodeRow)
        }
    }

    // MARK: Change log

    func changeLogCount(notBefore: Date?) -> Int {
        read(0) {
            let lower = notBefore.map(Millis.lower) ?? Int64.min
            return Int(try RowReader(try first("SELECT count(*) FROM change_log WHERE timestamp >= \(lower)")).int(0))
        }
    }

    func changeLogEntries(notBefore: Date?, offset: Int, limit: Int) -> [ChangeLogEntry] {
        guard offset >= 0, limit > 0 else { return [] }
        return read([]) {
            let lower = notBefore.map(Millis.lower) ?? Int64.min
            return try session.rows("""
                SELECT \(unescaped: ChangeLogTable.columnList) FROM change_log WHERE timestamp >= \(lower)
                ORDER BY seq LIMIT \(Int64(limit)) OFFSET \(Int64(offset))
                """).map(ChangeLogTable.decodeRow)
        }
    }

    /// By key: each page starts after the last page's `seq`, one range read of the primary key,
    /// however far into the log it is.
    func changeLogPage(notBefore: Date?, after cursor: ChangeLogCursor?, limit: Int) -> (entries: [ChangeLogEntry], next: ChangeLogCursor) {
        let start = cursor ?? ChangeLogCursor(position: 0)
        guard limit > 0 else { return ([], start) }
        return read(([], start)) {
            let lower = notBefore.map(Millis.lower) ?? Int64.min
            let rows = try session.rows("""
                SELECT \(unescaped: ChangeLogTable.columnList), seq FROM change_log
                WHERE seq > \(start.key ?? Int64.min) AND timestamp >= \(lower)
                ORDER BY seq LIMIT \(Int64(limit))
                """)
            let entries = try rows.map(ChangeLogTable.decodeRow)
            guard let last = rows.last else { return ([], start) }
            let seq = try RowReader(last).int(ChangeLogTable.columns.count)
            return (entries, ChangeLogCursor(position: start.position + entries.count, key: seq))
        }
    }

    func changeLogEntries(from: Date?, to: Date?, newestFirst: Bool, limit: Int?) -> [ChangeLogEntry] {
        if let limit, limit <= 0 { return [] }
        return read([]) {
            let lower = from.map(Millis.lower) ?? Int64.min
            let upper = to.map(Millis.upper) ?? Int64.max
            let order = newestFirst ? "DESC" : ""
            let count = limit.map(Int64.init) ?? Int64.max
            return try session.rows("""
                SELECT \(unescaped: ChangeLogTable.columnList) FROM change_log WHERE timestamp BETWEEN \(lower) AND \(upper)
                ORDER BY seq \(unescaped: order) LIMIT \(count)
                """).map(ChangeLogTable.decodeRow)
        }
    }

    func containsChangeLogEntry(_ id: ChangeLogEntryID) -> Bool {
        read(false) { !(try session.rows("SELECT 1 FROM change_log WHERE id = \(id.rawValue)")).isEmpty }
    }

    // MARK: Failures

    func takeFailure() -> (any Error)? {
        failure.withLock { failure in
            defer { failure = nil }
            return failure
        }
    }

    // MARK: Helpers

    private func first(_ query: PostgresQuery) throws -> PostgresRow {
        guard let row = try session.rows(query).first else { throw ContentError(description: "a count returned no row") }
        return row
    }

    /// Runs a read; a failure is remembered for `takeFailure()` and `fallback` returned.
    private func read<T>(_ fallback: T, _ body: () throws -> T) -> T {
        do {
            return try body()
        } catch {
            let reported = PostgresRepository.readError(error, store: session.store)
            failure.withLock { failure in
                if failure == nil { failure = reported }
            }
            return fallback
        }
    }
}

/// The uuid range of the ids whose lowercase text starts with a prefix (`4f1c`, `4f1c0a2e-9`).
struct IDRange {
    var lower: UUID
    /// The least id past the prefix; nil when every id from `lower` on has it.
    var upper: UUID?

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
        lower = Self.uuid(nibbles)
        var next = nibbles
        while let last = next.last, last == 15 { next.removeLast() }
        if next.isEmpty {
            upper = nil
        } else {
            next[next.count - 1] += 1
            upper = Self.uuid(next)
        }
    }

    /// Nibbles as the high part of a uuid, the rest zero.
    private static func uuid(_ nibbles: [UInt8]) -> UUID {
        var bytes = [UInt8](repeating: 0, count: 16)
        for (index, nibble) in nibbles.enumerated() {
            bytes[index / 2] |= index.isMultiple(of: 2) ? nibble << 4 : nibble
        }
        return bytes.withUnsafeBytes { UUID(uuid: $0.load(as: uuid_t.self)) }
    }
}
