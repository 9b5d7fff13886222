import Dependencies
import Foundation
import ShiftCore
import ShiftDependencies
import TestSupport
import Testing

@Suite struct CurrentDayClientTests {
    /// 2026-03-02T23:30:00Z: still Monday in London, already Tuesday in Auckland.
    static let lateMonday = Date(timeIntervalSince1970: 1_772_494_200)

    @Test(arguments: [("Europe/London", "2026-03-02"), ("Pacific/Auckland", "2026-03-03")])
    func todayIsTheDayInTheStoresTimeZone(_ zone: String, _ expected: String) async throws {
        let (configuration, _) = try memoryStore(try catalogue(timeZone: zone), rules: [])
        try await withLiveClients(configuration, now: Self.lateMonday) {
            @Dependency(\.currentDayClient) var currentDay
            let today = try await currentDay.today()
            #expect(today == date(expected))
            #expect(try await currentDay.tomorrow() == today.adding(days: 1))
            #expect(try await currentDay.yesterday() == today.adding(days: -1))
            #expect(try await currentDay.isToday(date: today))
            #expect(try await currentDay.isToday(date: today.adding(days: 1)) == false)
            #expect(try await currentDay.daysFromToday(date: date("2026-03-10")) == today.days(to: date("2026-03-10")))
            #expect(currentDay.daysBetween(start: date("2026-03-01"), end: date("2026-02-27")) == -2)
            #expect(try await currentDay.currentDay().today == today)
        }
    }
}
