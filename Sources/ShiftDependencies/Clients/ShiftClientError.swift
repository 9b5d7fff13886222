import Foundation

/// Why a client call was refused before it reached the rules. (A change the rules reject throws
/// the core's `ScheduleError.rejected(violations:)`; broken invariants throw the other
/// `ScheduleError` cases, naming the field.)
public enum ShiftClientError: Error, Hashable, Sendable, CustomStringConvertible, LocalizedError {
    /// `safeDeleteLocation`: this many shift types still use the location; move them to
    /// another location or delete them first. Nothing was written.
    case locationInUse(count: Int)
    /// `switchShift`: the shift is no longer what the caller saw (another edit moved it or
    /// changed its type), so the switch was not made. Reload and try again.
    case shiftChanged(eventIdentifier: String, reason: String)
    /// `RequestClient`: the app's user is nobody in the schedule (no person has the `login`
    /// attribute or the name `userId`), so there is no one to make the request for or to list
    /// the requests of. Give their person `login = userId`, or pass the requester.
    case userIsNobody(userId: String)
    /// No store is configured: set `scheduleConnection` (docs/embedding.md) before using the
    /// live clients.
    case storeNotConfigured
    /// The configured rules folders yield no enabled rule: none there (`loaded` 0), or every one
    /// disabled in the store's `rules.disabled`. The store was not opened, so nothing goes
    /// unchecked; fix the folders, or set `ScheduleConfiguration.allowsNoRules` to open it anyway.
    case noRulesInForce(directories: [String], loaded: Int)

    public var description: String {
        switch self {
        case let .locationInUse(count):
            "the location is used by \(count) shift type\(count == 1 ? "" : "s"); move them to another location or delete them first"
        case let .shiftChanged(eventIdentifier, reason):
            "shift \(eventIdentifier) changed since it was read (\(reason)); reload it and try again"
        case let .userIsNobody(userId):
            "the app's user '\(userId)' is nobody in the schedule; give their person the attribute login=\(userId), or name the requester"
        case .storeNotConfigured:
            "no schedule store is configured: set DependencyValues.scheduleConnection (prepareDependencies or withDependencies) before using the live clients"
        case let .noRulesInForce(directories, loaded):
            (loaded == 0 ? "no rules in \(directories.joined(separator: ", "))"
                : "all \(loaded) rule\(loaded == 1 ? "" : "s") in \(directories.joined(separator: ", ")) \(loaded == 1 ? "is" : "are") disabled by the store's rules.disabled")
                + ", so changes would go unchecked; fix rulesDirectories, or set ScheduleConfiguration.allowsNoRules to open the store without rules"
        }
    }

    public var errorDescription: String? { description }
}
