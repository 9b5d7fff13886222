import Foundation
import PostgresNIO
import ShiftCore

/// The requests of a PostgreSQL schedule (migration `v3-requests`): one row a request in
/// `requests`, and its state changes in `request_history`, appended as they happen. Kept apart
/// from the other tables so that the change log's layout can change on its own.
enum RequestTable {
    static let columns = [
        "id", "kind", "requester_id", "shift_id", "shift_type_id", "shift_date", "shift_person_id", "colleague_id",
        "colleague_shift_id", "colleague_shift_type_id", "colleague_shift_date", "colleague_shift_person_id",
        "from_date", "to_date", "type_id",
    ]
    static let historyColumns = ["request_id", "position", "state", "timestamp", "user_id", "user_display_name", "reason"]

    static let migration: [String] = [
        """
        CREATE TABLE {schema}.requests (
            id uuid PRIMARY KEY,
            kind text NOT NULL,
            requester_id uuid NOT NULL REFERENCES {schema}.people (id) DEFERRABLE INITIALLY DEFERRED,
            shift_id uuid, shift_type_id uuid, shift_date integer, shift_person_id uuid,
            colleague_id uuid REFERENCES {schema}.people (id) DEFERRABLE INITIALLY DEFERRED,
            colleague_shift_id uuid, colleague_shift_type_id uuid, colleague_shift_date integer, colleague_shift_person_id uuid,
            from_date integer, to_date integer,
            type_id uuid REFERENCES {schema}.shift_types (id) DEFERRABLE INITIALLY DEFERRED)
        """,
        "CREATE INDEX requests_by_requester ON {schema}.requests (requester_id)",
        "CREATE INDEX requests_by_shift ON {schema}.requests (shift_id)",
        """
        CREATE TABLE {schema}.request_history (
            request_id uuid NOT NULL REFERENCES {schema}.requests (id) DEFERRABLE INITIALLY DEFERRED,
            position integer NOT NULL,
            state text NOT NULL,
            timestamp bigint NOT NULL,
            user_id text NOT NULL,
            user_display_name text NOT NULL,
            reason text,
            PRIMARY KEY (request_id, position))
        """,
    ]

    private static func placeholders(_ count: Int) -> String { (1...count).map { "$\($0)" }.joined(separator: ", ") }

    /// Writes a request's change: a new row with its history, the transitions added to a
    /// stored one, or the row and its history gone.
    static func apply(before: Request?, after: Request?, _ session: PostgresSession) throws {
        switch (before, after) {
        case let (nil, after?):
            var binds = PostgresBindings(capacity: columns.count)
            bind(after, &binds)
            try session.execute(PostgresQuery(
                unsafeSQL: "INSERT INTO requests (\(columns.joined(separator: ", "))) VALUES (\(placeholders(columns.count)))",
                binds: binds))
            try appendHistory(of: after, from: 0, session)
        case let (before?, after?):
            try appendHistory(of: after, from: before.history.count, session)
        case let (before?, nil):
            var binds = PostgresBindings()
            binds.append(before.id.rawValue)
            try session.execute(PostgresQuery(unsafeSQL: "DELETE FROM request_history WHERE request_id = $1", binds: binds))
            guard try session.execute(PostgresQuery(unsafeSQL: "DELETE FROM requests WHERE id = $1", binds: binds)) == 1 else {
                throw ContentError(description: "requests holds no row \(before.id) for this commit to change")
            }
        case (nil, nil): break
        }
    }

    private static func appendHistory(of request: Request, from start: Int, _ session: PostgresSession) throws {
        for position in start..<request.history.count {
            let transition = request.history[position]
            var b = PostgresBindings(capacity: historyColumns.count)
            b.id(request.id)
            b.append(Int32(position))
            b.append(transition.state.rawValue)
            b.append(Millis.of(transition.timestamp))
            b.append(transition.userId)
            b.append(transition.userDisplayName)
            b.append(transition.reason)
            try session.execute(PostgresQuery(
                unsafeSQL: "INSERT INTO request_history (\(historyColumns.joined(separator: ", "))) VALUES (\(placeholders(historyColumns.count)))",
                binds: b))
        }
    }

    private static func bind(_ request: Request, _ b: inout PostgresBindings) {
        b.id(request.id)
        b.append(request.kind.rawValue)
        b.id(request.requesterID)
        bind(request.shift, &b)
        b.id(request.colleagueID)
        bind(request.colleagueShift, &b)
        b.append(request.from?.dayNumber)
        b.append(request.to?.dayNumber)
        b.id(request.shiftTypeID)
    }

    private static func bind(_ seen: SeenShift?, _ b: inout PostgresBindings) {
        b.id(seen?.shiftID)
        b.id(seen?.shiftTypeID)
        b.append(seen?.date.dayNumber)
        b.id(seen?.personID)
    }

    /// Every request with its history.
    static func all(_ session: PostgresSession) throws -> [Request] {
        var histories: [RequestID: [RequestTransition]] = [:]
        let history = try session.rows(PostgresQuery(unsafeSQL: """
            SELECT state, timestamp, user_id, user_display_name, reason, request_id FROM request_history
            ORDER BY request_id, position
            """))
        for row in history {
            let reader = RowReader(row)
            let stateText = try reader.text(0)
            guard let state = RequestState(rawValue: stateText) else {
                throw ContentError(description: "request_history: '\(stateText)' is not a request state")
            }
            let transition = RequestTransition(
                state: state, timestamp: Millis.date(try reader.int(1)), userId: try reader.text(2),
                userDisplayName: try reader.text(3), reason: try reader.optionalText(4))
            histories[try reader.id(5), default: []].append(transition)
        }
        var requests: [Request] = []
        for row in try session.rows(PostgresQuery(unsafeSQL: "SELECT \(columns.joined(separator: ", ")) FROM requests ORDER BY id")) {
            let reader = RowReader(row)
            let id: RequestID = try reader.id(0)
            let kindText = try reader.text(1)
            guard let kind = RequestKind(rawValue: kindText) else {
                throw ContentError(description: "requests \(id): '\(kindText)' is not a request kind")
            }
            func optionalDate(_ index: Int) throws -> LocalDate? { reader.isNull(index) ? nil : try reader.date(index) }
            func seen(_ first: Int) throws -> SeenShift? {
                guard !reader.isNull(first) else { return nil }
                return SeenShift(
                    shiftID: try reader.id(first), shiftTypeID: try reader.id(first + 1), date: try reader.date(first + 2),
                    personID: try reader.optionalID(first + 3))
            }
            requests.append(Request(
                id: id, kind: kind, requesterID: try reader.id(2), shift: try seen(3), colleagueID: try reader.optionalID(7),
                colleagueShift: try seen(8), from: try optionalDate(12), to: try optionalDate(13),
                shiftTypeID: try reader.optionalID(14), history: histories[id] ?? []))
        }
        return requests
    }
}
