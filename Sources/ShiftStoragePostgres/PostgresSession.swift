import Dispatch
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// The one connection a repository runs its synchronous work on: the funnel's transaction and
/// the reads the Lua rules make through the schedule's source.
///
/// Rules call the source synchronously (from Lua), so these queries block their thread on
/// postgres-nio's `EventLoopFuture` API; the work itself happens on NIO's event loop threads,
/// never on the Swift concurrency pool, so blocking a caller cannot starve what it waits for.
/// Queries from several threads at once are queued on the connection in order.
///
/// While a write transaction is open (`begin` … `commit`/`rollback`) every query runs on its
/// connection; should that connection die, the queries fail instead of silently running on a
/// new one outside the transaction. Outside a transaction a dead connection is replaced.
final class PostgresSession: Sendable {
    let store: String
    let configuration: PostgresConnection.Configuration
    /// Statements every new connection runs first (`SET search_path …`).
    private let setup: [String]
    let logger: Logger

    private struct State {
        var connection: PostgresConnection?
        /// The connection of the open write transaction.
        var transaction: PostgresConnection?
        var nextID = 1
    }

    private let state = Mutex(State())

    init(store: String, configuration: PostgresConnection.Configuration, setup: [String]) {
        self.store = store
        self.configuration = configuration
        self.setup = setup
        logger = Logger(label: "shiftscheduler.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
    }

    deinit {
        let (connection, transaction) = state.withLock { ($0.connection, $0.transaction) }
        if let connection { Self.close(connection) }
        if let transaction, transaction !== connection { Self.close(transaction) }
    }

    /// Closes a connection and waits for it (postgres-nio requires a connection closed before it
    /// goes away); a session dropped on an event loop thread cannot wait and only starts it.
    static func close(_ connection: PostgresConnection) {
        guard !connection.isClosed else { return }
        if connection.eventLoop.inEventLoop {
            connection.close().whenComplete { _ in _ = connection }
        } else {
            _ = try? connection.close().wait()
        }
    }

    /// Whether a write transaction is open.
    var inTransaction: Bool { state.withLock { $0.transaction != nil } }

    // MARK: Queries

    /// Runs a query and returns all its rows. Errors are postgres-nio's (`PSQLError`).
    @discardableResult
    func rows(_ query: PostgresQuery) throws -> [PostgresRow] {
        // Row by row into an array of our own: postgres-nio's collect-all `query` copies the rows
        // gathered so far each time more arrive (its array is copied out of the stream's state
        // and written back), which made reading a million shifts take tens of seconds.
        let collected = RowCollector()
        let connection = try connectionForQuery()
        try connection.query(query, logger: logger) { row in collected.add(row) }.wait()
        return collected.take()
    }

    /// Runs a statement; returns how many rows it changed.
    @discardableResult
    func execute(_ query: PostgresQuery) throws -> Int {
        try run(query).metadata.rows ?? 0
    }

    private func run(_ query: PostgresQuery) throws -> PostgresQueryResult {
        let connection = try connectionForQuery()
        return try connection.query(query, logger: logger).wait()
    }

    // MARK: Transactions

    /// Opens a SERIALIZABLE transaction (not postgres-nio's `withTransaction`, whose `BEGIN`
    /// takes the server's default isolation).
    func begin(_ statement: String = "BEGIN ISOLATION LEVEL SERIALIZABLE") throws {
        let connection = try connectionForQuery()
        try connection.query(PostgresQuery(unsafeSQL: statement), logger: logger).wait()
        state.withLock { $0.transaction = connection }
    }

    /// Commits the open transaction.
    func commit() throws {
        guard let connection = state.withLock({ $0.transaction }) else { return }
        defer { state.withLock { $0.transaction = nil } }
        try connection.query("COMMIT", logger: logger).wait()
    }

    /// Rolls the open transaction back (if any). A connection that cannot is closed, which
    /// rolls back on the server.
    func rollback() {
        guard let connection = state.withLock({ $0.transaction }) else { return }
        defer { state.withLock { $0.transaction = nil } }
        do {
            try connection.query("ROLLBACK", logger: logger).wait()
        } catch {
            Self.close(connection)
        }
    }

    // MARK: Connecting

    /// Opens the connection now (to report a server that cannot be reached when the store opens).
    func connect() throws {
        _ = try connectionForQuery()
    }

    private func connectionForQuery() throws -> PostgresConnection {
        let (transaction, current) = state.withLock { ($0.transaction, $0.connection) }
        if let transaction { return transaction }
        if let current, !current.isClosed { return current }
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        let connection = try openConnection(id: id)
        let (chosen, spare) = state.withLock { state -> (PostgresConnection, PostgresConnection?) in
            if let other = state.connection, !other.isClosed, other !== connection { return (other, connection) }
            let replaced = state.connection
            state.connection = connection
            return (connection, replaced)
        }
        if let spare { Self.close(spare) }
        return chosen
    }

    /// A new connection with the session's settings, or a `cannotConnect` error in one line.
    func openConnection(id: Int) throws -> PostgresConnection {
        let configuration = configuration
        let logger = logger
        let connection: PostgresConnection
        do {
            connection = try runBlocking {
                try await PostgresConnection.connect(configuration: configuration, id: id, logger: logger)
            }
        } catch {
            throw PostgresStoreError.cannotConnect(store: store, reason: Self.connectFailure(error))
        }
        do {
            for statement in setup { try connection.query(PostgresQuery(unsafeSQL: statement), logger: logger).wait() }
        } catch {
            Self.close(connection)
            throw PostgresStoreError.cannotConnect(store: store, reason: Self.connectFailure(error))
        }
        return connection
    }

    static func connectFailure(_ error: any Error) -> String {
        if let error = error as? PSQLError { return error.summary }
        if let error = error as? IOError { return error.description }
        return "\(error)"
    }
}

// MARK: - Blocking on async work

/// Runs async work to completion for a synchronous caller, on a queue of its own rather than the
/// Swift concurrency pool: a caller that blocks one of the pool's threads (the rules run
/// synchronously inside the store's actor) must not wait for work that needs a pool thread. Used
/// only to connect; queries use postgres-nio's futures directly.
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let result = Mutex<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task(executorPreference: BlockingExecutor.shared) {
        do {
            let value = try await body()
            result.withLock { $0 = .success(value) }
        } catch {
            result.withLock { $0 = .failure(error) }
        }
        done.signal()
    }
    done.wait()
    return try result.withLock { $0! }.get()
}

/// A task executor on one serial dispatch queue (its jobs only wait for NIO's event loops).
final class BlockingExecutor: TaskExecutor {
    static let shared = BlockingExecutor()
    private let queue = DispatchQueue(label: "shiftscheduler.postgres.blocking")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}

/// The rows of one query as they arrive on the event loop, taken once the query has ended.
private final class RowCollector: Sendable {
    private let rows = Mutex<[PostgresRow]>([])

    func add(_ row: PostgresRow) { rows.withLock { $0.append(row) } }

    func take() -> [PostgresRow] { rows.withLock { rows in defer { rows = [] }; return rows } }
}
