import Foundation
import PostgresNIO
import ShiftCore

/// Why a PostgreSQL store could not be opened, read or written. Each message is one line that
/// names the store by its URL (never its password).
public enum PostgresStoreError: Error, Hashable, Sendable, CustomStringConvertible, LocalizedError {
    /// The `--store` URL cannot be understood.
    case badURL(url: String, reason: String)
    /// The server could not be reached, refused the login, or has no such database.
    case cannotConnect(store: String, reason: String)
    /// The database holds no schedule by this name yet.
    case notFound(store: String)
    /// The database holds another application's tables, or the schema is not ShiftScheduler's.
    case notAStore(store: String, reason: String)
    /// The schedule was created by a newer ShiftScheduler (migrations this build does not know).
    case newerSchema(store: String, unknown: [String])
    /// The content breaks a core invariant.
    case invalidContent(store: String, reason: String)
    /// A read failed; nothing was written.
    case readFailed(store: String, reason: String)
    /// A write failed; the transaction was rolled back and the schedule is as it was.
    case writeFailed(store: String, reason: String)
    /// The connection died while the commit was under way: it may or may not have committed.
    case commitUnknown(store: String, reason: String)
    /// The schedule's database roles could not be set up (`shiftctl person link`): who lacks
    /// what. Nothing was changed.
    case cannotSetUpRoles(store: String, reason: String)

    public var description: String {
        switch self {
        case let .badURL(url, reason): "\(Self.redacted(url)): not a PostgreSQL store URL: \(reason)"
        case let .cannotConnect(store, reason): "\(store): cannot connect to the server: \(reason)"
        case let .notFound(store): "\(store): no schedule here (create one with `shiftctl init`, or pass --store)"
        case let .notAStore(store, reason): "\(store): not a ShiftScheduler store: \(reason); the database was left as it is"
        case let .newerSchema(store, unknown):
            "\(store): the schedule was set up by a newer ShiftScheduler (migrations \(unknown.joined(separator: ", "))); upgrade ShiftScheduler"
        case let .invalidContent(store, reason): "\(store): \(reason); the database was left as it is"
        case let .readFailed(store, reason): "\(store): cannot read the store: \(reason)"
        case let .writeFailed(store, reason): "\(store): could not save (\(reason)); nothing was written"
        case let .commitUnknown(store, reason):
            "\(store): the connection failed during the commit (\(reason)); the change may or may not be saved, check with `shiftctl log`"
        case let .cannotSetUpRoles(store, reason):
            "\(store): cannot set up the database roles: \(reason); nothing was changed"
        }
    }

    public var errorDescription: String? { description }

    /// A URL with any password replaced by `***`.
    static func redacted(_ url: String) -> String {
        guard let scheme = url.range(of: "://"), let at = url[scheme.upperBound...].lastIndex(of: "@") else { return url }
        let userInfo = url[scheme.upperBound..<at]
        guard let colon = userInfo.firstIndex(of: ":") else { return url }
        return String(url[..<colon]) + ":***" + String(url[at...])
    }
}

/// A serialization failure or deadlock (SQLSTATE 40001, 40P01): the transaction was rolled back
/// and the whole mutation may run again on the new state, which the funnel does. Thrown to the
/// user only when the attempts run out.
public struct PostgresConflict: RetryableStoreError, CustomStringConvertible, Hashable {
    public let store: String
    public let sqlState: String
    public let message: String

    public var description: String {
        "\(store): other writers kept changing what this change depends on (\(message), SQLSTATE \(sqlState)); nothing was written, try again"
    }
}

extension PSQLError {
    /// The SQLSTATE the server sent, if any.
    var sqlState: String? { serverInfo?[.sqlState] }

    /// The server's message, or what went wrong on the way to it, in one line.
    var summary: String {
        if let message = serverInfo?[.message] { return message }
        switch code {
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown:
            if let underlying { return Self.describe(underlying) }
            return "the connection was closed"
        default:
            if let underlying { return Self.describe(underlying) }
            return "\(code)"
        }
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? IOError { return error.description }
        return "\(error)"
    }
}

/// Finds the conflict inside whatever wraps it (postgres-nio's transaction errors, our own).
func conflict(in error: any Error, store: String) -> PostgresConflict? {
    switch error {
    case let error as PostgresConflict: return error
    case let error as PSQLError:
        guard let state = error.sqlState, state == "40001" || state == "40P01" else { return nil }
        return PostgresConflict(store: store, sqlState: state, message: error.serverInfo?[.message] ?? "serialization failure")
    case let error as PostgresTransactionError:
        for inner in [error.closureError, error.commitError, error.beginError].compactMap({ $0 }) {
            if let found = conflict(in: inner, store: store) { return found }
        }
        return nil
    default: return nil
    }
}
