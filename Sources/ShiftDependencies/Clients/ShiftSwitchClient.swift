import Dependencies
import DependenciesMacros
import Foundation
import ShiftCore

/// Switches a shift to another shift type (a day for a night), logged in the change log with
/// the old and new snapshot and the reason.
@DependencyClient
public struct ShiftSwitchClient: Sendable {
    /// Switches the shift with this calendar UID from `old` to `new`, provided it is still on
    /// `date` with type `old` when the change commits (checked under the store's write lock);
    /// otherwise throws `ShiftClientError.shiftChanged` and writes nothing.
    ///
    /// - Returns: the id of the change-log entry the switch wrote.
    /// - Throws: `ScheduleError.notFound` for an unknown UID, `ScheduleError.invalidValue` when
    ///   `new` equals `old`, `ScheduleError.rejected(violations:)` when the rules refuse it.
    public var switchShift: @Sendable (
        _ eventIdentifier: String, _ date: LocalDate, _ old: ShiftTypeID, _ new: ShiftTypeID, _ reason: String?
    ) async throws -> ChangeLogEntryID
    /// What the rules would say about switching the shift to `new`, without writing: every
    /// violation, errors included (an empty list means the switch would pass).
    public var checkSwitch: @Sendable (_ eventIdentifier: String, _ new: ShiftTypeID) async throws -> [Violation]
}

extension ShiftSwitchClient: TestDependencyKey {
    /// Every endpoint unimplemented: a test fails when it calls one it did not override.
    public static let testValue = ShiftSwitchClient()
}

extension DependencyValues {
    public var shiftSwitchClient: ShiftSwitchClient {
        get { self[ShiftSwitchClient.self] }
        set { self[ShiftSwitchClient.self] = newValue }
    }
}
