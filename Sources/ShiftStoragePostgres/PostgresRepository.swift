import Foundation
import PostgresNIO
import ShiftCore
import ShiftStorage
import Synchronization

/// A schedule kept by a PostgreSQL server, shared by everyone who can reach it.
///
/// - `load()` reads the catalog (settings, locations, shift types, people, demand,
///   availability); shifts and the change log are read on demand through indexed SQL
///   (`PostgresScheduleSource`), so opening a schedule of a million shifts costs what opening one
///   of ten does.
/// - A mutation is one SERIALIZABLE transaction: `tryLockForWriting` begins it, the rules' reads
///   run inside it, `save` writes the changed rows, the log entries and a `commits` row, notifies
///   watchers and commits. When PostgreSQL detects that concurrent writers conflict (SQLSTATE
///   40001, or a deadlock, 40P01) the transaction is rolled back and the store's funnel runs the
///   mutation again on the new state (`RetryableStoreError`). There is no lock across
///   repositories: writers on different people commit side by side. One repository runs one
///   transaction at a time (its stores share its connection).
/// - Several schedules can share one database (`?schedule=NAME`), each in a schema of its own,
///   built by named, append-only migrations (`PostgresSchema`).
public final class PostgresRepository: IdentifyingRepository {
    public let target: PostgresLocation
    public var location: String { target.description }
    let session: PostgresSession
    private let source: PostgresScheduleSource

    private struct WriteState {
        /// A store of this repository is writing (one transaction at a time).
        var locked = false
        /// The revision last handed out by `load` or `save`, and its catalog generation.
        var revision: StoreRevision?
        var catalogGeneration: Int64 = -1
    }

    private let state = Mutex(WriteState())
    /// Who the connection is, once asked (`databaseIdentity()`): names the user in the
    /// database's refusals.
    let knownIdentity = Mutex<DatabaseIdentity?>(nil)

    /// Connects to the server and checks the schedule.
    ///
    /// - Parameters:
    ///   - location: where the schedule is.
    ///   - createIfMissing: set the schedule up when the database holds none by that name yet
    ///     (`shiftctl init`), with `initialSettings`.
    /// - Throws: `PostgresStoreError`: `.cannotConnect`, `.notFound`, `.notAStore` (another
    ///   application's database or schema), `.newerSchema`, `.invalidContent`.
    public init(location: PostgresLocation, createIfMissing: Bool = false, initialSettings: StoreSettings = StoreSettings()) throws {
        target = location
        let schema = location.schemaName
        session = PostgresSession(
            store: location.description, configuration: try location.connectionConfiguration(),
            setup: [
                "SET search_path TO \(PostgresSchema.quoted(schema)), pg_catalog",
                // Index scans take SERIALIZABLE's predicate locks on the index pages they read;
                // a sequential scan (the planner's choice on small tables) locks the whole table,
                // and then writers on different people would conflict for nothing.
                "SET enable_seqscan = off",
                // That makes a sequential scan of a small table look 10^10 expensive, which the
                // JIT compiler takes for a reason to compile it: 100-200 ms for a query of a
                // millisecond (the few such scans: the catalog views, a filter on attributes).
                "SET jit = off",
                "SET application_name = 'shiftscheduler'",
            ])
        source = PostgresScheduleSource(session: session)
        try session.connect()
        try open(schema: schema, createIfMissing: createIfMissing, initialSettings: initialSettings)
    }

    /// Opens the store a `postgres://` URL names (completed from the `PG*` variables).
    public convenience init(url: String, environment: [String: String] = ProcessInfo.processInfo.environment,
                            createIfMissing: Bool = false, initialSettings: StoreSettings = StoreSettings()) throws {
        try self.init(location: PostgresLocation(url: url, environment: environment), createIfMissing: createIfMissing,
                      initialSettings: initialSettings)
    }

    private func open(schema: String, createIfMissing: Bool, initialSettings: StoreSettings) throws {
        let state: PostgresSchema.State
        do { state = try PostgresSchema.state(schema: schema, session) } catch { throw readFailure(error) }
        switch state {
        case .current: return
        case let .empty(foreign) where !foreign.isEmpty:
            throw PostgresStoreError.notAStore(
                store: location, reason: "the database holds another application's tables (\(foreign.joined(separator: ", ")))")
        case .empty where !createIfMissing: throw PostgresStoreError.notFound(store: location)
        case .empty, .older:
            if createIfMissing, ZoneRules(identifier: initialSettings.timeZoneIdentifier) == nil {
                throw PostgresStoreError.invalidContent(
                    store: location,
                    reason: "settings.timeZone: '\(initialSettings.timeZoneIdentifier)' is not an IANA time zone (e.g. Europe/Berlin)")
            }
            do {
                try PostgresSchema.migrate(schema: schema, initialSettings: initialSettings, session)
            } catch {
                throw PostgresStoreError.writeFailed(store: location, reason: "could not set up the schedule: \(Self.reason(error))")
            }
        case let .newer(unknown): throw PostgresStoreError.newerSchema(store: location, unknown: unknown)
        case let .foreign(reason): throw PostgresStoreError.notAStore(store: location, reason: reason)
        }
    }

    // MARK: ScheduleRepository

    public var savesLogFromSummary: Bool { true }

    public func load() throws -> (Schedule, StoreRevision) {
        let (catalog, revision, generation) = try reading { () throws -> (Catalog, StoreRevision, Int64) in
            if session.inTransaction {
                // Inside the funnel's transaction: the catalog as this transaction sees it.
                let generation = try Self.catalogGeneration(session)
                return (try Catalog.read(session), StoreRevision("catalog:\(generation)"), generation)
            }
            // A snapshot of its own, so the catalog and the revision belong together.
            try session.begin("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            defer { session.rollback() }
            let (revision, generation) = try Self.currentRevision(session)
            return (try Catalog.read(session), revision, generation)
        }
        do {
            let schedule = try Schedule(
                settings: catalog.settings, locations: catalog.locations, shiftTypes: catalog.shiftTypes,
                people: catalog.people, demand: catalog.demand, availability: catalog.availability,
                requests: catalog.requests, source: source)
            remember(revision, generation: generation)
            return (schedule, revision)
        } catch {
            throw PostgresStoreError.invalidContent(store: location, reason: "\(error)")
        }
    }

    /// Outside a transaction: the catalog generation and the count and last number of commits.
    /// Inside the funnel's transaction only the catalog matters (shifts and the log are read
    /// from the server anyway), and reading the commits there would make every two concurrent
    /// writers conflict: the last revision handed out while the catalog is unchanged.
    public func revision() throws -> StoreRevision {
        try reading {
            guard session.inTransaction else { return try Self.currentRevision(session).0 }
            let generation = try Self.catalogGeneration(session)
            let known = state.withLock { $0.catalogGeneration == generation ? $0.revision : nil }
            return known ?? StoreRevision("catalog:\(generation)")
        }
    }

    /// Begins the mutation's SERIALIZABLE transaction; false while another store of this
    /// repository is writing.
    public func tryLockForWriting() throws -> Bool {
        let taken = state.withLock { state in
            if state.locked { return false }
            state.locked = true
            return true
        }
        guard taken else { return false }
        do {
            try session.begin()
        } catch {
            state.withLock { $0.locked = false }
            throw writeFailure(error)
        }
        return true
    }

    /// Rolls back whatever the transaction did when it did not commit.
    public func unlockForWriting() {
        session.rollback()
        state.withLock { $0.locked = false }
    }

    public func save(_ schedule: Schedule, summary: CommitSummary) throws -> StoreRevision {
        let ownsTransaction = !session.inTransaction
        if ownsTransaction { try withWriteErrors { try session.begin() } }
        var catalogChanged = false
        do {
            try withWriteErrors {
                catalogChanged = try writeChanges(summary.changes)
                if let cutoff = schedule.changeLog.prunedBefore {
                    try session.execute("DELETE FROM change_log WHERE timestamp < \(Millis.lower(cutoff))")
                }
                for batch in summary.logEntries.chunks(of: ChangeLogTable.batchSize) {
                    try session.execute(ChangeLogTable.insert(batch))
                }
                try recordCommit(catalog: catalogChanged)
            }
        } catch {
            session.rollback()
            throw error
        }
        do {
            try session.commit()
        } catch {
            session.rollback()
            throw commitFailure(error)
        }
        let (revision, generation) = try reading { try Self.currentRevision(session) }
        remember(revision, generation: generation)
        return revision
    }

    // MARK: Steps

    /// Writes each entity change; returns whether any changed the catalog.
    private func writeChanges(_ changes: [Change]) throws -> Bool {
        var catalog = false
        var added: [ScheduledShift] = []
        for change in changes {
            switch change {
            case let .location(before, after): try LocationTable.apply(before: before, after: after, session)
            case let .shiftType(before, after): try ShiftTypeTable.apply(before: before, after: after, session)
            case let .person(before, after): try PersonTable.apply(before: before, after: after, session)
            case let .shift(nil, after?, _): added.append(after)
            case let .shift(before, after, _): try ShiftTable.apply(before: before, after: after, session)
            case let .demand(before, after): try DemandTable.apply(before: before, after: after, session)
            case let .availability(before, after): try AvailabilityTable.apply(before: before, after: after, session)
            case let .settings(_, after): try session.execute(SettingsRow.update(after))
            case let .request(before, after): try RequestTable.apply(before: before, after: after, session)
            case .changeLogPruned, .changeLogRecorded: continue
            }
            if case .shift = change { continue }
            catalog = true
        }
        for batch in added.chunks(of: ShiftTable.manyBatchSize) { try session.execute(ShiftTable.insertMany(batch)) }
        return catalog
    }

    /// The commit's row (and a new catalog generation when the catalog changed), and a
    /// notification that watchers receive when the transaction commits.
    private func recordCommit(catalog: Bool) throws {
        if catalog { try session.execute("UPDATE meta SET catalog_generation = catalog_generation + 1 WHERE id = 1") }
        try session.execute("INSERT INTO commits (catalog) VALUES (\(catalog))")
        try session.execute("SELECT pg_notify(\(PostgresSchema.channel), \(target.schemaName))")
    }

    private func remember(_ revision: StoreRevision, generation: Int64) {
        state.withLock { state in
            state.revision = revision
            state.catalogGeneration = generation
        }
    }

    static func catalogGeneration(_ session: PostgresSession) throws -> Int64 {
        guard let row = try session.rows("SELECT catalog_generation FROM meta WHERE id = 1").first else {
            throw ContentError(description: "meta: the row is missing")
        }
        return try RowReader(row).int(0)
    }

    /// The revision outside a write: store id, catalog generation, and how many commits there
    /// were and the last one's number (a commit that took its number early and committed late
    /// still changes the count).
    static func currentRevision(_ session: PostgresSession) throws -> (StoreRevision, Int64) {
        guard let first = try session.rows("""
            SELECT store_id, catalog_generation, (SELECT count(*) FROM commits), (SELECT coalesce(max(seq), 0) FROM commits)
            FROM meta WHERE id = 1
            """).first else { throw ContentError(description: "meta: the row is missing") }
        let row = RowReader(first)
        let generation = try row.int(1)
        let id = try row.uuid(0).lowercasedString.prefix(8)
        return (StoreRevision("\(id):\(generation):\(try row.int(2)):\(try row.int(3))"), generation)
    }

    // MARK: Errors

    func reading<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw readFailure(error) }
    }

    private func withWriteErrors<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw writeFailure(error) }
    }

    /// A failed read, write or commit; one the database refused for want of a privilege is
    /// `ScheduleError.forbidden` naming who and what (`refusal(_:)`).
    func readFailure(_ error: any Error) -> any Error { refusal(error) ?? Self.readError(error, store: location) }
    func writeFailure(_ error: any Error) -> any Error { refusal(error) ?? Self.writeError(error, store: location) }
    func commitFailure(_ error: any Error) -> any Error { refusal(error) ?? Self.commitError(error, store: location) }

    static func readError(_ error: any Error, store: String) -> any Error {
        if let conflict = conflict(in: error, store: store) { return conflict }
        switch error {
        case let error as PostgresStoreError: return error
        case let error as ContentError: return PostgresStoreError.invalidContent(store: store, reason: error.description)
        case let error as PSQLError where isConnectionFailure(error):
            return PostgresStoreError.cannotConnect(store: store, reason: error.summary)
        default: return PostgresStoreError.readFailed(store: store, reason: reason(error))
        }
    }

    static func writeError(_ error: any Error, store: String) -> any Error {
        if let conflict = conflict(in: error, store: store) { return conflict }
        switch error {
        case let error as PostgresStoreError: return error
        case let error as PSQLError where isConnectionFailure(error):
            return PostgresStoreError.cannotConnect(store: store, reason: error.summary)
        default: return PostgresStoreError.writeFailed(store: store, reason: reason(error))
        }
    }

    /// A failed COMMIT: a conflict or a refused constraint rolled it back; a lost connection
    /// leaves the outcome unknown.
    static func commitError(_ error: any Error, store: String) -> any Error {
        if let conflict = conflict(in: error, store: store) { return conflict }
        if let error = error as? PSQLError, isConnectionFailure(error) {
            return PostgresStoreError.commitUnknown(store: store, reason: error.summary)
        }
        return PostgresStoreError.writeFailed(store: store, reason: reason(error))
    }

    static func isConnectionFailure(_ error: PSQLError) -> Bool {
        [.connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown].contains(error.code)
    }

    static func reason(_ error: any Error) -> String {
        switch error {
        case let error as PSQLError: error.summary
        case let error as PostgresStoreError: error.description
        default: "\(error)"
        }
    }
}

/// What `load()` reads: everything but the shifts and the change log.
struct Catalog {
    var settings: StoreSettings
    var locations: [Location]
    var shiftTypes: [ShiftType]
    var people: [Person]
    var demand: [Demand]
    var availability: [Availability]
    var requests: [Request]

    static func read(_ session: PostgresSession) throws -> Catalog {
        Catalog(
            settings: try SettingsRow.read(session), locations: try all(LocationTable.self, session),
            shiftTypes: try all(ShiftTypeTable.self, session), people: try all(PersonTable.self, session),
            demand: try all(DemandTable.self, session), availability: try all(AvailabilityTable.self, session),
            requests: try RequestTable.all(session))
    }

    private static func all<Table: EntityTable>(_: Table.Type, _ session: PostgresSession) throws -> [Table.Entity] {
        try session.rows(Table.selectAll).map(Table.decodeRow)
    }
}

extension Collection {
    /// Consecutive slices of at most `size` elements.
    func chunks(of size: Int) -> [SubSequence] {
        var result: [SubSequence] = []
        var start = startIndex
        while start != endIndex {
            let end = index(start, offsetBy: size, limitedBy: endIndex) ?? endIndex
            result.append(self[start..<end])
            start = end
        }
        return result
    }
}
