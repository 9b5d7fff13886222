import Dependencies
import DependenciesMacros
import Foundation
import ShiftCore

/// Today, tomorrow and yesterday in the schedule's time zone, from the `date` dependency's
/// clock (so tests pin "now" with `$0.date = .constant(…)`).
@DependencyClient
public struct CurrentDayClient: Sendable {
    /// A `CurrentDay` for synchronous use (`isToday`, `daysBetween`) in the store's zone.
    public var currentDay: @Sendable () async throws -> CurrentDay
    public var today: @Sendable () async throws -> LocalDate
    public var tomorrow: @Sendable () async throws -> LocalDate
    public var yesterday: @Sendable () async throws -> LocalDate
    public var isToday: @Sendable (_ date: LocalDate) async throws -> Bool
    /// Whole calendar days from today to `date` (0 today, 1 tomorrow, -1 yesterday).
    public var daysFromToday: @Sendable (_ date: LocalDate) async throws -> Int
    /// Whole calendar days from `start` to `end` (negative when `end` is earlier).
    public var daysBetween: @Sendable (_ start: LocalDate, _ end: LocalDate) -> Int = { _, _ in 0 }
}

extension CurrentDayClient: TestDependencyKey {
    /// Every endpoint unimplemented: a test fails when it calls one it did not override.
    public static let testValue = CurrentDayClient()
}

extension DependencyValues {
    public var currentDayClient: CurrentDayClient {
        get { self[CurrentDayClient.self] }
        set { self[CurrentDayClient.self] = newValue }
    }
}
