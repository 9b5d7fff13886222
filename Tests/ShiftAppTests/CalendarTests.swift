import Foundation
@testable import ShiftApp
import ShiftCore
import Testing

/// The terminal roster across months and with many shift types (issue 35, item 4).
@Suite struct CalendarTests {
    @Test func aRosterAcrossTheYearsEndLabelsEachMonthOverItsFirstDay() throws {
        let sandbox = try Sandbox.withTeam()
        #expect(try sandbox.run("schedule", "add", "--type", "N", "--date", "2027-01-02", "--person", "Bob").status == 0)
        let result = try sandbox.run("calendar", "roster", "--from", "2026-12-20", "--days", "20")
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0].hasPrefix("         2026-12 "), "\(result.stdout)")
        #expect(lines[1].hasPrefix("         Su Mo Tu"))
        let january = try #require(lines[0].range(of: "2027-01"), "\(result.stdout)")
        let firstOfJanuary = try #require(lines[2].range(of: "31 01"))
        #expect(lines[0].distance(from: lines[0].startIndex, to: january.lowerBound)
                == lines[2].distance(from: lines[2].startIndex, to: firstOfJanuary.lowerBound) + 3, "\(result.stdout)")
        #expect(!lines[2].contains("2026-12"), "the day numbers carry no month label that January days would fall under")
        let bob = try #require(lines.first { $0.hasPrefix("Bob") })
        #expect(bob.distance(from: bob.startIndex, to: bob.firstIndex(of: "N")!)
                == lines[2].distance(from: lines[2].startIndex, to: firstOfJanuary.lowerBound) + 6, "Bob's night is under the 2nd")
    }

    @Test func aRosterWithinOneMonthKeepsItsMonthBesideTheDays() throws {
        let text = RosterRenderer(width: 80, colour: false).render(try roster(types: 2, from: "2026-03-01", days: 7))
        #expect(text.hasPrefix("         Su Mo Tu We Th Fr Sa\n2026-03  01 02 03 04 05 06 07\n"), "\(text)")
    }

    @Test func aMonthWithOneDayInTheBlockGetsAShortLabel() throws {
        let text = RosterRenderer(width: 80, colour: false).render(try roster(types: 1, from: "2026-01-31", days: 5))
        #expect(text.hasPrefix("         01 2026-02\n"), "\(text)")
    }

    @Test(arguments: [false, true])
    func theLegendWrapsBelowTheGridWithinTheWidth(colour: Bool) throws {
        let text = RosterRenderer(width: 50, colour: colour).render(try roster(types: 5, from: "2026-03-02", days: 7))
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let gap = try #require(lines.firstIndex(of: ""))
        #expect(lines[gap - 1].hasPrefix("Alice"), "the grid ends right before the blank line")
        let legend = Array(lines[(gap + 1)...].dropLast())
        #expect(legend.count >= 2, "\(text)")
        #expect(legend.allSatisfy { !$0.isEmpty && TextWidth.of($0) <= 50 }, "\(text)")
        for symbol in ["A ", "B ", "C ", "D ", "E "] {
            #expect(legend.contains { Self.plain($0).contains(symbol + "Type") }, "\(symbol) in \(text)")
        }
        #expect(text.hasSuffix("\n") && !text.hasSuffix("\n\n"))
    }

    static func plain(_ text: String) -> String {
        text.replacing(/\u{1B}\[[0-9;]*m/, with: "")
    }

    /// Alice with a shift on the first day, and `types` shift types A, B, C… with long titles.
    func roster(types: Int, from: String, days: Int) throws -> RosterOutput {
        let shiftTypes = (0..<types).map { index in
            let symbol = String(UnicodeScalar(UInt8(65 + index)))
            return ShiftType(id: ShiftTypeID(UUID()), symbol: symbol, title: "Type \(symbol) long", duration: ShiftDuration("07:00-15:00")!)
        }
        let alice = Person(id: PersonID(UUID()), displayName: "Alice")
        let start = LocalDate(from)!
        let schedule = try Schedule(
            settings: StoreSettings(timeZoneIdentifier: "UTC"), shiftTypes: shiftTypes, people: [alice],
            shifts: [ScheduledShift(id: ShiftID(UUID()), shiftTypeID: shiftTypes[0].id, date: start, personID: alice.id)])
        return RosterOutput(schedule: schedule, from: start, days: days)
    }
}
