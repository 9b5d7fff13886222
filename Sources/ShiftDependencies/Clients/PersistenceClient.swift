import Dependencies
import DependenciesMacros
import Foundation
import ShiftCore

/// Locations, shift types, people and the change log's settings: the catalogue an app edits
/// around its calendar.
///
/// Every write is one mutation through the store's funnel: the core checks it, the rules
/// check it, and it commits whole or not at all. A rule rejection throws
/// `ScheduleError.rejected(violations:)`.
@DependencyClient
public struct PersistenceClient: Sendable {
    /// All locations, by name.
    public var fetchLocations: @Sendable () async throws -> [Location]
    /// Adds the location, or replaces the one with its id.
    public var saveLocation: @Sendable (_ location: Location) async throws -> Void
    /// Removes a location; shift types at it lose their location, unless a rule (the stock
    /// `location_in_use`) rejects the removal.
    public var deleteLocation: @Sendable (_ id: LocationID) async throws -> Void
    /// Whether no shift type uses the location, so `safeDeleteLocation` would remove it.
    public var canDeleteLocation: @Sendable (_ id: LocationID) async throws -> Bool
    /// Removes a location only when no shift type uses it, checked under the store's write
    /// lock. Throws `ShiftClientError.locationInUse(count:)` (the number of shift types) otherwise.
    public var safeDeleteLocation: @Sendable (_ id: LocationID) async throws -> Void

    /// All shift types, by symbol.
    public var fetchShiftTypes: @Sendable () async throws -> [ShiftType]
    /// Adds the shift type, or replaces the one with its id.
    public var saveShiftType: @Sendable (_ shiftType: ShiftType) async throws -> Void
    /// Removes a shift type with its scheduled shifts, demand and availability (the stock
    /// `shift_type_in_use` rule rejects this while shifts use it).
    public var deleteShiftType: @Sendable (_ id: ShiftTypeID) async throws -> Void

    /// All people, by display name.
    public var fetchPeople: @Sendable () async throws -> [Person]
    /// Adds the person, or replaces the one with their id.
    public var savePerson: @Sendable (_ person: Person) async throws -> Void
    /// Removes a person; their shifts become open (the stock `person_in_use` rule rejects this
    /// while they have future shifts).
    public var deletePerson: @Sendable (_ id: PersonID) async throws -> Void

    /// The whole change log, newest first.
    public var fetchChangeLogEntries: @Sendable () async throws -> [ChangeLogEntry]
    /// How long the change log keeps entries.
    public var changeLogRetention: @Sendable () async throws -> ChangeLogRetentionPolicy
    /// Changes how long the change log keeps entries (a settings change through the funnel).
    public var setChangeLogRetention: @Sendable (_ policy: ChangeLogRetentionPolicy) async throws -> Void
    /// Drops the entries the retention policy no longer keeps; returns how many.
    public var purgeExpiredChangeLogEntries: @Sendable () async throws -> Int

    /// The whole schedule now and after every change made through this connection's store, for
    /// UI updates. Ends at once when the store cannot be opened.
    public var observe: @Sendable () -> AsyncStream<Schedule> = { .finished }
}

extension PersistenceClient: TestDependencyKey {
    /// Every endpoint unimplemented: a test fails when it calls one it did not override.
    public static let testValue = PersistenceClient()
}

extension DependencyValues {
    public var persistenceClient: PersistenceClient {
        get { self[PersistenceClient.self] }
        set { self[PersistenceClient.self] = newValue }
    }
}
