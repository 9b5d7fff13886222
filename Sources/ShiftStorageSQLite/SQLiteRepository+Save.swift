import Foundation
import GRDB
import ShiftCore
import ShiftStorage

extension SQLiteRepository {
    /// The log entries of a commit are written from its summary.
    public var savesLogFromSummary: Bool { true }

    /// Writes one commit: each changed entity's row, the log entries, the prune, and a new
    /// generation, in one transaction. Foreign keys are checked when it commits, so the order of
    /// the changes does not matter; a change whose row is not as the store expects (an update or
    /// delete of a missing row, an insert of an existing id) fails the whole commit.
    ///
    /// A bulk commit (an import) that adds at least half as many shifts or log entries as the
    /// table holds appends them with the table's indexes dropped and rebuilt, as `write` does.
    public func save(_ schedule: Schedule, summary: CommitSummary) throws -> StoreRevision {
        // A prune in the mutation moved the log's cutoff (`ChangeLog.prune`); entries it recorded
        // and then pruned are not among the summary's.
        let cutoff = schedule.changeLog.prunedBefore
        let entries = summary.logEntries
        return try writing { db in
            let before = try Meta.read(db)
            var added: [ScheduledShift] = []
            let removed = try Self.apply(summary.changes, db, addingShiftsTo: &added)
            try Self.append(added, ShiftTable.self, toRows: before.shiftCount, db)
            var pruned: Int64 = 0
            if let cutoff {
                var binder = Binder(try db.cachedStatement(sql: "DELETE FROM change_log WHERE timestamp < ?1"))
                binder.int(Millis.lower(cutoff))
                pruned = Int64(try binder.execute(db))
            }
            try Self.append(entries, ChangeLogTable.self, toRows: before.changeLogCount - pruned, db)
            return try Meta.commit(
                db, shiftDelta: Int64(added.count - removed), changeLogDelta: Int64(entries.count) - pruned).revision
        }
    }

    /// Replaces the whole content of the store with `schedule`, in one transaction. For
    /// converting stores (`shiftctl migrate`) and bulk imports. Foreign keys are checked once
    /// at the end, and the big tables' indexes built once.
    ///
    /// The schedule's shifts and change log are read before the transaction starts (a schedule
    /// opened over this very store reads them from it). Takes the write lock for the call unless
    /// this repository holds it.
    ///
    /// - Throws: the schedule's source's read failure, or `StorageError.writeFailed` (nothing
    ///   written).
    @discardableResult
    public func write(_ schedule: Schedule) throws -> StoreRevision {
        let shifts = schedule.shifts()
        let log = Array(schedule.changeLog)
        if let failure = schedule.source?.takeFailure() { throw failure }
        let catalog = Catalog(
            settings: schedule.settings, locations: schedule.locations, shiftTypes: schedule.shiftTypes,
            people: schedule.people, demand: schedule.demand, availability: schedule.availability,
            requests: schedule.requests)
        return try withWriteLock {
            try writingInBulk { db in
                for table in [
                    "request_history", "requests", "change_log", "shifts", "availability", "demand", "shift_types", "people",
                    "locations",
                ] {
                    try db.execute(sql: "DELETE FROM \(table)")
                }
                try SettingsRow.update(catalog.settings, db)
                try Self.insert(catalog.locations, LocationTable.self, db)
                try Self.insert(catalog.shiftTypes, ShiftTypeTable.self, db)
                try Self.insert(catalog.people, PersonTable.self, db)
                try Self.insert(catalog.demand, DemandTable.self, db)
                try Self.insert(catalog.availability, AvailabilityTable.self, db)
                for request in catalog.requests { try RequestTable.apply(before: nil, after: request, db) }
                try Self.withoutIndexes(on: ["shifts", "change_log"], db) {
                    try Self.insert(shifts, ShiftTable.self, db)
                    try Self.insert(log, ChangeLogTable.self, db)
                }
                try db.execute(
                    sql: "UPDATE meta SET generation = generation + 1, shift_count = ?, change_log_count = ? WHERE id = 1",
                    arguments: [shifts.count, log.count])
                return try Meta.read(db).revision
            }
        }
    }

    // MARK: Steps

    /// Runs `body` with the tables' indexes dropped, then builds them again from their stored
    /// definitions (whatever the migrations made them). Appending rows to bare tables and sorting
    /// each index once is several times faster than updating five B-trees per row; a duplicate
    /// id fails the unique index's build, and with it the transaction.
    private static func withoutIndexes(on tables: [String], _ db: Database, _ body: () throws -> Void) throws {
        let list = tables.map { "'\($0)'" }.joined(separator: ", ")
        let indexes = try Row.fetchAll(
            db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN (\(list))")
            .map { (name: $0[0] as String, sql: $0[1] as String) }
        for index in indexes { try db.execute(sql: "DROP INDEX \(index.name)") }
        try body()
        for index in indexes { try db.execute(sql: index.sql) }
    }

    /// Inserts new rows into a table that holds `existing`; a bulk of them with the indexes
    /// rebuilt once (updating them row by row costs more past about half the table).
    private static func append<Table: EntityTable>(_ entities: [Table.Entity], _ table: Table.Type, toRows existing: Int64, _ db: Database) throws {
        if entities.count >= 10_000, Int64(entities.count) * 2 >= existing {
            try withoutIndexes(on: [Table.table], db) { try insert(entities, table, db) }
        } else {
            try insert(entities, table, db)
        }
    }

    private static func insert<Table: EntityTable>(_ entities: [Table.Entity], _: Table.Type, _ db: Database) throws {
        let statement = try db.cachedStatement(sql: Table.insertSQL)
        for entity in entities {
            var binder = Binder(statement)
            Table.bind(entity, &binder)
            try binder.execute(db)
        }
    }

    /// Writes each entity change but the shifts it adds, which go to `added` (they are appended
    /// last, in bulk when there are many); returns how many shifts it removed.
    private static func apply(_ changes: [Change], _ db: Database, addingShiftsTo added: inout [ScheduledShift]) throws -> Int {
        // A custom calendar UID may pass from one shift to another within a commit: free every
        // UID that changes first, so the unique index never sees it twice.
        for case let .shift(before?, after, _) in changes where before.hasCustomEventIdentifier {
            if after.map({ $0.hasCustomEventIdentifier && $0.eventIdentifier == before.eventIdentifier }) != true {
                try ShiftTable.releaseEventIdentifier(before.id, db)
            }
        }
        var removed = 0
        for change in changes {
            switch change {
            case let .location(before, after): try LocationTable.apply(before: before, after: after, db)
            case let .shiftType(before, after): try ShiftTypeTable.apply(before: before, after: after, db)
            case let .person(before, after): try PersonTable.apply(before: before, after: after, db)
            case let .shift(nil, after?, _): added.append(after)
            case let .shift(before, after, _):
                try ShiftTable.apply(before: before, after: after, db)
                if after == nil { removed += 1 }
            case let .demand(before, after): try DemandTable.apply(before: before, after: after, db)
            case let .availability(before, after): try AvailabilityTable.apply(before: before, after: after, db)
            case let .settings(_, after): try SettingsRow.update(after, db)
            case let .request(before, after): try RequestTable.apply(before: before, after: after, db)
            case .changeLogPruned, .changeLogRecorded:
                // The prune is `pruneCutoff`; recorded entries are among the summary's log entries.
                break
            }
        }
        return removed
    }
}
