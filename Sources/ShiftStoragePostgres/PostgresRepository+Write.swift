import Foundation
import PostgresNIO
import ShiftCore

extension PostgresRepository {
    /// Replaces the whole content of the schedule with `schedule`, in one transaction: for
    /// `shiftctl migrate` and tests. Shifts go in 50,000 a statement (`ShiftTable.insertMany`),
    /// the rest as multi-row inserts of a few thousand each.
    ///
    /// - Parameters:
    ///   - buildingIndexesAfter: load the shifts first and build their secondary indexes after
    ///     them; nil: when there are at least `rebuildIndexesFrom` shifts.
    ///   - progress: called after each batch of shifts and log entries with how many rows of
    ///     both are written and the total.
    /// - Throws: the schedule's source's read failure, or `PostgresStoreError.writeFailed`
    ///   (nothing written).
    @discardableResult
    public func write(
        _ schedule: Schedule, buildingIndexesAfter: Bool? = nil, progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
    ) throws -> StoreRevision {
        let shifts = schedule.shifts()
        let log = Array(schedule.changeLog)
        if let failure = schedule.source?.takeFailure() { throw failure }
        guard try tryLockForWriting() else {
            throw PostgresStoreError.writeFailed(store: location, reason: "another store of this process is writing")
        }
        defer { unlockForWriting() }
        let total = shifts.count + log.count
        do {
            for table in [
                "request_history", "requests", "change_log", "shifts", "availability", "demand", "shift_types", "people",
                "locations",
            ] {
                try session.execute(PostgresQuery(unsafeSQL: "DELETE FROM \(table)"))
            }
            try session.execute(SettingsRow.update(schedule.settings))
            try insert(schedule.locations, LocationTable.self)
            try insert(schedule.shiftTypes, ShiftTypeTable.self)
            try insert(schedule.people, PersonTable.self)
            try insert(schedule.demand, DemandTable.self)
            try insert(schedule.availability, AvailabilityTable.self)
            for request in schedule.requests { try RequestTable.apply(before: nil, after: request, session) }
            // The shifts' secondary indexes are built once after the rows are in, which costs
            // the server less than keeping them in step row by row; they are made again from
            // their own definitions, as the schema's migrations left them.
            let indexes = !(buildingIndexesAfter ?? (shifts.count >= Self.rebuildIndexesFrom)) ? [] : try session.rows("""
                SELECT indexname, indexdef FROM pg_indexes
                WHERE schemaname = current_schema() AND tablename = 'shifts' AND indexname LIKE 'shifts\\_by\\_%'
                """).map { row in (name: try RowReader(row).text(0), definition: try RowReader(row).text(1)) }
            for index in indexes { try session.execute(PostgresQuery(unsafeSQL: "DROP INDEX \(PostgresSchema.quoted(index.name))")) }
            var done = 0
            for batch in shifts.chunks(of: ShiftTable.manyBatchSize) {
                try session.execute(ShiftTable.insertMany(batch))
                done += batch.count
                progress?(done, total)
            }
            if !indexes.isEmpty {
                // Deferred checks waiting on the table keep an index from being built: run them now.
                try session.execute("SET CONSTRAINTS ALL IMMEDIATE")
                for index in indexes { try session.execute(PostgresQuery(unsafeSQL: index.definition)) }
                try session.execute("SET CONSTRAINTS ALL DEFERRED")
            }
            try insert(log, ChangeLogTable.self) { done += $0; progress?(done, total) }
            try session.execute("UPDATE meta SET catalog_generation = catalog_generation + 1 WHERE id = 1")
            try session.execute("INSERT INTO commits (catalog) VALUES (true)")
            try session.execute("SELECT pg_notify(\(PostgresSchema.channel), \(target.schemaName))")
        } catch {
            session.rollback()
            throw writeFailure(error)
        }
        do {
            try session.commit()
        } catch {
            throw commitFailure(error)
        }
        return try revision()
    }

    /// From how many shifts `write` builds the shifts' secondary indexes after loading them.
    public static let rebuildIndexesFrom = 100_000

    private func insert<Table: EntityTable>(_ entities: [Table.Entity], _: Table.Type, wrote: ((Int) -> Void)? = nil) throws {
        for batch in entities.chunks(of: Table.batchSize) {
            try session.execute(Table.insert(batch))
            wrote?(batch.count)
        }
    }
}
