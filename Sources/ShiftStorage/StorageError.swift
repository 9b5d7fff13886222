import Foundation

/// Why a store could not be read or written. Each message names the file and, for bad content,
/// the line, column and field.
public enum StorageError: Error, Hashable, Sendable, CustomStringConvertible, LocalizedError {
    /// There is no store at the path.
    case notFound(path: String)
    /// The file exists but could not be read (permissions, a directory, an I/O error).
    case unreadable(path: String, reason: String)
    /// The file is not valid JSON, or not a schedule: where and why.
    case corrupt(path: String, line: Int, column: Int, reason: String)
    /// The file is not a store this backend reads: not a SQLite database, a damaged one, or
    /// another program's database.
    case notAStore(path: String, reason: String)
    /// The file was written by a newer ShiftScheduler.
    case unsupportedVersion(path: String, version: Int, newest: Int)
    /// The file parses, but its content breaks a core invariant (a dangling reference, a
    /// duplicate id).
    case invalidContent(path: String, reason: String)
    /// Writing failed; the previous file is untouched.
    case writeFailed(path: String, reason: String)
    /// The write lock could not be taken (not: is busy — that is a wait).
    case lockFailed(path: String, reason: String)

    public var description: String {
        switch self {
        case let .notFound(path):
            "\(path): no schedule store here (create one with `shiftctl init`, or pass --store)"
        case let .unreadable(path, reason):
            "\(path): cannot read the store: \(reason)"
        case let .corrupt(path, line, column, reason):
            "\(path):\(line):\(column): \(reason); the file was left as it is"
        case let .notAStore(path, reason):
            "\(path): not a ShiftScheduler store: \(reason); the file was left as it is"
        case let .unsupportedVersion(path, version, newest):
            "\(path): store format version \(version) is newer than this build reads (up to \(newest)); upgrade ShiftScheduler"
        case let .invalidContent(path, reason):
            "\(path): \(reason); the file was left as it is"
        case let .writeFailed(path, reason):
            "\(path): could not save (\(reason)); the previous version is intact"
        case let .lockFailed(path, reason):
            "\(path).lock: cannot take the write lock: \(reason)"
        }
    }

    public var errorDescription: String? { description }
}
