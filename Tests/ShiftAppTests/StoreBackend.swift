import Foundation
import ShiftCore
import ShiftStorage
import ShiftStorageSQLite
import Testing

/// A storage backend the reliability harnesses (crash safety, concurrent writers, malformed input)
/// run against through the real `shiftctl`. The harnesses only use what is here, so a new backend
/// is one more case with its file name, opener and leftover files.
enum StoreBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case json
    case sqlite

    var testDescription: String { rawValue }

    /// The store's file name; `--store` picks the backend from its extension.
    var fileName: String {
        switch self {
        case .json: "schedule.json"
        case .sqlite: "schedule.sqlite"
        }
    }

    /// Opens the store as a fresh process would and reads all of it. Opening checks the format
    /// and every core invariant (references resolve, ids unique, values valid), so a store that
    /// opens is whole.
    ///
    /// A SQLite store reads only its catalog when it opens; its shifts and change log are read
    /// here in full (`materialized()`, which checks every shift against the catalog). A read
    /// that failed is thrown, so a store that cannot be read fails the check instead of looking
    /// empty.
    func open(_ path: String) throws -> Schedule {
        switch self {
        case .json:
            return try JSONFileRepository(path: path).load().0
        case .sqlite:
            let schedule = try SQLiteRepository(path: path).load().0
            let whole = try schedule.materialized()
            if let failure = schedule.source?.takeFailure() { throw failure }
            return whole
        }
    }

    /// Files a killed writer may leave beside the store until the next save (they are never read
    /// as the store): the JSON store's temporary file, the write lock, SQLite's journal files.
    func isLeftover(_ name: String) -> Bool {
        switch self {
        case .json: name.hasSuffix(".tmp") || name.hasSuffix(".lock")
        case .sqlite: isCompanion(name, of: fileName)
        }
    }

    /// Whether a killed writer left a write in progress for the next open to deal with: the
    /// JSON store's temporary file, or a SQLite `-wal` file with frames in it (SQLite rolls back
    /// what was not committed and keeps what was when the store is next opened).
    func showsInterruptedWrite(in folder: String) -> Bool {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        switch self {
        case .json:
            return names.contains { $0.hasSuffix(".tmp") }
        case .sqlite:
            let size = (try? FileManager.default.attributesOfItem(atPath: folder + "/" + fileName + "-wal")[.size] as? Int) ?? 0
            return size > 32  // more than the WAL header
        }
    }

    /// The companion files the backend itself may create beside a store it opens, even one it
    /// refuses (a refused store may still get its lock file; SQLite keeps `-wal` and `-shm` while
    /// a connection is open and a process that exits without closing leaves them).
    func isCompanion(_ name: String, of store: String) -> Bool {
        switch self {
        case .json: name == store + ".lock"
        case .sqlite: [".lock", "-wal", "-shm", "-journal"].contains { name == store + $0 }
        }
    }
}

/// A whole-number setting from the environment (the documented long runs raise the counts).
func environmentCount(_ name: String, default value: Int) -> Int {
    ProcessInfo.processInfo.environment[name].flatMap(Int.init) ?? value
}

extension Sandbox {
    /// Sanitizer settings passed on to `shiftctl` (for the sanitizer runs in docs/guarantees.md).
    static let sanitizerOptions: [String: String] = ProcessInfo.processInfo.environment.filter {
        ["ASAN_OPTIONS", "TSAN_OPTIONS", "LSAN_OPTIONS", "UBSAN_OPTIONS"].contains($0.key)
    }

    /// Starts `shiftctl` without waiting (output discarded), for tests that kill it or run several.
    func launch(_ arguments: [String], environment extra: [String: String] = [:]) throws -> Process {
        let process = shiftctl(arguments, environment: extra)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }
}
