import Foundation
import GRDB
import ShiftCore

/// The requests of a SQLite store (migration `v3-requests`): one row a request in `requests`,
/// and its state changes in `request_history`, appended as they happen. Kept apart from the
/// other tables so that the change log's layout can change on its own.
enum RequestTable {
    static let columns = [
        "id", "kind", "requester_id", "shift_id", "shift_type_id", "shift_date", "shift_person_id", "colleague_id",
        "colleague_shift_id", "colleague_shift_type_id", "colleague_shift_date", "colleague_shift_person_id",
        "from_date", "to_date", "type_id",
    ]
    static let historyColumns = ["request_id", "position", "state", "timestamp", "user_id", "user_display_name", "reason"]

    static let schema = """
        CREATE TABLE requests (
            id BLOB PRIMARY KEY NOT NULL,
            kind TEXT NOT NULL,
            requester_id BLOB NOT NULL REFERENCES people(id) DEFERRABLE INITIALLY DEFERRED,
            shift_id BLOB,
            shift_type_id BLOB,
            shift_date INTEGER,
            shift_person_id BLOB,
            colleague_id BLOB REFERENCES people(id) DEFERRABLE INITIALLY DEFERRED,
            colleague_shift_id BLOB,
            colleague_shift_type_id BLOB,
            colleague_shift_date INTEGER,
            colleague_shift_person_id BLOB,
            from_date INTEGER,
            to_date INTEGER,
            type_id BLOB REFERENCES shift_types(id) DEFERRABLE INITIALLY DEFERRED
        );
        CREATE INDEX requests_by_requester ON requests(requester_id);
        CREATE INDEX requests_by_shift ON requests(shift_id);
        CREATE TABLE request_history (
            request_id BLOB NOT NULL REFERENCES requests(id) DEFERRABLE INITIALLY DEFERRED,
            position INTEGER NOT NULL,
            state TEXT NOT NULL,
            timestamp INTEGER NOT NULL,
            user_id TEXT NOT NULL,
            user_display_name TEXT NOT NULL,
            reason TEXT,
            PRIMARY KEY (request_id, position)
        );
        """

    private static func placeholders(_ count: Int) -> String { (1...count).map { "?\($0)" }.joined(separator: ", ") }
    private static let insertSQL = "INSERT INTO requests (\(columns.joined(separator: ", "))) VALUES (\(placeholders(columns.count)))"
    private static let historySQL =
        "INSERT INTO request_history (\(historyColumns.joined(separator: ", "))) VALUES (\(placeholders(historyColumns.count)))"

    /// Writes a request's change: a new row with its history, the transitions added to a
    /// stored one, or the row and its history gone.
    static func apply(before: Request?, after: Request?, _ db: Database) throws {
        switch (before, after) {
        case let (nil, after?):
            var binder = Binder(try db.cachedStatement(sql: insertSQL))
            bind(after, &binder)
            _ = try binder.execute(db)
            try appendHistory(of: after, from: 0, db)
        case let (before?, after?):
            try appendHistory(of: after, from: before.history.count, db)
        case let (before?, nil):
            var history = Binder(try db.cachedStatement(sql: "DELETE FROM request_history WHERE request_id = ?1"))
            history.id(before.id)
            _ = try history.execute(db)
            var row = Binder(try db.cachedStatement(sql: "DELETE FROM requests WHERE id = ?1"))
            row.id(before.id)
            guard try row.execute(db) == 1 else { throw ContentError(description: "requests: no row for \(before.id)") }
        case (nil, nil): break
        }
    }

    private static func appendHistory(of request: Request, from start: Int, _ db: Database) throws {
        for position in start..<request.history.count {
            let transition = request.history[position]
            var b = Binder(try db.cachedStatement(sql: historySQL))
            b.id(request.id)
            b.int(position)
            b.text(transition.state.rawValue)
            b.int(Millis.of(transition.timestamp))
            b.text(transition.userId)
            b.text(transition.userDisplayName)
            b.text(transition.reason)
            _ = try b.execute(db)
        }
    }

    private static func bind(_ request: Request, _ b: inout Binder) {
        b.id(request.id)
        b.text(request.kind.rawValue)
        b.id(request.requesterID)
        bind(request.shift, &b)
        b.id(request.colleagueID)
        bind(request.colleagueShift, &b)
        b.date(request.from)
        b.date(request.to)
        b.id(request.shiftTypeID)
    }

    private static func bind(_ seen: SeenShift?, _ b: inout Binder) {
        b.id(seen?.shiftID)
        b.id(seen?.shiftTypeID)
        b.date(seen?.date)
        b.id(seen?.personID)
    }

    /// Every request with its history.
    static func all(_ db: Database) throws -> [Request] {
        var histories: [RequestID: [RequestTransition]] = [:]
        let historyQuery = "SELECT \(historyColumns.dropFirst(2).joined(separator: ", ")), request_id FROM request_history ORDER BY request_id, position"
        try Binder(try db.cachedStatement(sql: historyQuery)).forEachRow(db) { row in
            let stateText = try row.text(0)
            guard let state = RequestState(rawValue: stateText) else {
                throw ContentError(description: "request_history: '\(stateText)' is not a request state")
            }
            let transition = RequestTransition(
                state: state, timestamp: Millis.date(try row.int(1)), userId: try row.text(2),
                userDisplayName: try row.text(3), reason: try row.optionalText(4))
            histories[try row.id(5), default: []].append(transition)
        }
        var requests: [Request] = []
        try Binder(try db.cachedStatement(sql: "SELECT \(columns.joined(separator: ", ")) FROM requests")).forEachRow(db) { row in
            let id: RequestID = try row.id(0)
            let kindText = try row.text(1)
            guard let kind = RequestKind(rawValue: kindText) else {
                throw ContentError(description: "requests \(id): '\(kindText)' is not a request kind")
            }
            func optionalDate(_ index: CInt) throws -> LocalDate? { row.isNull(index) ? nil : try row.date(index) }
            func seen(_ first: CInt) throws -> SeenShift? {
                guard !row.isNull(first) else { return nil }
                return SeenShift(
                    shiftID: try row.id(first), shiftTypeID: try row.id(first + 1), date: try row.date(first + 2),
                    personID: try row.optionalID(first + 3))
            }
            requests.append(Request(
                id: id, kind: kind, requesterID: try row.id(2), shift: try seen(3), colleagueID: try row.optionalID(7),
                colleagueShift: try seen(8), from: try optionalDate(12), to: try optionalDate(13),
                shiftTypeID: try row.optionalID(14), history: histories[id] ?? []))
        }
        return requests
    }
}
