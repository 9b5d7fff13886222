import Foundation
import PostgresNIO
import ShiftCore
import ShiftStorage

/// Bad content met in a row, with the table, row and column.
struct ContentError: Error, CustomStringConvertible {
    let description: String
}

/// One entity kind's table: its columns (the id first) and how an entity becomes bindings and a
/// row becomes an entity. Statements number their parameters (`$1` is the id).
protocol EntityTable {
    associatedtype Entity: Identifiable where Entity.ID == Identifier<Entity>
    static var table: String { get }
    static var columns: [String] { get }
    static func bind(_ entity: Entity, _ binds: inout PostgresBindings)
    static func decode(_ row: RowReader) throws -> Entity
}

extension EntityTable {
    static var columnList: String { columns.joined(separator: ", ") }

    static func insert(_ entity: Entity) -> PostgresQuery {
        var binds = PostgresBindings(capacity: columns.count)
        bind(entity, &binds)
        let values = (1...columns.count).map { "$\($0)" }.joined(separator: ", ")
        return PostgresQuery(unsafeSQL: "INSERT INTO \(table) (\(columnList)) VALUES (\(values))", binds: binds)
    }

    /// One statement inserting many rows (at most 65535 parameters a statement).
    static func insert(_ entities: some Collection<Entity>) -> PostgresQuery {
        var binds = PostgresBindings(capacity: columns.count * entities.count)
        var tuples: [String] = []
        tuples.reserveCapacity(entities.count)
        for (row, entity) in entities.enumerated() {
            bind(entity, &binds)
            let first = row * columns.count
            tuples.append("(" + (1...columns.count).map { "$\(first + $0)" }.joined(separator: ",") + ")")
        }
        return PostgresQuery(unsafeSQL: "INSERT INTO \(table) (\(columnList)) VALUES " + tuples.joined(separator: ","), binds: binds)
    }

    /// How many rows go into one multi-row insert.
    static var batchSize: Int { 60_000 / columns.count }

    static func update(_ entity: Entity) -> PostgresQuery {
        var binds = PostgresBindings(capacity: columns.count)
        bind(entity, &binds)
        let assignments = columns.enumerated().dropFirst().map { "\($1) = $\($0 + 1)" }.joined(separator: ", ")
        return PostgresQuery(unsafeSQL: "UPDATE \(table) SET \(assignments) WHERE id = $1", binds: binds)
    }

    static func delete(_ id: Entity.ID) -> PostgresQuery {
        var binds = PostgresBindings()
        binds.append(id.rawValue)
        return PostgresQuery(unsafeSQL: "DELETE FROM \(table) WHERE id = $1", binds: binds)
    }

    static var selectAll: PostgresQuery { PostgresQuery(unsafeSQL: "SELECT \(columnList) FROM \(table) ORDER BY id") }

    /// Reads a row, naming the table and the row's id in any error.
    static func decodeRow(_ row: PostgresRow) throws -> Entity {
        let reader = RowReader(row)
        do {
            return try decode(reader)
        } catch let error as ContentError {
            let id = (try? reader.uuid(0)).map { " \($0.lowercasedString)" } ?? ""
            throw ContentError(description: "\(table)\(id): \(error)")
        }
    }

    /// Inserts, updates or deletes as a change's before and after say; a row that is not there
    /// to update or delete fails the commit.
    static func apply(before: Entity?, after: Entity?, _ session: PostgresSession) throws {
        switch (before, after) {
        case let (nil, after?): try session.execute(insert(after))
        case let (_?, after?): guard try session.execute(update(after)) == 1 else { throw missingRow(after.id) }
        case let (before?, nil): guard try session.execute(delete(before.id)) == 1 else { throw missingRow(before.id) }
        case (nil, nil): break
        }
    }

    private static func missingRow(_ id: Entity.ID) -> ContentError {
        ContentError(description: "\(table) holds no row \(id) for this commit to change")
    }
}

/// Typed reads of one row's columns; a value of the wrong type is a `ContentError` naming the column.
struct RowReader {
    let cells: PostgresRandomAccessRow

    init(_ row: PostgresRow) { cells = row.makeRandomAccess() }

    func value<T: PostgresDecodable>(_ index: Int, _: T.Type = T.self) throws -> T {
        do {
            return try cells[index].decode(T.self)
        } catch {
            throw ContentError(description: "column \(cells[index].columnName) does not hold a \(T.self)")
        }
    }

    func uuid(_ index: Int) throws -> UUID { try value(index) }
    func id<T>(_ index: Int) throws -> Identifier<T> { Identifier(try uuid(index)) }
    func optionalID<T>(_ index: Int) throws -> Identifier<T>? { try value(index, UUID?.self).map(Identifier.init) }
    func text(_ index: Int) throws -> String { try value(index) }
    func optionalText(_ index: Int) throws -> String? { try value(index) }
    func int(_ index: Int) throws -> Int64 { try value(index) }
    func date(_ index: Int) throws -> LocalDate { LocalDate(dayNumber: try value(index, Int32.self)) }
    func isNull(_ index: Int) -> Bool { cells[index].bytes == nil }

    func attributes(_ index: Int) throws -> Attributes {
        guard let text = try optionalText(index) else { return [:] }
        do {
            return try AttributesJSON.decode(text, path: cells[index].columnName)
        } catch {
            throw ContentError(description: "column \(cells[index].columnName) does not hold attributes: \(error)")
        }
    }

    func duration(_ index: Int) throws -> ShiftDuration {
        let text = try text(index)
        guard let duration = ShiftDuration(text) else { throw ContentError(description: "column \(cells[index].columnName): '\(text)' is not a duration") }
        return duration
    }
}

extension PostgresBindings {
    mutating func id<T>(_ id: Identifier<T>?) { append(id?.rawValue) }
    mutating func date(_ date: LocalDate) { append(date.dayNumber) }
    mutating func attributes(_ value: Attributes) { append(value.isEmpty ? nil : AttributesJSON.encode(value)) }
    mutating func duration(_ value: ShiftDuration) { append(value.description) }
}

// MARK: - Tables

enum LocationTable: EntityTable {
    static let table = "locations"
    static let columns = ["id", "name", "address", "attributes"]

    static func bind(_ location: Location, _ b: inout PostgresBindings) {
        b.id(location.id)
        b.append(location.name)
        b.append(location.address)
        b.attributes(location.attributes)
    }

    static func decode(_ row: RowReader) throws -> Location {
        Location(id: try row.id(0), name: try row.text(1), address: try row.text(2), attributes: try row.attributes(3))
    }
}

enum ShiftTypeTable: EntityTable {
    static let table = "shift_types"
    static let columns = ["id", "symbol", "title", "description", "duration", "location_id", "attributes"]

    static func bind(_ type: ShiftType, _ b: inout PostgresBindings) {
        b.id(type.id)
        b.append(type.symbol)
        b.append(type.title)
        b.append(type.description)
        b.duration(type.duration)
        b.id(type.locationID)
        b.attributes(type.attributes)
    }

    static func decode(_ row: RowReader) throws -> ShiftType {
        ShiftType(
            id: try row.id(0), symbol: try row.text(1), title: try row.text(2), description: try row.text(3),
            duration: try row.duration(4), locationID: try row.optionalID(5), attributes: try row.attributes(6))
    }
}

enum PersonTable: EntityTable {
    static let table = "people"
    static let columns = ["id", "display_name", "attributes"]

    static func bind(_ person: Person, _ b: inout PostgresBindings) {
        b.id(person.id)
        b.append(person.displayName)
        b.attributes(person.attributes)
    }

    static func decode(_ row: RowReader) throws -> Person {
        Person(id: try row.id(0), displayName: try row.text(1), attributes: try row.attributes(2))
    }
}

enum ShiftTable: EntityTable {
    static let table = "shifts"
    static let columns = ["id", "type_id", "date", "person_id", "notes", "attributes", "event_identifier"]

    static func bind(_ shift: ScheduledShift, _ b: inout PostgresBindings) {
        b.id(shift.id)
        b.id(shift.shiftTypeID)
        b.date(shift.date)
        b.id(shift.personID)
        b.append(shift.notes)
        b.attributes(shift.attributes)
        // Only a custom UID is stored; the default one is derived from the id.
        b.append(shift.hasCustomEventIdentifier ? shift.eventIdentifier : nil)
    }

    /// One statement inserting many shifts, each column one array parameter that `unnest` turns
    /// back into rows: eight parameters however many shifts. A multi-row `VALUES` list of seven
    /// parameters a row costs the server more to parse and plan than to insert (a million shifts
    /// took 37 s to migrate that way). Arrays cannot hold NULL here, so the optional columns carry
    /// a placeholder and a bit each in `nulls`.
    static func insertMany(_ shifts: some Collection<ScheduledShift>) -> PostgresQuery {
        var ids: [UUID] = [], types: [UUID] = [], dates: [Int32] = [], people: [UUID] = []
        var notes: [String] = [], attributes: [String] = [], events: [String] = [], nulls: [Int32] = []
        ids.reserveCapacity(shifts.count)
        types.reserveCapacity(shifts.count)
        dates.reserveCapacity(shifts.count)
        people.reserveCapacity(shifts.count)
        notes.reserveCapacity(shifts.count)
        attributes.reserveCapacity(shifts.count)
        events.reserveCapacity(shifts.count)
        nulls.reserveCapacity(shifts.count)
        for shift in shifts {
            var null: Int32 = 0
            ids.append(shift.id.rawValue)
            types.append(shift.shiftTypeID.rawValue)
            dates.append(shift.date.dayNumber)
            people.append(shift.personID?.rawValue ?? Self.placeholder)
            if shift.personID == nil { null |= 1 }
            notes.append(shift.notes ?? "")
            if shift.notes == nil { null |= 2 }
            attributes.append(shift.attributes.isEmpty ? "" : AttributesJSON.encode(shift.attributes))
            if shift.attributes.isEmpty { null |= 4 }
            // Only a custom UID is stored; the default one is derived from the id.
            events.append(shift.hasCustomEventIdentifier ? shift.eventIdentifier : "")
            if !shift.hasCustomEventIdentifier { null |= 8 }
            nulls.append(null)
        }
        var b = PostgresBindings(capacity: 8)
        b.append(ids); b.append(types); b.append(dates); b.append(people)
        b.append(notes); b.append(attributes); b.append(events); b.append(nulls)
        return PostgresQuery(unsafeSQL: """
            INSERT INTO shifts (\(columnList))
            SELECT id, type_id, date, CASE WHEN nulls & 1 = 0 THEN person_id END, CASE WHEN nulls & 2 = 0 THEN notes END,
                   CASE WHEN nulls & 4 = 0 THEN attributes END, CASE WHEN nulls & 8 = 0 THEN event_identifier END
            FROM unnest($1::uuid[], $2::uuid[], $3::int4[], $4::uuid[], $5::text[], $6::text[], $7::text[], $8::int4[])
                AS r(id, type_id, date, person_id, notes, attributes, event_identifier, nulls)
            """, binds: b)
    }

    /// Shifts a statement of `insertMany` takes.
    static let manyBatchSize = 50_000

    private static let placeholder = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    static func decode(_ row: RowReader) throws -> ScheduledShift {
        ScheduledShift(
            id: try row.id(0), shiftTypeID: try row.id(1), date: try row.date(2), personID: try row.optionalID(3),
            notes: try row.optionalText(4), attributes: try row.attributes(5), eventIdentifier: try row.optionalText(6))
    }
}

enum DemandTable: EntityTable {
    static let table = "demand"
    static let columns = ["id", "date", "weekday", "type_id", "skill", "minimum", "optimal"]

    static func bind(_ demand: Demand, _ b: inout PostgresBindings) {
        b.id(demand.id)
        switch demand.day {
        case let .date(date):
            b.date(date)
            b.append(Int32?.none)
        case let .weekday(weekday):
            b.append(Int32?.none)
            b.append(Int32(weekday.rawValue))
        }
        b.id(demand.shiftTypeID)
        b.append(demand.skill)
        b.append(Int32(clamping: demand.minimum))
        b.append(Int32(clamping: demand.optimal))
    }

    static func decode(_ row: RowReader) throws -> Demand {
        let day: DemandDay
        if row.isNull(1) {
            let number = try row.value(2, Int32.self)
            guard let weekday = Weekday(rawValue: Int(number)) else {
                throw ContentError(description: "column weekday: \(number) is not an ISO weekday (1…7)")
            }
            day = .weekday(weekday)
        } else {
            day = .date(try row.date(1))
        }
        return Demand(
            id: try row.id(0), day: day, shiftTypeID: try row.id(3), skill: try row.optionalText(4),
            minimum: Int(try row.value(5, Int32.self)), optimal: Int(try row.value(6, Int32.self)))
    }
}

enum AvailabilityTable: EntityTable {
    static let table = "availability"
    static let columns = ["id", "person_id", "from_date", "to_date", "type_id", "kind", "weight"]

    static func bind(_ item: Availability, _ b: inout PostgresBindings) {
        b.id(item.id)
        b.id(item.personID)
        b.date(item.from)
        b.date(item.to)
        b.id(item.shiftTypeID)
        b.append(item.kind.rawValue)
        b.append(item.weight)
    }

    static func decode(_ row: RowReader) throws -> Availability {
        let kindText = try row.text(5)
        guard let kind = AvailabilityKind(rawValue: kindText) else {
            throw ContentError(description: "column kind: '\(kindText)' is not unavailable, undesired or desired")
        }
        return Availability(
            id: try row.id(0), personID: try row.id(1), from: try row.date(2), to: try row.date(3),
            shiftTypeID: try row.optionalID(4), kind: kind, weight: try row.value(6, Double?.self))
    }
}

enum ChangeLogTable: EntityTable {
    static let table = "change_log"
    private static let snapshotFields = [
        "shift_id", "type_id", "symbol", "title", "duration", "date", "location_id", "location_name", "person_id",
        "person_name", "notes",
    ]
    static let columns = ["id", "timestamp", "user_id", "user_display_name", "change_type", "shift_date", "reason"]
        + snapshotFields.map { "old_" + $0 } + snapshotFields.map { "new_" + $0 } + ["created_shift_ids", "created_last_date"]
    private static let oldSnapshotColumn = 7
    private static let newSnapshotColumn = oldSnapshotColumn + snapshotFields.count
    private static let createdColumn = newSnapshotColumn + snapshotFields.count

    static func bind(_ entry: ChangeLogEntry, _ b: inout PostgresBindings) {
        b.id(entry.id)
        b.append(Millis.of(entry.timestamp))
        b.append(entry.userId)
        b.append(entry.userDisplayName)
        b.append(entry.changeType.rawValue)
        b.date(entry.scheduledShiftDate)
        b.append(entry.reason)
        bind(entry.oldShiftSnapshot, &b)
        bind(entry.newShiftSnapshot, &b)
        if let created = entry.createdShifts {
            b.append(ByteBuffer(bytes: created.packedIDs))
            b.date(created.lastDate)
        } else {
            b.appendNull()
            b.appendNull()
        }
    }

    private static func bind(_ snapshot: ShiftSnapshot?, _ b: inout PostgresBindings) {
        guard let s = snapshot else {
            // Typed NULLs: the server infers each column's type from the statement.
            for _ in snapshotFields { b.appendNull() }
            return
        }
        b.id(s.shiftID)
        b.id(s.shiftTypeID)
        b.append(s.symbol)
        b.append(s.title)
        b.duration(s.duration)
        b.date(s.date)
        b.id(s.locationID)
        b.append(s.locationName)
        b.id(s.personID)
        b.append(s.personName)
        b.append(s.notes)
    }

    static func decode(_ row: RowReader) throws -> ChangeLogEntry {
        let typeText = try row.text(4)
        guard let changeType = ChangeType(rawValue: typeText) else {
            throw ContentError(description: "column change_type: '\(typeText)' is not a change type")
        }
        return ChangeLogEntry(
            id: try row.id(0), timestamp: Millis.date(try row.int(1)), userId: try row.text(2),
            userDisplayName: try row.text(3), changeType: changeType, scheduledShiftDate: try row.date(5),
            oldShiftSnapshot: try snapshot(row, at: oldSnapshotColumn), newShiftSnapshot: try snapshot(row, at: newSnapshotColumn),
            reason: try row.optionalText(6), createdShifts: try createdShifts(row))
    }

    private static func createdShifts(_ row: RowReader) throws -> CreatedShifts? {
        guard let buffer = try row.value(createdColumn, ByteBuffer?.self) else { return nil }
        guard let ids = CreatedShifts.unpackIDs(buffer.readableBytesView), !ids.isEmpty else {
            throw ContentError(description: "column created_shift_ids: not a list of 16-byte ids")
        }
        return CreatedShifts(shiftIDs: ids, lastDate: try row.date(createdColumn + 1))
    }

    private static func snapshot(_ row: RowReader, at first: Int) throws -> ShiftSnapshot? {
        guard !row.isNull(first) else { return nil }
        return ShiftSnapshot(
            shiftID: try row.id(first), shiftTypeID: try row.id(first + 1), symbol: try row.text(first + 2),
            title: try row.text(first + 3), duration: try row.duration(first + 4), date: try row.date(first + 5),
            locationID: try row.optionalID(first + 6), locationName: try row.optionalText(first + 7),
            personID: try row.optionalID(first + 8), personName: try row.optionalText(first + 9),
            notes: try row.optionalText(first + 10))
    }
}

/// The one row of `settings`.
enum SettingsRow {
    static func insert(_ settings: StoreSettings) -> PostgresQuery {
        write(settings, sql: "INSERT INTO settings (id, time_zone, week_start, change_log_retention, extra) VALUES (1, $1, $2, $3, $4)")
    }

    static func update(_ settings: StoreSettings) -> PostgresQuery {
        write(settings, sql: "UPDATE settings SET time_zone = $1, week_start = $2, change_log_retention = $3, extra = $4 WHERE id = 1")
    }

    private static func write(_ settings: StoreSettings, sql: String) -> PostgresQuery {
        var b = PostgresBindings()
        b.append(settings.timeZoneIdentifier)
        b.append(settings.weekStart.name)
        b.append(settings.changeLogRetention.description)
        b.attributes(settings.extra)
        return PostgresQuery(unsafeSQL: sql, binds: b)
    }

    static func read(_ session: PostgresSession) throws -> StoreSettings {
        let rows = try session.rows("SELECT time_zone, week_start, change_log_retention, extra FROM settings WHERE id = 1")
        guard let first = rows.first else { throw ContentError(description: "settings: the row is missing") }
        let row = RowReader(first)
        let weekText = try row.text(1)
        guard let weekStart = Weekday(name: weekText) else {
            throw ContentError(description: "settings: column week_start: '\(weekText)' is not a weekday")
        }
        let retentionText = try row.text(2)
        guard let retention = ChangeLogRetentionPolicy(retentionText) else {
            throw ContentError(description: "settings: column change_log_retention: '\(retentionText)' is not forever or <days>d")
        }
        return StoreSettings(
            timeZoneIdentifier: try row.text(0), weekStart: weekStart, changeLogRetention: retention, extra: try row.attributes(3))
    }
}

/// Log instants as whole milliseconds since 1970, the precision the log keeps.
enum Millis {
    static func of(_ date: Date) -> Int64 { clamp((date.timeIntervalSince1970 * 1000).rounded()) }
    static func date(_ millis: Int64) -> Date { Date(timeIntervalSince1970: Double(millis) / 1000) }

    /// The least stored value whose instant is `>= bound`.
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
        return value >= 9.2e18 ? Int64.max : value <= -9.2e18 ? Int64.min : Int64(value)
    }
}
