import Foundation
import GRDB
import GRDBSQLite
import ShiftCore
import ShiftStorage

/// One entity kind's table: its columns (the id first) and how an entity becomes a row and back.
/// Statements use numbered parameters (`?1` is the id), so insert and update bind alike.
protocol EntityTable {
    associatedtype Entity: Identifiable where Entity.ID == Identifier<Entity>
    static var table: String { get }
    static var columns: [String] { get }
    /// Binds every column, in `columns` order.
    static func bind(_ entity: Entity, _ binder: inout Binder)
    /// Reads a row selected with `columns`, in order.
    static func decode(_ row: Columns) throws -> Entity
}

extension EntityTable {
    static var columnList: String { columns.joined(separator: ", ") }

    static var insertSQL: String {
        "INSERT INTO \(table) (\(columnList)) VALUES (\((1...columns.count).map { "?\($0)" }.joined(separator: ", ")))"
    }

    static var updateSQL: String {
        let assignments = columns.enumerated().dropFirst().map { "\($1) = ?\($0 + 1)" }.joined(separator: ", ")
        return "UPDATE \(table) SET \(assignments) WHERE id = ?1"
    }

    static var deleteSQL: String { "DELETE FROM \(table) WHERE id = ?1" }

    static var selectAllSQL: String { "SELECT \(columnList) FROM \(table)" }

    /// Reads a row, naming the table and the row's id in any error.
    static func decodeRow(_ row: Columns) throws -> Entity {
        try naming(row) { try decode(row) }
    }

    /// `body`'s result; a content error it throws names the table and the row's id.
    static func naming<T>(_ row: Columns, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as ContentError {
            let id = (try? row.id(0) as Identifier<Entity>).map { " \($0)" } ?? ""
            throw ContentError(description: "\(table)\(id): \(error)")
        }
    }

    static func insert(_ entity: Entity, _ db: Database) throws {
        var binder = Binder(try db.cachedStatement(sql: insertSQL))
        bind(entity, &binder)
        try binder.execute(db)
    }

    /// Replaces the row with the entity's id; throws when there is none.
    static func update(_ entity: Entity, _ db: Database) throws {
        var binder = Binder(try db.cachedStatement(sql: updateSQL))
        bind(entity, &binder)
        guard try binder.execute(db) == 1 else { throw missingRow(entity.id) }
    }

    /// Deletes the row with this id; throws when there is none.
    static func delete(_ id: Entity.ID, _ db: Database) throws {
        var binder = Binder(try db.cachedStatement(sql: deleteSQL))
        binder.id(id)
        guard try binder.execute(db) == 1 else { throw missingRow(id) }
    }

    /// Inserts, updates or deletes as a change's before and after say.
    static func apply(before: Entity?, after: Entity?, _ db: Database) throws {
        switch (before, after) {
        case let (nil, after?): try insert(after, db)
        case let (_?, after?): try update(after, db)
        case let (before?, nil): try delete(before.id, db)
        case (nil, nil): break
        }
    }

    static func all(_ db: Database) throws -> [Entity] {
        var result: [Entity] = []
        try Binder(try db.cachedStatement(sql: selectAllSQL)).forEachRow(db) { result.append(try decodeRow($0)) }
        return result
    }

    private static func missingRow(_ id: Entity.ID) -> ContentError {
        ContentError(description: "\(table) holds no row \(id) for this commit to change (was the file changed by another program?)")
    }
}

// MARK: - Shared column values

extension Binder {
    mutating func attributes(_ value: Attributes) {
        text(value.isEmpty ? nil : AttributesJSON.encode(value))
    }
}

extension Columns {
    func attributes(_ index: CInt) throws -> Attributes {
        guard let text = try optionalText(index) else { return [:] }
        do {
            return try AttributesJSON.decode(text, path: name(index))
        } catch {
            throw ContentError(description: "column \(name(index)) does not hold attributes: \(error)")
        }
    }

    /// A duration as `DurationText` wrote it, read from the bytes (the general parser, which
    /// accepts every spelling users type, costs microseconds, and the log holds two per entry).
    func duration(_ index: CInt) throws -> ShiftDuration {
        guard sqlite3_column_type(statement, index) == SQLITE_TEXT else { throw ContentError(description: "column \(name(index)) does not hold text") }
        let count = Int(sqlite3_column_bytes(statement, index))
        if count > 0, let bytes = sqlite3_column_text(statement, index),
           let duration = DurationText.parse(UnsafeBufferPointer(start: bytes, count: count)) {
            return duration
        }
        let text = try text(index)
        guard let duration = ShiftDuration(text) else { throw ContentError(description: "column \(name(index)): '\(text)' is not a duration") }
        return duration
    }
}

extension Binder {
    mutating func duration(_ value: ShiftDuration) { text(DurationText.format(value)) }
}

/// The stored text of a duration: `all-day` or `HH:MM-HH:MM`, exactly `ShiftDuration.description`.
enum DurationText {
    private static let allDay = Array("all-day".utf8)

    static func format(_ duration: ShiftDuration) -> String {
        guard case let .scheduled(from, to) = duration else { return "all-day" }
        return String(unsafeUninitializedCapacity: 11) { out in
            func put(_ value: Int, at offset: Int) {
                out[offset] = UInt8(48 + value / 10)
                out[offset + 1] = UInt8(48 + value % 10)
            }
            put(from.hour, at: 0)
            out[2] = UInt8(ascii: ":")
            put(from.minute, at: 3)
            out[5] = UInt8(ascii: "-")
            put(to.hour, at: 6)
            out[8] = UInt8(ascii: ":")
            put(to.minute, at: 9)
            return 11
        }
    }

    /// The canonical forms only; nil for anything else (read then with the general parser).
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> ShiftDuration? {
        if bytes.elementsEqual(allDay) { return .allDay }
        guard bytes.count == 11, bytes[2] == UInt8(ascii: ":"), bytes[5] == UInt8(ascii: "-"), bytes[8] == UInt8(ascii: ":") else {
            return nil
        }
        func number(_ offset: Int) -> Int? {
            let (high, low) = (Int(bytes[offset]) - 48, Int(bytes[offset + 1]) - 48)
            guard (0...9).contains(high), (0...9).contains(low) else { return nil }
            return high * 10 + low
        }
        guard let fromHour = number(0), let fromMinute = number(3), let toHour = number(6), let toMinute = number(9),
              let from = HourMinuteTime(hour: fromHour, minute: fromMinute),
              let to = HourMinuteTime(hour: toHour, minute: toMinute) else { return nil }
        return .scheduled(from: from, to: to)
    }
}

// MARK: - Tables

enum LocationTable: EntityTable {
    static let table = "locations"
    static let columns = ["id", "name", "address", "attributes"]

    static func bind(_ location: Location, _ b: inout Binder) {
        b.id(location.id)
        b.text(location.name)
        b.text(location.address)
        b.attributes(location.attributes)
    }

    static func decode(_ row: Columns) throws -> Location {
        Location(id: try row.id(0), name: try row.text(1), address: try row.text(2), attributes: try row.attributes(3))
    }
}

enum ShiftTypeTable: EntityTable {
    static let table = "shift_types"
    static let columns = ["id", "symbol", "title", "description", "duration", "location_id", "attributes"]

    static func bind(_ type: ShiftType, _ b: inout Binder) {
        b.id(type.id)
        b.text(type.symbol)
        b.text(type.title)
        b.text(type.description)
        b.duration(type.duration)
        b.id(type.locationID)
        b.attributes(type.attributes)
    }

    static func decode(_ row: Columns) throws -> ShiftType {
        ShiftType(
            id: try row.id(0), symbol: try row.text(1), title: try row.text(2), description: try row.text(3),
            duration: try row.duration(4), locationID: try row.optionalID(5), attributes: try row.attributes(6))
    }
}

enum PersonTable: EntityTable {
    static let table = "people"
    static let columns = ["id", "display_name", "attributes"]

    static func bind(_ person: Person, _ b: inout Binder) {
        b.id(person.id)
        b.text(person.displayName)
        b.attributes(person.attributes)
    }

    static func decode(_ row: Columns) throws -> Person {
        Person(id: try row.id(0), displayName: try row.text(1), attributes: try row.attributes(2))
    }
}

enum ShiftTable: EntityTable {
    static let table = "shifts"
    static let columns = ["id", "type_id", "date", "person_id", "notes", "attributes", "event_identifier"]

    static func bind(_ shift: ScheduledShift, _ b: inout Binder) {
        b.id(shift.id)
        b.id(shift.shiftTypeID)
        b.date(shift.date)
        b.id(shift.personID)
        b.text(shift.notes)
        b.attributes(shift.attributes)
        // Only a custom UID is stored; the default one is derived from the id.
        b.text(shift.hasCustomEventIdentifier ? shift.eventIdentifier : nil)
    }

    static func decode(_ row: Columns) throws -> ScheduledShift {
        ScheduledShift(
            id: try row.id(0), shiftTypeID: try row.id(1), date: try row.date(2), personID: try row.optionalID(3),
            notes: try row.optionalText(4), attributes: try row.attributes(5), eventIdentifier: try row.optionalText(6))
    }

    /// Clears a shift's custom UID, so another shift of the same commit can take it over without
    /// tripping the unique index before this one's update runs.
    static func releaseEventIdentifier(_ id: ShiftID, _ db: Database) throws {
        var binder = Binder(try db.cachedStatement(sql: "UPDATE shifts SET event_identifier = NULL WHERE id = ?1"))
        binder.id(id)
        try binder.execute(db)
    }
}

enum DemandTable: EntityTable {
    static let table = "demand"
    static let columns = ["id", "date", "weekday", "type_id", "skill", "minimum", "optimal"]

    static func bind(_ demand: Demand, _ b: inout Binder) {
        b.id(demand.id)
        switch demand.day {
        case let .date(date):
            b.date(date)
            b.null()
        case let .weekday(weekday):
            b.null()
            b.int(weekday.rawValue)
        }
        b.id(demand.shiftTypeID)
        b.text(demand.skill)
        b.int(demand.minimum)
        b.int(demand.optimal)
    }

    static func decode(_ row: Columns) throws -> Demand {
        let day: DemandDay
        if row.isNull(1) {
            let number = try row.int(2)
            guard let weekday = Weekday(rawValue: Int(number)) else {
                throw ContentError(description: "column weekday: \(number) is not an ISO weekday (1…7)")
            }
            day = .weekday(weekday)
        } else {
            day = .date(try row.date(1))
        }
        return Demand(
            id: try row.id(0), day: day, shiftTypeID: try row.id(3), skill: try row.optionalText(4),
            minimum: Int(try row.int(5)), optimal: Int(try row.int(6)))
    }
}

enum AvailabilityTable: EntityTable {
    static let table = "availability"
    static let columns = ["id", "person_id", "from_date", "to_date", "type_id", "kind", "weight"]

    static func bind(_ item: Availability, _ b: inout Binder) {
        b.id(item.id)
        b.id(item.personID)
        b.date(item.from)
        b.date(item.to)
        b.id(item.shiftTypeID)
        b.text(item.kind.rawValue)
        b.double(item.weight)
    }

    static func decode(_ row: Columns) throws -> Availability {
        let kindText = try row.text(5)
        guard let kind = AvailabilityKind(rawValue: kindText) else {
            throw ContentError(description: "column kind: '\(kindText)' is not unavailable, undesired or desired")
        }
        return Availability(
            id: try row.id(0), personID: try row.id(1), from: try row.date(2), to: try row.date(3),
            shiftTypeID: try row.optionalID(4), kind: kind, weight: try row.double(6))
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
    private static let oldSnapshotColumn: CInt = 7
    private static let newSnapshotColumn = oldSnapshotColumn + CInt(snapshotFields.count)
    private static let createdColumn = newSnapshotColumn + CInt(snapshotFields.count)

    static func bind(_ entry: ChangeLogEntry, _ b: inout Binder) {
        b.id(entry.id)
        b.int(Millis.of(entry.timestamp))
        b.text(entry.userId)
        b.text(entry.userDisplayName)
        b.text(entry.changeType.rawValue)
        b.date(entry.scheduledShiftDate)
        b.text(entry.reason)
        bind(entry.oldShiftSnapshot, &b)
        bind(entry.newShiftSnapshot, &b)
        if let created = entry.createdShifts {
            b.blob(created.packedIDs)
            b.date(created.lastDate)
        } else {
            b.null()
            b.null()
        }
    }

    private static func bind(_ snapshot: ShiftSnapshot?, _ b: inout Binder) {
        guard let s = snapshot else {
            for _ in snapshotFields { b.null() }
            return
        }
        b.id(s.shiftID)
        b.id(s.shiftTypeID)
        b.text(s.symbol)
        b.text(s.title)
        b.duration(s.duration)
        b.date(s.date)
        b.id(s.locationID)
        b.text(s.locationName)
        b.id(s.personID)
        b.text(s.personName)
        b.text(s.notes)
    }

    static func decode(_ row: Columns) throws -> ChangeLogEntry {
        try decode(row, created: createdShifts)
    }

    /// `columnList` with the byte count of the created ids in their place: a listing of the log
    /// reads an entry's ids (16 MB for a million-shift import) only when they are asked for.
    static let columnListCountingIDs = columns.map { $0 == "created_shift_ids" ? "length(created_shift_ids)" : $0 }
        .joined(separator: ", ")

    /// An entry selected with `columnListCountingIDs`; `load(id)` reads entry `id`'s created ids.
    static func decodeDeferringIDs(_ row: Columns, load: @escaping @Sendable (ChangeLogEntryID) throws -> [ShiftID]) throws -> ChangeLogEntry {
        try naming(row) {
            try decode(row) { row in
                guard !row.isNull(createdColumn) else { return nil }
                let bytes = try row.int(createdColumn)
                guard bytes > 0, bytes % 16 == 0 else { throw ContentError(description: "column created_shift_ids: not a list of 16-byte ids") }
                let id: ChangeLogEntryID = try row.id(0)
                return CreatedShifts(count: Int(bytes / 16), lastDate: try row.date(createdColumn + 1)) { try load(id) }
            }
        }
    }

    /// The created ids of entry `id` (nil when it has none).
    static func createdShiftIDs(of id: ChangeLogEntryID, _ db: Database) throws -> [ShiftID]? {
        var binder = Binder(try db.cachedStatement(sql: "SELECT created_shift_ids FROM change_log WHERE id = ?1"))
        binder.id(id)
        return try binder.firstRow(db) { row in try unpackedIDs(row, column: 0) } ?? nil
    }

    private static func decode(_ row: Columns, created: (Columns) throws -> CreatedShifts?) throws -> ChangeLogEntry {
        let typeText = try row.text(4)
        guard let changeType = ChangeType(rawValue: typeText) else {
            throw ContentError(description: "column change_type: '\(typeText)' is not a change type")
        }
        return ChangeLogEntry(
            id: try row.id(0), timestamp: Millis.date(try row.int(1)), userId: try row.text(2),
            userDisplayName: try row.text(3), changeType: changeType, scheduledShiftDate: try row.date(5),
            oldShiftSnapshot: try snapshot(row, at: oldSnapshotColumn), newShiftSnapshot: try snapshot(row, at: newSnapshotColumn),
            reason: try row.optionalText(6), createdShifts: try created(row))
    }

    private static func createdShifts(_ row: Columns) throws -> CreatedShifts? {
        guard let ids = try unpackedIDs(row, column: createdColumn) else { return nil }
        return CreatedShifts(shiftIDs: ids, lastDate: try row.date(createdColumn + 1))
    }

    /// The ids in column `column` (nil when it is null).
    private static func unpackedIDs(_ row: Columns, column: CInt) throws -> [ShiftID]? {
        guard !row.isNull(column) else { return nil }
        let ids = try row.withBlob(column) { $0.count % 16 == 0 ? CreatedShifts.unpackIDs($0) : nil }
        guard let ids, !ids.isEmpty else {
            throw ContentError(description: "column created_shift_ids: not a list of 16-byte ids")
        }
        return ids
    }

    private static func snapshot(_ row: Columns, at first: CInt) throws -> ShiftSnapshot? {
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
    static func insert(_ settings: StoreSettings, _ db: Database) throws {
        try write(settings, sql: """
            INSERT INTO settings (id, time_zone, week_start, change_log_retention, extra) VALUES (1, ?1, ?2, ?3, ?4)
            """, db)
    }

    static func update(_ settings: StoreSettings, _ db: Database) throws {
        try write(settings, sql: """
            UPDATE settings SET time_zone = ?1, week_start = ?2, change_log_retention = ?3, extra = ?4 WHERE id = 1
            """, db)
    }

    private static func write(_ settings: StoreSettings, sql: String, _ db: Database) throws {
        var b = Binder(try db.cachedStatement(sql: sql))
        b.text(settings.timeZoneIdentifier)
        b.text(settings.weekStart.name)
        b.text(settings.changeLogRetention.description)
        b.attributes(settings.extra)
        guard try b.execute(db) == 1 else { throw ContentError(description: "settings: the row is missing") }
    }

    static func read(_ db: Database) throws -> StoreSettings {
        let statement = try db.cachedStatement(sql: "SELECT time_zone, week_start, change_log_retention, extra FROM settings WHERE id = 1")
        let settings = try Binder(statement).firstRow(db) { row -> StoreSettings in
            let weekText = try row.text(1)
            guard let weekStart = Weekday(name: weekText) else {
                throw ContentError(description: "settings: column week_start: '\(weekText)' is not a weekday")
            }
            let retentionText = try row.text(2)
            guard let retention = ChangeLogRetentionPolicy(retentionText) else {
                throw ContentError(description: "settings: column change_log_retention: '\(retentionText)' is not forever or <days>d")
            }
            return StoreSettings(
                timeZoneIdentifier: try row.text(0), weekStart: weekStart, changeLogRetention: retention,
                extra: try row.attributes(3))
        }
        guard let settings else { throw ContentError(description: "settings: the row is missing") }
        return settings
    }
}
