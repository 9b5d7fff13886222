import Dependencies
import Foundation
import ShiftCore

extension ChangeLogClient: DependencyKey {
    /// Works on the `scheduleConnection` in effect where each call is made.
    public static let liveValue = ChangeLogClient.live { .current }
    /// The live implementation over the preview connection (sample data in memory).
    public static let previewValue = liveValue

    /// The live implementation over one connection.
    public static func live(connection: ScheduleConnection) -> ChangeLogClient { live { connection } }

    static func live(_ connection: @escaping @Sendable () -> ScheduleConnection) -> ChangeLogClient {
        ChangeLogClient(
            save: { entry in try await connection().apply(.recordChangeLogEntry(entry)) },
            // `prepare()`: a JSON store's log is read on first use, and a damaged one throws here.
            fetchAll: { try await connection().read { try $0.changeLog.prepare(); return $0.changeLog.entries(newestFirst: true) } },
            fetchInRange: { from, to in
                try await connection().read { try $0.changeLog.prepare(); return $0.changeLog.entries(from: from, to: to, newestFirst: true) }
            },
            // Only the entries asked for are read (a JSON store's log entry by entry, as `log`
            // does); a damaged one among them throws.
            fetchRecent: { limit in
                try await connection().read { schedule in
                    try schedule.changeLog.prepareToList()
                    let recent = schedule.changeLog.entries(newestFirst: true, limit: max(0, limit))
                    if let failure = schedule.changeLog.takeFailure() { throw failure }
                    return recent
                }
            },
            deleteOlderThan: { date in try await Self.prune(connection(), before: date) },
            deleteAll: { try await Self.prune(connection(), before: .distantFuture) },
            observe: { limit in
                connection().stream { store in
                    let schedules = await store.observe()
                    return AsyncStream { continuation in
                        let task = Task {
                            var last: [ChangeLogEntry]?
                            for await schedule in schedules {
                                let recent = schedule.changeLog.entries(newestFirst: true, limit: max(0, limit))
                                if recent != last { continuation.yield(recent) }
                                last = recent
                            }
                            continuation.finish()
                        }
                        continuation.onTermination = { _ in task.cancel() }
                    }
                }
            }
        )
    }

    private static func prune(_ connection: ScheduleConnection, before cutoff: Date) async throws -> Int {
        let result = try await connection.apply(.pruneChangeLog(before: cutoff))
        return result.changes.reduce(0) { total, change in
            if case let .changeLogPruned(removed) = change { return total + removed }
            return total
        }
    }
}
