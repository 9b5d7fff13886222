import Foundation
import PostgresNIO
import ShiftCore
import Synchronization

extension PostgresRepository: CommitObservingRepository {
    /// Calls `onCommit` after commits made by anyone (other processes, other machines). LISTEN
    /// only wakes the watcher; it then reads the `commits` table past what it has seen, so a
    /// notification lost with a dropped connection loses nothing (the watcher also looks every
    /// few seconds, and after reconnecting).
    public func observeCommits(_ onCommit: @escaping @Sendable () -> Void) throws -> any CommitObservation {
        // The watermark now, not when the watcher's connection is up: a commit made meanwhile
        // is then reported.
        let horizon = try reading { () throws -> Int64 in
            guard let row = try session.rows("SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint").first else {
                throw ContentError(description: "the server did not say its snapshot")
            }
            return try RowReader(row).int(0)
        }
        let watcher = CommitWatcher(configuration: try target.clientConfiguration(), schema: target.schemaName)
        watcher.start(after: horizon) { _ in onCommit() }
        return watcher
    }
}

/// Watches a schedule's commits through a `PostgresClient`: one connection listens on the
/// commits channel; each wake-up reads the commits by transaction id past a watermark.
///
/// The watermark is the oldest transaction still running when the watcher last read
/// (`pg_snapshot_xmin`): every commit below it is final, and every later one has a higher
/// transaction id, so a commit that started early and committed late is not skipped, whatever
/// order the sequence numbers were taken in. A commit at or past the watermark is reported as
/// soon as it is visible, and remembered until the watermark passes it, so a transaction left
/// open elsewhere on the server (a long report, a forgotten session) delays nobody's updates.
final class CommitWatcher: CommitObservation {
    private let client: PostgresClient
    private let schema: String
    private let task = Mutex<Task<Void, Never>?>(nil)
    /// How often the watcher reads without being woken.
    static let pollInterval: Duration = .seconds(2)

    init(configuration: PostgresClient.Configuration, schema: String) {
        client = PostgresClient(configuration: configuration)
        self.schema = schema
    }

    /// Starts watching; `onCommits` gets the number of new commits each time there are some.
    func start(after horizon: Int64, _ onCommits: @escaping @Sendable (Int) -> Void) {
        let client = client
        let schema = schema
        let running = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await client.run() }
                group.addTask { await Self.watch(client, schema: schema, after: horizon, onCommits) }
                await group.next()
                group.cancelAll()
            }
        }
        task.withLock { $0 = running }
    }

    func cancel() {
        task.withLock { task in
            task?.cancel()
            task = nil
        }
    }

    deinit { cancel() }

    private static func watch(_ client: PostgresClient, schema: String, after horizon: Int64, _ onCommits: @escaping @Sendable (Int) -> Void) async {
        let (wakeUps, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await listen(client, schema: schema, wake) }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: pollInterval)
                    wake.yield()
                }
            }
            group.addTask {
                var seen = Seen(watermark: horizon)
                for await _ in wakeUps {
                    guard let count = try? await seen.read(client) else { continue }
                    if count > 0 { onCommits(count) }
                }
            }
            await group.next()
            group.cancelAll()
            wake.finish()
        }
    }

    /// Listens on the commits channel, waking the reader for this schema's notifications;
    /// reconnects after a second when the connection is lost.
    private static func listen(_ client: PostgresClient, schema: String, _ wake: AsyncStream<Void>.Continuation) async {
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    let notifications = try await connection.listen(PostgresSchema.channel)
                    wake.yield()
                    for try await notification in notifications where notification.payload == schema { wake.yield() }
                }
            } catch {
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// What the watcher has reported: everything below `watermark`, and the commits at or past it
    /// in `reported`.
    struct Seen {
        var watermark: Int64
        var reported: Set<Int64> = []

        /// Reads the commits visible now; returns how many of them are new.
        mutating func read(_ client: PostgresClient) async throws -> Int {
            let rows = try await client.query("""
                SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint,
                       array(SELECT xid::text::bigint FROM commits WHERE xid >= (\(watermark)::text)::xid8)
                """)
            for try await (horizon, visible) in rows.decode((Int64, [Int64]).self) {
                return take(visible: visible, horizon: horizon)
            }
            return 0
        }

        /// Takes one read: the ids of the commits visible at or past the watermark, and the
        /// oldest transaction still running. Returns how many commits were not reported before.
        mutating func take(visible: [Int64], horizon: Int64) -> Int {
            var new = 0
            var kept: Set<Int64> = []
            for xid in visible {
                if !reported.contains(xid) { new += 1 }
                // Below the horizon nothing can commit any more: the watermark covers it.
                if xid >= horizon { kept.insert(xid) }
            }
            reported = kept
            watermark = max(watermark, horizon)
            return new
        }
    }
}
