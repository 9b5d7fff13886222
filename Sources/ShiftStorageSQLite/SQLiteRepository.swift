import Foundation
import GRDB
import ShiftCore
import ShiftStorage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A schedule store in one SQLite database (through GRDB), for schedules too big to load whole.
///
/// - `load()` reads the catalog (settings, locations, shift types, people, demand, availability,
///   requests) and returns a schedule whose shifts and change log are read on demand from the database, so
///   opening a store of a million shifts costs what opening one of ten does.
/// - A commit is one SQLite transaction writing only what the mutation changed, plus its log
///   entries and a new generation (the revision). A failure anywhere rolls all of it back.
/// - WAL journal: readers (the rule engine's workers, other processes) never wait for a writer.
///   Writers exclude each other with the same advisory lock on `<file>.lock` as the JSON store;
///   SQLite's own locks, waited for up to ten seconds, keep anything else from failing with
///   SQLITE_BUSY.
/// - The layout is built by named, append-only migrations (`SQLiteSchema`); a database written
///   by a newer build is refused with `StorageError.unsupportedVersion`, a file that is not a
///   ShiftScheduler database with `.notAStore`, and neither is changed.
public final class SQLiteRepository: ScheduleRepository {
    public let path: String
    public var location: String { path }
    private let pool: DatabasePool
    private let source: SQLiteScheduleSource
    private let writeLock: FileLock
    /// Opened read only: this process may not write the file or its folder (another user's
    /// store, read-only media). Reads work; a write fails with a clear error.
    public let isReadOnly: Bool

    /// How long a connection waits for SQLite's locks, and `write` for the store's write lock.
    static let busyTimeout: TimeInterval = 10

    /// Opens the store at `path`.
    ///
    /// - Parameters:
    ///   - path: the database file (`schedule.sqlite`).
    ///   - createIfMissing: when there is no file (or an empty database), create the store now,
    ///     with `initialSettings`, instead of throwing `.notFound`. Creating on open rather than on
    ///     the first save keeps one code path for every later read: a store that exists always
    ///     has its tables, its settings row and generation 0.
    /// - Throws: `StorageError.notFound`, `.notAStore` (not SQLite, damaged, another program's
    ///   database), `.unsupportedVersion`, `.unreadable`, or `.invalidContent` for bad initial
    ///   settings.
    public convenience init(path: String, createIfMissing: Bool = false, initialSettings: StoreSettings = StoreSettings()) throws {
        try self.init(path: path, createIfMissing: createIfMissing, initialSettings: initialSettings, trace: nil)
    }

    /// - Parameter trace: called with every SQL statement any connection runs (tests).
    init(path: String, createIfMissing: Bool, initialSettings: StoreSettings, trace: (@Sendable (String) -> Void)?) throws {
        self.path = path
        writeLock = FileLock(storePath: path)
        let migrator = SQLiteSchema.migrator(initialSettings: initialSettings)
        var needsMigration = true
        var creates = false
        let exists = try Self.fileExists(path)
        isReadOnly = exists && !Self.mayWrite(path)
        // Read only, a database in WAL mode needs its -shm file, which only a writer can make
        // once the last connection removed it: then the file is read as immutable.
        let readPath = isReadOnly ? try Self.readOnlyPath(path) : path
        if exists {
            switch try Self.inspect(readPath, migrator, path: path) {
            case .current: needsMigration = false
            case .older: break
            case .empty where createIfMissing: creates = true
            case .empty: throw StorageError.notAStore(path: path, reason: "the database is empty")
            case let .newer(version):
                throw StorageError.unsupportedVersion(path: path, version: version, newest: SQLiteSchema.currentVersion)
            case let .foreign(reason): throw StorageError.notAStore(path: path, reason: reason)
            }
        } else {
            guard createIfMissing else { throw StorageError.notFound(path: path) }
            creates = true
        }
        if creates, ZoneRules(identifier: initialSettings.timeZoneIdentifier) == nil {
            throw StorageError.invalidContent(
                path: path, reason: "settings.timeZone: '\(initialSettings.timeZoneIdentifier)' is not an IANA time zone (e.g. Europe/Berlin)")
        }
        if isReadOnly, needsMigration {
            throw StorageError.unreadable(path: path, reason: "the store was written by an older version and must be upgraded, which needs write access to it")
        }
        pool = isReadOnly ? try Self.openReadOnlyPool(readPath, path: path, trace: trace) : try Self.openPool(path, trace: trace)
        source = SQLiteScheduleSource(pool: pool, path: path)
        if needsMigration { try migrate(migrator) }
    }

    /// Whether this process may write the store: the file and its folder (for the -wal and
    /// -shm files SQLite keeps beside it).
    private static func mayWrite(_ path: String) -> Bool {
        let folder = (path as NSString).deletingLastPathComponent
        return access(path, W_OK) == 0 && access(folder.isEmpty ? "." : folder, W_OK) == 0
    }

    /// The path to open a store this process may not write: the file itself when SQLite can read
    /// it so (a writer has the store open, so its -shm file exists), else an immutable URI.
    private static func readOnlyPath(_ path: String) throws -> String {
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration(readonly: true, trace: nil))
            _ = try queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM sqlite_master") }
            return path
        } catch let error as DatabaseError where [.SQLITE_READONLY, .SQLITE_CANTOPEN].contains(error.resultCode) {
            var allowed = CharacterSet.urlPathAllowed
            allowed.remove(charactersIn: "?#%")
            return "file:" + (path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path) + "?immutable=1"
        } catch {
            throw readError(error, path: path)
        }
    }

    private static func openReadOnlyPool(_ readPath: String, path: String, trace: (@Sendable (String) -> Void)?) throws -> DatabasePool {
        do {
            return try DatabasePool(path: readPath, configuration: configuration(readonly: true, trace: trace))
        } catch {
            throw readError(error, path: path)
        }
    }

    // MARK: ScheduleRepository

    public func load() throws -> (Schedule, StoreRevision) {
        let (catalog, meta) = try reading { db in
            try SQLiteScheduleSource.checkDateIndex(db)
            return (try Catalog.read(db), try Meta.read(db))
        }
        do {
            let schedule = try Schedule(
                settings: catalog.settings, locations: catalog.locations, shiftTypes: catalog.shiftTypes,
                people: catalog.people, demand: catalog.demand, availability: catalog.availability,
                requests: catalog.requests, source: source)
            return (schedule, meta.revision)
        } catch {
            throw StorageError.invalidContent(path: path, reason: "\(error)")
        }
    }

    public func revision() throws -> StoreRevision {
        try reading { try Meta.read($0).revision }
    }

    public func tryLockForWriting() throws -> Bool {
        try refuseIfReadOnly()
        return try writeLock.tryLock()
    }

    public func unlockForWriting() {
        writeLock.unlock()
    }

    // MARK: Reading and writing

    /// A read transaction; errors become `StorageError`s naming the file.
    func reading<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try pool.read(body)
        } catch {
            throw Self.readError(error, path: path)
        }
    }

    /// One write transaction: all of `body` or nothing.
    func writing<T>(_ body: (Database) throws -> T) throws -> T {
        try refuseIfReadOnly()
        do {
            return try pool.write(body)
        } catch {
            throw writeError(error)
        }
    }

    /// One write transaction whose foreign keys are checked once, before it commits
    /// (`PRAGMA foreign_key_check`), instead of row by row: for replacing the whole content,
    /// where the row-by-row bookkeeping also keeps SQLite from emptying a table at once.
    func writingInBulk<T>(_ body: (Database) throws -> T) throws -> T {
        try refuseIfReadOnly()
        do {
            return try pool.writeWithoutTransaction { db in
                // Outside a transaction, where the pragma takes effect.
                try db.execute(sql: "PRAGMA foreign_keys = OFF")
                defer { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
                var result: T?
                try db.inTransaction(.immediate) {
                    result = try body(db)
                    if let violation = try Row.fetchOne(db, sql: "PRAGMA foreign_key_check") {
                        let table: String = violation[0]
                        let parent: String = violation[2]
                        throw ContentError(description: "a row of \(table) refers to a missing row of \(parent)")
                    }
                    return .commit
                }
                return result!
            }
        } catch {
            throw writeError(error)
        }
    }

    private func refuseIfReadOnly() throws {
        guard isReadOnly else { return }
        throw StorageError.writeFailed(path: path, reason: "this user may not write the file or its folder, so the store is read-only here")
    }

    private func writeError(_ error: any Error) -> any Error {
        switch error {
        case let error as StorageError: error
        case let error as ContentError: StorageError.writeFailed(path: path, reason: error.description)
        case let error as DatabaseError: StorageError.writeFailed(path: path, reason: error.message ?? "\(error)")
        default: StorageError.writeFailed(path: path, reason: "\(error)")
        }
    }

    /// Runs `body` holding the write lock: as it is, when this repository holds it already (a
    /// store's commit), else taken for the call, waiting for another writer at most
    /// `busyTimeout`.
    func withWriteLock<T>(_ body: () throws -> T) throws -> T {
        if writeLock.isHeld { return try body() }
        try writeLock.lock(timeout: .seconds(Self.busyTimeout))
        defer { writeLock.unlock() }
        return try body()
    }

    // MARK: Opening

    /// Opens the pool. Opening writes (GRDB switches the file to WAL and makes sure the log
    /// exists), and a process opening the store while another commits or creates it can be told
    /// SQLITE_BUSY at once, without waiting (its read snapshot went stale): then it tries again.
    private static func openPool(_ path: String, trace: (@Sendable (String) -> Void)?) throws -> DatabasePool {
        let deadline = Date(timeIntervalSinceNow: busyTimeout)
        while true {
            do {
                let pool = try DatabasePool(path: path, configuration: configuration(readonly: false, trace: trace))
                // GRDB sets NORMAL on the writer when it enables WAL; see `configuration`.
                try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
                return pool
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && Date() < deadline {
                usleep(UInt32.random(in: 2_000...20_000))
            } catch {
                throw readError(error, path: path)
            }
        }
    }

    private static func configuration(readonly: Bool, trace: (@Sendable (String) -> Void)?) -> Configuration {
        var configuration = Configuration()
        configuration.readonly = readonly
        configuration.label = "ShiftStorageSQLite"
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(busyTimeout)
        configuration.prepareDatabase { db in
            if let trace { db.trace { trace($0.description) } }
            // FULL: in WAL mode SQLite syncs the log at every commit, so a commit the store has
            // acknowledged survives power loss, not only a killed process. (NORMAL survives a
            // SIGKILL too, since the WAL is already in the OS's hands, but may lose the last
            // commits when the machine goes down.) A commit is one small transaction, so the
            // one fsync it costs is the price of the guarantee. Set again on the pool's writer
            // after GRDB's WAL set-up, which chooses NORMAL.
            try db.execute(sql: "PRAGMA synchronous = FULL")
            if !db.configuration.readonly {
                // The writer's cache (64 MiB, the default is 2): the index pages a commit touches
                // stay in memory, and a bulk `write` sorts its index builds in memory.
                try db.execute(sql: "PRAGMA cache_size = -65536")
            }
        }
        return configuration
    }

    /// Whether there is a file at `path` (a directory or an unreadable path throws).
    ///
    /// Only `stat`: the file itself is opened by SQLite alone. Closing any descriptor of a file
    /// drops every POSIX lock this process holds on it, SQLite's included (SQLite keeps its own
    /// descriptors open for that reason); another process could then take the database for
    /// unused, checkpoint it and delete the WAL under this one's open connections.
    private static func fileExists(_ path: String) throws -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT { return false }
            throw StorageError.unreadable(path: path, reason: String(cString: strerror(code)))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw StorageError.unreadable(path: path, reason: "not a regular file") }
        return true
    }

    /// The state of an existing database, read through a read-only connection so that a file
    /// that turns out not to be ours is left exactly as it was (a pool would switch it to WAL).
    private static func inspect(_ readPath: String, _ migrator: DatabaseMigrator, path: String) throws -> SchemaState {
        do {
            let queue = try DatabaseQueue(path: readPath, configuration: configuration(readonly: true, trace: nil))
            return try queue.read { try SchemaState(db: $0, migrator: migrator) }
        } catch {
            throw readError(error, path: path)
        }
    }

    /// Creates the store or brings it to the current layout, under the write lock so that two
    /// processes opening a new store at once create it once.
    private func migrate(_ migrator: DatabaseMigrator) throws {
        try withWriteLock {
            let state = try reading { try SchemaState(db: $0, migrator: migrator) }
            switch state {
            case .current: return
            case .empty, .older:
                do {
                    try migrator.migrate(pool)
                } catch {
                    throw StorageError.writeFailed(path: path, reason: "could not create or upgrade the database: \(error)")
                }
            case let .newer(version):
                throw StorageError.unsupportedVersion(path: path, version: version, newest: SQLiteSchema.currentVersion)
            case let .foreign(reason): throw StorageError.notAStore(path: path, reason: reason)
            }
        }
    }

    static func readError(_ error: any Error, path: String) -> any Error {
        switch error {
        case let error as StorageError: return error
        case let error as ContentError: return StorageError.invalidContent(path: path, reason: error.description)
        case let error as DatabaseError:
            switch error.resultCode {
            case .SQLITE_NOTADB: return StorageError.notAStore(path: path, reason: "not a SQLite database")
            case .SQLITE_CORRUPT: return StorageError.notAStore(path: path, reason: "the database is damaged (\(error.message ?? "corrupt"))")
            default: return StorageError.unreadable(path: path, reason: error.message ?? "\(error)")
            }
        default: return error
        }
    }
}

/// What an existing database holds.
enum SchemaState: Equatable {
    /// No tables of ours (a new or zero-length file, or one being created).
    case empty
    case current
    /// A ShiftScheduler store missing migrations this build has.
    case older
    /// Written by a newer build (format version).
    case newer(Int)
    /// Something else; why.
    case foreign(String)

    init(db: Database, migrator: DatabaseMigrator) throws {
        let tables = try String.fetchSet(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        // GRDB's own tables alone: a store another process is creating right now.
        if tables.subtracting(["grdb_migrations", "grdb_issue_102"]).isEmpty {
            self = .empty
            return
        }
        guard tables.contains("meta") else {
            self = .foreign("a SQLite database without ShiftScheduler's tables")
            return
        }
        let row: Row?
        do {
            row = try Row.fetchOne(db, sql: "SELECT format, version FROM meta WHERE id = 1")
        } catch let error as DatabaseError where error.resultCode == .SQLITE_ERROR {
            self = .foreign("its meta table is not ShiftScheduler's")
            return
        }
        guard let row, String.fromDatabaseValue(row[0]) == SQLiteSchema.format, let version = Int.fromDatabaseValue(row[1]) else {
            self = .foreign("its meta table is not ShiftScheduler's")
            return
        }
        let superseded = try migrator.hasBeenSuperseded(db)
        if version > SQLiteSchema.currentVersion || superseded {
            self = .newer(max(version, SQLiteSchema.currentVersion + 1))
        } else if try !migrator.hasCompletedMigrations(db) {
            self = .older
        } else {
            self = .current
        }
    }
}

/// The one row of `meta`.
struct Meta {
    var storeID: UUID
    var generation: Int64
    var shiftCount: Int64
    var changeLogCount: Int64

    /// The store's id and generation: a file replaced by another store never reads as unchanged.
    var revision: StoreRevision { StoreRevision("\(storeID.lowercasedString.prefix(8)):\(generation)") }

    static func read(_ db: Database) throws -> Meta {
        let sql = "SELECT store_id, generation, shift_count, change_log_count FROM meta WHERE id = 1"
        guard let meta = try Binder(try db.cachedStatement(sql: sql)).firstRow(db, { row in
            Meta(storeID: try row.uuid(0), generation: try row.int(1), shiftCount: try row.int(2), changeLogCount: try row.int(3))
        }) else { throw ContentError(description: "meta: the row is missing") }
        return meta
    }

    /// Moves the generation on and adjusts the counts; returns the new row.
    static func commit(_ db: Database, shiftDelta: Int64, changeLogDelta: Int64) throws -> Meta {
        let sql = """
            UPDATE meta SET generation = generation + 1, shift_count = shift_count + ?1,
            change_log_count = change_log_count + ?2 WHERE id = 1
            """
        // Through GRDB's own execution (not the C-level binder): that is how GRDB learns that a
        // transaction changed `meta`, which `observeCommits` (ValueObservation) listens to.
        try db.execute(sql: sql, arguments: [shiftDelta, changeLogDelta])
        return try read(db)
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

    static func read(_ db: Database) throws -> Catalog {
        Catalog(
            settings: try SettingsRow.read(db), locations: try LocationTable.all(db), shiftTypes: try ShiftTypeTable.all(db),
            people: try PersonTable.all(db), demand: try DemandTable.all(db), availability: try AvailabilityTable.all(db),
            requests: try RequestTable.all(db))
    }
}

// MARK: - Observation

extension SQLiteRepository: CommitObservingRepository {
    /// GRDB's `ValueObservation` of the store's generation (bumped by every commit): it hears
    /// every commit made through this repository's connections, from any store over it. Commits
    /// of other processes are not seen by SQLite's observation; a store picks them up when it
    /// next refreshes or changes anything.
    public func observeCommits(_ onCommit: @escaping @Sendable () -> Void) throws -> any CommitObservation {
        let observation = ValueObservation
            .trackingConstantRegion { db in try Int64.fetchOne(db, sql: "SELECT generation FROM meta") }
            .removeDuplicates()
        let cancellable = observation.start(
            in: pool, scheduling: .async(onQueue: DispatchQueue(label: "shiftscheduler.sqlite.observation")),
            onError: { _ in }, onChange: { _ in onCommit() })
        return SQLiteCommitObservation(cancellable)
    }
}

/// A running observation of a SQLite store's commits.
final class SQLiteCommitObservation: CommitObservation {
    private let cancellable: AnyDatabaseCancellable
    init(_ cancellable: AnyDatabaseCancellable) { self.cancellable = cancellable }
    func cancel() { cancellable.cancel() }
    deinit { cancellable.cancel() }
}
