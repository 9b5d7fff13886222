import Dependencies
import DependenciesMacros
import Foundation
import ShiftCore

/// The change log: who changed which shift, when, from what to what, and why.
///
/// The store writes an entry for every shift change it commits; `save` adds entries an app
/// writes itself. Lists are newest first (in the order entries were committed).
@DependencyClient
public struct ChangeLogClient: Sendable {
    /// Appends an entry (a `recordChangeLogEntry` mutation: its id must be new; the rules see it).
    public var save: @Sendable (_ entry: ChangeLogEntry) async throws -> Void
    /// Every entry, newest first.
    public var fetchAll: @Sendable () async throws -> [ChangeLogEntry]
    /// The entries whose timestamp lies between two instants (both inclusive), newest first.
    public var fetchInRange: @Sendable (_ from: Date, _ to: Date) async throws -> [ChangeLogEntry]
    /// The newest `limit` entries.
    public var fetchRecent: @Sendable (_ limit: Int) async throws -> [ChangeLogEntry]
    /// Removes the entries older than the instant; returns how many.
    public var deleteOlderThan: @Sendable (_ date: Date) async throws -> Int
    /// Removes every entry; returns how many.
    public var deleteAll: @Sendable () async throws -> Int
    /// The newest `limit` entries now and whenever they change, for UI updates. Ends at once
    /// when the store cannot be opened.
    public var observe: @Sendable (_ limit: Int) -> AsyncStream<[ChangeLogEntry]> = { _ in .finished }
}

extension ChangeLogClient: TestDependencyKey {
    /// Every endpoint unimplemented: a test fails when it calls one it did not override.
    public static let testValue = ChangeLogClient()
}

extension DependencyValues {
    public var changeLogClient: ChangeLogClient {
        get { self[ChangeLogClient.self] }
        set { self[ChangeLogClient.self] = newValue }
    }
}
