import Foundation
import ShiftCore
@testable import ShiftInterop
import TestSupport
import Testing

/// The HTML roster page as a scheduler reads it (issue 35, items 4 and 11): one grid across
/// months, totals per person, a coverage row per shift type, findings grouped.
@Suite struct HTMLRosterTests {
    let f = InteropFixture()

    /// The fixture's shifts, with a day demand of 2 (optimum 3) every day.
    func schedule() throws -> Schedule {
        let demand = Weekday.allCases.map { day in
            Demand(id: DemandID(UUID()), day: .weekday(day), shiftTypeID: f.day.id, minimum: 2, optimal: 3)
        }
        return try Schedule(settings: StoreSettings(timeZoneIdentifier: "Europe/Berlin"), locations: [f.ward],
                            shiftTypes: [f.day, f.night, f.office], people: [f.zoe, f.bob], shifts: f.shifts, demand: demand)
    }

    func page(_ schedule: Schedule, from: String = "2026-03-27", to: String = "2026-04-02", violations: [Violation] = []) -> String {
        HTMLRosterExporter(selection: ShiftSelection(from: LocalDate(from), to: LocalDate(to)), violations: violations).export(schedule)
    }

    /// The rows of the grid's body (people and open shifts), as HTML.
    func rows(_ html: String) -> [Substring] {
        let body = html[html.range(of: "<tbody>\n")!.upperBound..<html.range(of: "</tbody>")!.lowerBound]
        return body.split(separator: "</tr>\n").map { $0 + "</tr>" }
    }

    @Test func aRangeAcrossMonthsIsOneTableWithTheMonthsMarked() throws {
        let html = page(try schedule())
        #expect(html.components(separatedBy: "<table class=\"roster\"").count - 1 == 1)
        #expect(html.contains("<th scope=\"colgroup\" colspan=\"5\" class=\"month\" title=\"March 2026\">March 2026</th>"), "\(html)")
        #expect(html.contains("<th scope=\"colgroup\" colspan=\"2\" class=\"month month-start\" title=\"April 2026\">April 2026</th>"))
        #expect(html.contains("<th scope=\"col\" class=\"month-start\"><span class=\"wd\">We</span><span class=\"dn\">1</span></th>"))
        let days = rows(html).map { $0.components(separatedBy: "<td").count - 1 - 2 }
        #expect(days == [7, 7, 7], "Zoë, Bob and the open row each have a cell per day (and two totals)")
    }

    @Test func eachPersonHasTotalsOfShiftsAndHours() throws {
        let html = page(try schedule())
        let rows = rows(html)
        // Zoë: the night into the spring change (11 h), the all-day office (no hours) and a day shift.
        let zoe = try #require(rows.first { $0.contains("Zo") })
        #expect(zoe.hasSuffix("<td class=\"total shifts\">3</td><td class=\"total hours\">23</td></tr>"), "\(zoe)")
        let bob = try #require(rows.first { $0.contains(">Bob<") })
        #expect(bob.hasSuffix("<td class=\"total shifts\">1</td><td class=\"total hours\">12</td></tr>"), "\(bob)")
        #expect(html.contains("<th class=\"total\" scope=\"col\" rowspan=\"2\">Hours</th>"))
    }

    @Test func aCoverageRowPerShiftTypeMarksTheDaysBelowTheDemand() throws {
        let html = page(try schedule())
        let coverage = try #require(html.range(of: "<tbody class=\"coverage\">").map { String(html[$0.lowerBound...]) })
        for symbol in ["D", "N", "O"] { #expect(coverage.contains("<tr class=\"coverage\" data-type=\"\(symbol)\">")) }
        // Bob's day shift on Sunday the 29th: 1 of a minimum of 2.
        #expect(coverage.contains("<td class=\"cov weekend short\" title=\"D on 2026-03-29: 1 staffed; minimum 2, optimal 3 — 1 short\">1/2</td>"),
                "\(coverage)")
        // The open day shift of the 31st staffs nobody.
        #expect(coverage.contains("title=\"D on 2026-03-31: 0 staffed; minimum 2, optimal 3 — 2 short\">0/2</td>"))
        #expect(coverage.contains("<td class=\"total\" colspan=\"2\">7 days short</td>"))
        #expect(coverage.contains("title=\"N on 2026-03-28: 1 staffed; no demand\">1</td>"))
    }

    @Test func coverageMeetsTheOptimumAndCountsSkillsAsTheDemandRuleDoes() throws {
        let nurse = Person(id: PersonID(uuid(12)), displayName: "Nia", attributes: ["skills": .list([.string("nurse")])])
        let schedule = try Schedule(
            settings: StoreSettings(timeZoneIdentifier: "UTC"), locations: [f.ward], shiftTypes: [f.day], people: [f.bob, nurse],
            shifts: [ScheduledShift(id: ShiftID(uuid(300)), shiftTypeID: f.day.id, date: date("2026-03-02"), personID: f.bob.id),
                     ScheduledShift(id: ShiftID(uuid(301)), shiftTypeID: f.day.id, date: date("2026-03-02"), personID: nurse.id)],
            demand: [Demand(id: DemandID(uuid(400)), day: .date(date("2026-03-02")), shiftTypeID: f.day.id, minimum: 1, optimal: 2),
                     Demand(id: DemandID(uuid(401)), day: .date(date("2026-03-02")), shiftTypeID: f.day.id, skill: "nurse", minimum: 1, optimal: 2)])
        let coverage = RosterCoverage(schedule: schedule, types: [f.day], dates: [date("2026-03-02")])
        #expect(coverage.rows.map(\.skill) == [nil, "nurse"])
        #expect(coverage.rows[0].cells == [RosterCoverage.Cell(staffed: 2, minimum: 1, optimal: 2)])
        #expect(!coverage.rows[0].cells[0].isShort && !coverage.rows[0].cells[0].isBelowOptimal)
        #expect(coverage.rows[1].cells == [RosterCoverage.Cell(staffed: 1, minimum: 1, optimal: 2)])
        #expect(coverage.rows[1].cells[0].isBelowOptimal)
        let html = HTMLRosterExporter(selection: ShiftSelection(from: date("2026-03-02"), to: date("2026-03-02"))).export(schedule)
        #expect(html.contains("<td class=\"cov thin\" title=\"D nurse on 2026-03-02: 1 staffed; minimum 1, optimal 2 — below the optimum\">1/1</td>"),
                "\(html)")
    }

    @Test func repeatedFindingsAreOneRowWithACount() throws {
        let violations = [27, 28, 29, 31].map { day in
            Violation(ruleID: "max_hours_per_week", severity: .warning, message: "Bob works too much on the \(day)th",
                      personID: f.bob.id, date: date("2026-03-\(day)"))
        } + [Violation(ruleID: "no_double_booking", severity: .error, message: "Bob already works D", shiftID: ShiftID(uuid(101)))]
        let html = page(try schedule(), violations: violations)
        let findings = try #require(html.range(of: "<section class=\"violations\"").map { String(html[$0.lowerBound...]) })
        #expect(findings.contains("5 findings in 3 rows"), "\(findings)")
        #expect(findings.contains("<tr class=\"warning\"><td>2026-03-27 – 03-29</td><td>Bob</td><td></td><td class=\"severity\">warning</td><td><code>max_hours_per_week</code></td><td class=\"count\">3</td><td>Bob works too much on the 27th <span class=\"more\">(and 2 more)</span></td></tr>"), "\(findings)")
        #expect(findings.contains("<td>2026-03-31</td><td>Bob</td>"), "a new week started on Monday the 30th, and the run broke")
        #expect(findings.contains("<td>2026-03-29</td><td>Bob</td><td>D</td><td class=\"severity\">error</td>"))
        #expect(findings.contains("table-layout") == false, "the layout lives in the style sheet")
        #expect(html.contains(".violations table { width: 100%; table-layout: fixed; }"))
    }
}
