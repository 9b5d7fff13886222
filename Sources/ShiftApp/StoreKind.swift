import Foundation
import ShiftCore
import ShiftStorage
import ShiftStorageSQLite
import ShiftStoragePostgres

/// The storage backends a store path can name, picked by its extension (or, for PostgreSQL, its
/// `postgres://` scheme).
public enum StoreKind: String, CaseIterable, Sendable {
    /// One human-readable JSON file (`.json`): the default.
    case json
    /// A SQLite database through GRDB (`.sqlite`, `.sqlite3`, `.db`): for large schedules.
    case sqlite
    /// A schedule on a PostgreSQL server (`postgres://…`, `postgresql://…`): shared by a team.
    case postgres

    /// The backend a path's extension names (nil for any other extension).
    public init?(path: String) {
        if PostgresLocation.isURL(path) {
            self = .postgres
            return
        }
        switch (path as NSString).pathExtension.lowercased() {
        case "json": self = .json
        case "sqlite", "sqlite3", "db": self = .sqlite
        default: return nil
        }
    }

    /// The extensions users can give, for messages.
    public static let extensionsText = ".json, .sqlite (or .sqlite3, .db), or a postgres:// URL"

    /// A repository over the store at `path`. A JSON repository touches no file until `load()`;
    /// a SQLite one opens the database now (and with `createIfMissing`, creates it).
    /// `jsonIndexThreshold` is a JSON store's `JSONFileRepository.indexThreshold`.
    public func repository(
        path: String, createIfMissing: Bool = false, initialSettings: StoreSettings = StoreSettings(),
        jsonIndexThreshold: Int? = JSONFileRepository.defaultIndexThreshold
    ) throws -> any ScheduleRepository {
        switch self {
        case .json:
            JSONFileRepository(path: path, createIfMissing: createIfMissing, initialSettings: initialSettings, indexThreshold: jsonIndexThreshold)
        case .sqlite: try SQLiteRepository(path: path, createIfMissing: createIfMissing, initialSettings: initialSettings)
        case .postgres: try PostgresRepository(url: path, createIfMissing: createIfMissing, initialSettings: initialSettings)
        }
    }

    /// Whether a store exists at `path` (for PostgreSQL: the database holds the schedule).
    public func exists(at path: String) throws -> Bool {
        guard self == .postgres else { return FileManager.default.fileExists(atPath: path) }
        do {
            _ = try PostgresRepository(url: path)
            return true
        } catch PostgresStoreError.notFound {
            return false
        }
    }

    /// Writes a whole schedule as a new store at `path` (which must not exist), in one step:
    /// for `migrate`. On failure nothing is left at `path` (a PostgreSQL schedule is written in
    /// one transaction; the empty schedule it set up stays). `progress` hears of the rows written
    /// (PostgreSQL only).
    public func create(_ schedule: Schedule, at path: String, progress: (@Sendable (Int, Int) -> Void)? = nil) throws {
        do {
            // A JSON store's log is read only now; a damaged one stops the copy here.
            try schedule.changeLog.prepare()
            switch self {
            case .json:
                try JSONFileRepository(path: path).write(StoreFileCodec.encode(schedule))
            case .sqlite:
                try SQLiteRepository(path: path, createIfMissing: true, initialSettings: schedule.settings).write(schedule)
            case .postgres:
                guard try !exists(at: path) else { throw AppError.storeExists(path: path) }
                let repository = try PostgresRepository(url: path, createIfMissing: true, initialSettings: schedule.settings)
                try repository.write(schedule, progress: progress)
            }
        } catch {
            removeFiles(at: path)
            throw error
        }
    }

    /// Removes a store's files (the store, its lock, a JSON store's index and SQLite's journal
    /// files): undoes a store that a failed `init` or import created.
    public func removeFiles(at path: String) {
        // Nothing to remove on a server: a schema is only ever created whole (one transaction),
        // and dropping one could drop what another store or another application keeps there.
        guard self != .postgres else { return }
        let companions = self == .json ? [".lock"] : ["-wal", "-shm", "-journal", ".lock"]
        for suffix in [""] + companions { try? FileManager.default.removeItem(atPath: path + suffix) }
        // Reading a JSON store back (migrate checks its copy) may have made its index.
        if self == .json { try? FileManager.default.removeItem(atPath: JSONFileRepository.indexPath(for: path)) }
    }
}
