import Foundation
import PostgresNIO
import ShiftCore

extension PostgresRepository {
    /// Replaces the whole content of the schedule with `schedule`, in one transaction: for
    /// `shiftctl migrate` and tests. Rows go in as multi-row inserts of a few thousand each.
    ///
    /// - Parameter progress: called after each batch of shifts and log entries with how many
    ///   rows of both are written and the total.
    /// - Throws: the schedule's source's read failure, or `PostgresStoreError.writeFailed`
    ///   (nothing written).
    @discardableResult
    public func write(_ schedule: Schedule, progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil) throws -> StoreRevision {
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
            var done = 0
            for batch in shifts.chunks(of: ShiftTable.manyBatchSize) {
                try session.execute(ShiftTable.insertMany(batch))
                done += batch.count
                progress?(done, total)
            }
            try insert(log, ChangeLogTable.self) { done += $0; progress?(done, total) }
            try session.execute("UPDATE meta SET catalog_generation = catalog_generation + 1 WHERE id = 1")
            try session.execute("INSERT INTO commits (catalog) VALUES (true)")
            try session.execute("SELECT pg_notify(\(PostgresSchema.channel), \(target.schemaName))")
        } catch {
            session.rollback()
            throw Self.writeError(error, store: location)
        }
        do {
            try session.commit()
        } catch {
            throw Self.commitError(error, store: location)
        }
        return try revision()
    }

    private func insert<Table: EntityTable>(_ entities: [Table.Entity], _: Table.Type, wrote: ((Int) -> Void)? = nil) throws {
        for batch in entities.chunks(of: Table.batchSize) {
            try session.execute(Table.insert(batch))
            wrote?(batch.count)
        }
    }
}
