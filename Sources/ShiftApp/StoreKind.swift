import Foundation
import ShiftCore
import ShiftStorage
import ShiftStorageSQLite

/// The storage backends a store path can name, picked by its extension.
public enum StoreKind: String, CaseIterable, Sendable {
    /// One human-readable JSON file (`.json`): the default.
    case json
    /// A SQLite database through GRDB (`.sqlite`, `.sqlite3`, `.db`): for large schedules.
    case sqlite

    /// The backend a path's extension names (nil for any other extension).
    public init?(path: String) {
        switch (path as NSString).pathExtension.lowercased() {
        case "json": self = .json
        case "sqlite", "sqlite3", "db": self = .sqlite
        default: return nil
        }
    }

    /// The extensions users can give, for messages.
    public static let extensionsText = ".json, .sqlite (or .sqlite3, .db)"

    /// A repository over the store at `path`. A JSON repository touches no file until `load()`;
    /// a SQLite one opens the database now (and with `createIfMissing`, creates it).
    public func repository(path: String, createIfMissing: Bool = false, initialSettings: StoreSettings = StoreSettings()) throws -> any ScheduleRepository {
        switch self {
        case .json: JSONFileRepository(path: path, createIfMissing: createIfMissing, initialSettings: initialSettings)
        case .sqlite: try SQLiteRepository(path: path, createIfMissing: createIfMissing, initialSettings: initialSettings)
        }
    }

    /// Writes a whole schedule as a new store at `path` (which must not exist), in one step:
    /// for `migrate`. On failure nothing is left at `path`.
    public func create(_ schedule: Schedule, at path: String) throws {
        do {
            switch self {
            case .json:
                try JSONFileRepository(path: path).write(StoreFileCodec.encode(schedule))
            case .sqlite:
                try SQLiteRepository(path: path, createIfMissing: true, initialSettings: schedule.settings).write(schedule)
            }
        } catch {
            removeFiles(at: path)
            throw error
        }
    }

    /// Removes a store's files (the store, its lock, and SQLite's journal files): undoes a store
    /// that a failed `init` or import created.
    public func removeFiles(at path: String) {
        let companions = switch self {
        case .json: [".lock"]
        case .sqlite: ["-wal", "-shm", "-journal", ".lock"]
        }
        for suffix in [""] + companions { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}
