import Dependencies
import Foundation
import ShiftCore

extension CurrentDayClient: DependencyKey {
    /// Works on the `scheduleConnection` and `date` in effect where each call is made.
    public static let liveValue = CurrentDayClient.live { .current }
    /// The live implementation over the preview connection (sample data in memory).
    public static let previewValue = liveValue

    /// The live implementation over one connection (its store's time zone).
    public static func live(connection: ScheduleConnection) -> CurrentDayClient { live { connection } }

    static func live(_ connection: @escaping @Sendable () -> ScheduleConnection) -> CurrentDayClient {
        @Sendable func day() async throws -> CurrentDay {
            @Dependency(\.date) var date
            let zone = try await connection().read(\.zone)
            return CurrentDay(zone: zone, now: { date.now })
        }
        return CurrentDayClient(
            currentDay: { try await day() },
            today: { try await day().today },
            tomorrow: { try await day().tomorrow },
            yesterday: { try await day().yesterday },
            isToday: { date in try await day().isToday(date) },
            daysFromToday: { date in try await day().daysFromToday(to: date) },
            daysBetween: { start, end in start.days(to: end) }
        )
    }
}
