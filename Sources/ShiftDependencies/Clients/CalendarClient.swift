import Dependencies
import DependenciesMacros
import Foundation
import ShiftCore

/// The calendar: scheduled shifts by date, created, updated and deleted through the funnel.
/// Shifts are found by their stable calendar UID (`eventIdentifier`), as a calendar app does.
@DependencyClient
public struct CalendarClient: Sendable {
    /// Schedules a shift of a type on a date, for a person or open (`personID` nil). Refuses a
    /// duplicate (the same type on the same date for the same person, or a second open one)
    /// with `ScheduleError.conflict`. Returns the shift as committed; its id comes from the
    /// `uuid` dependency.
    public var createShift: @Sendable (
        _ shiftTypeID: ShiftTypeID, _ date: LocalDate, _ personID: PersonID?, _ notes: String?
    ) async throws -> ScheduledShift
    /// The shift with this calendar UID, or nil.
    public var fetchShift: @Sendable (_ eventIdentifier: String) async throws -> ScheduledShift?
    /// The shifts that start on a date, by start time.
    public var fetchShifts: @Sendable (_ on: LocalDate) async throws -> [ScheduledShift]
    /// The shifts that start between two dates (both inclusive), by date and start time.
    public var fetchShiftsInRange: @Sendable (_ from: LocalDate, _ to: LocalDate) async throws -> [ScheduledShift]
    /// Removes the shift with this calendar UID (`ScheduleError.notFound` when there is none);
    /// the change log records the reason.
    public var deleteShift: @Sendable (_ eventIdentifier: String, _ reason: String?) async throws -> Void
    /// Whether `createShift` would refuse these values as a duplicate.
    public var checkForDuplicate: @Sendable (
        _ shiftTypeID: ShiftTypeID, _ date: LocalDate, _ personID: PersonID?
    ) async throws -> Bool
    /// Replaces a shift's fields (type, date, person, notes) at once; returns it as committed.
    public var updateShift: @Sendable (_ shift: ScheduledShift, _ reason: String?) async throws -> ScheduledShift
    /// The shifts between two dates now and after every change, for UI updates. Ends at once
    /// when the store cannot be opened.
    public var observe: @Sendable (_ from: LocalDate, _ to: LocalDate) -> AsyncStream<[ScheduledShift]> = { _, _ in .finished }
}

extension CalendarClient: TestDependencyKey {
    /// Every endpoint unimplemented: a test fails when it calls one it did not override.
    public static let testValue = CalendarClient()
}

extension DependencyValues {
    public var calendarClient: CalendarClient {
        get { self[CalendarClient.self] }
        set { self[CalendarClient.self] = newValue }
    }
}
