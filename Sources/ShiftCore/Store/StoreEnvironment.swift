import Foundation

/// The store's seams to the outside world: the clock and the id source. Tests pass fixed ones so
/// change-log entries and ids are deterministic.
public struct StoreEnvironment: Sendable {
    public var now: @Sendable () -> Date
    public var makeUUID: @Sendable () -> UUID
    /// How long `apply` waits for another process's write lock before giving up.
    public var lockTimeout: Duration

    public init(now: @escaping @Sendable () -> Date, makeUUID: @escaping @Sendable () -> UUID, lockTimeout: Duration = .seconds(10)) {
        self.now = now
        self.makeUUID = makeUUID
        self.lockTimeout = lockTimeout
    }

    /// The system clock and random UUIDs.
    public static let live = StoreEnvironment(now: { Date() }, makeUUID: { UUID() })
}
