import Foundation
import ShiftCore

// The roster grid: one table over the whole range, people by days, with the months marked in a
// header row and at their first day, each person's totals, and the coverage rows.

extension HTMLRosterExporter {
    struct CellKey: Hashable {
        var person: PersonID
        var date: LocalDate
    }

    /// The row of open shifts (no real person has the nil UUID).
    static let openRow = PersonID(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))

    func grid(_ schedule: Schedule, shifts: [ScheduledShift], types: [ShiftType], dates: [LocalDate]) -> String {
        var people: [Person] = schedule.people.filter { selection.people?.contains($0.id) ?? true }
        if selection.people == nil, shifts.contains(where: { $0.personID == nil }) {
            people.append(Person(id: Self.openRow, displayName: "(open)"))
        }
        var cells: [CellKey: [ScheduledShift]] = [:]
        for shift in shifts { cells[CellKey(person: shift.personID ?? Self.openRow, date: shift.date), default: []].append(shift) }
        let flagged = flaggedCells(schedule)
        let starts = Set(dates.indices.filter { $0 > 0 && dates[$0].day == 1 }.map { dates[$0] })

        // At least 1.7em a day (a month fits 1024 px); a longer range scrolls sideways in its box.
        var out = "<section class=\"grid\" aria-label=\"Roster\"><h2>Roster</h2>\n<div class=\"scroll\">\n"
        out += "<table class=\"roster\" style=\"min-width: \(16 + dates.count * 17 / 10)em\">\n<thead>\n"
        out += monthRow(dates)
        out += "<tr class=\"days\">"
        for date in dates {
            let classes = dayClasses(date, starts: starts)
            out += "<th scope=\"col\"\(classes.isEmpty ? "" : " class=\"\(classes.joined(separator: " "))\"")>"
            out += "<span class=\"wd\">\(date.weekday.name.prefix(2).capitalized)</span><span class=\"dn\">\(date.day)</span></th>"
        }
        out += "</tr>\n</thead>\n<tbody>\n"
        for person in people {
            out += "<tr><th class=\"person\" scope=\"row\" title=\"\(Self.escape(person.displayName))\">\(Self.escape(person.displayName))</th>"
            var count = 0
            var minutes: Int64 = 0
            for date in dates {
                let key = CellKey(person: person.id, date: date)
                var classes = dayClasses(date, starts: starts)
                var tooltip: [String] = []
                if let found = flagged[key] {
                    classes.append("violation \(found.map(\.severity).max()!.rawValue)")
                    tooltip = found.map { "\($0.severity.rawValue): \($0.message) (\($0.ruleID))" }
                }
                out += "<td" + (classes.isEmpty ? "" : " class=\"\(classes.joined(separator: " "))\"")
                out += tooltip.isEmpty ? ">" : " title=\"\(Self.escape(tooltip.joined(separator: "\n")))\">"
                for shift in cells[key] ?? [] {
                    guard let type = schedule.shiftType(shift.shiftTypeID) else { continue }
                    count += 1
                    if case .scheduled = type.duration, let interval = schedule.interval(of: shift) { minutes += (interval.end - interval.start) / 60 }
                    let hint = "\(type.title) \(type.duration)" + (shift.notes.map { " — \($0)" } ?? "")
                    out += "<span class=\"shift \(Self.typeClass(type))\" title=\"\(Self.escape(hint))\">\(Self.escape(type.symbol))</span>"
                }
                if !tooltip.isEmpty { out += "<span class=\"flag\" aria-label=\"breaks a rule\">!</span>" }
                out += "</td>"
            }
            out += "<td class=\"total shifts\">\(count)</td><td class=\"total hours\">\(Self.hours(minutes))</td></tr>\n"
        }
        out += "</tbody>\n"
        out += coverage(schedule, types: types, dates: dates, starts: starts)
        out += "</table>\n</div></section>\n"
        return out
    }

    /// The months over the day columns, each spanning its days (the first column of a new month
    /// also gets a stronger rule down the grid, `month-start`).
    private func monthRow(_ dates: [LocalDate]) -> String {
        var out = "<tr class=\"months\"><th class=\"person\" scope=\"col\" rowspan=\"2\">Person</th>"
        var index = 0
        while index < dates.count {
            let date = dates[index]
            var end = index
            while end + 1 < dates.count, dates[end + 1].month == date.month { end += 1 }
            let name = "\(LocalDate.monthNames[date.month - 1]) \(date.year)"
            out += "<th scope=\"colgroup\" colspan=\"\(end - index + 1)\" class=\"month\(index > 0 ? " month-start" : "")\" title=\"\(name)\">\(name)</th>"
            index = end + 1
        }
        out += "<th class=\"total\" scope=\"col\" rowspan=\"2\">Shifts</th><th class=\"total\" scope=\"col\" rowspan=\"2\">Hours</th></tr>\n"
        return out
    }

    private func dayClasses(_ date: LocalDate, starts: Set<LocalDate>) -> [String] {
        var classes: [String] = []
        if date.weekday == .saturday || date.weekday == .sunday { classes.append("weekend") }
        if starts.contains(date) { classes.append("month-start") }
        return classes
    }

    /// `37.5` hours from minutes (whole hours without a fraction).
    static func hours(_ minutes: Int64) -> String {
        minutes % 60 == 0 ? String(minutes / 60) : String(format: "%.1f", Double(minutes) / 60)
    }

    func flaggedCells(_ schedule: Schedule) -> [CellKey: [Violation]] {
        var result: [CellKey: [Violation]] = [:]
        for violation in violations {
            var keys: [CellKey] = []
            for id in [violation.shiftID].compactMap({ $0 }) + violation.relatedShiftIDs {
                if let shift = schedule.shift(id) { keys.append(CellKey(person: shift.personID ?? Self.openRow, date: shift.date)) }
            }
            if keys.isEmpty, let person = violation.personID, let date = violation.date { keys.append(CellKey(person: person, date: date)) }
            for key in Set(keys) { result[key, default: []].append(violation) }
        }
        return result
    }
}
