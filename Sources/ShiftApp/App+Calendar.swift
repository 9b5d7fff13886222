import Foundation
import ShiftCore

/// Which calendar view to show.
public enum CalendarView: String, Sendable, CaseIterable {
    case day, week, month, roster
}

/// Days with their shifts (`calendar day|week|month`).
public struct CalendarOutput: Encodable, Sendable {
    public struct Day: Encodable, Sendable {
        public let date: String
        public let weekday: String
        public let shifts: [ShiftOutput]
        /// The requests waiting for a decision about the day's shifts, and time off asked for it.
        public let requests: [CalendarRequestOutput]
        enum CodingKeys: String, CodingKey { case date, weekday, shifts, requests }
    }

    public let view: String
    public let from: String
    public let to: String
    public let days: [Day]

    enum CodingKeys: String, CodingKey { case view, from, to, days }
}

extension App {
    /// `calendar day|week|month|roster`. `from` defaults to today (for week and roster: the
    /// start of this week; for month: the first of this month).
    public func calendar(_ view: CalendarView, from: String?, days: Int?) throws -> CommandResult {
        let schedule = try load()
        let anchor = try optionalDate(from, option: "--from", in: schedule) ?? today(in: schedule)
        let start: LocalDate
        var count: Int
        switch view {
        case .day: (start, count) = (anchor, 1)
        case .week, .roster: (start, count) = (from == nil ? anchor.startOfWeek(weekStart: schedule.settings.weekStart) : anchor, 7)
        case .month:
            start = from == nil ? LocalDate(year: anchor.year, month: anchor.month, day: 1)! : anchor
            count = LocalDate.daysIn(month: start.month, year: start.year)
        }
        if let days { count = try InputParsing.count(days, option: "--days") }
        if view == .roster { return roster(schedule, from: start, days: days) }

        let dates = (0..<count).map { start.adding(days: $0) }
        let marks = RequestMarks(schedule)
        var text = ""
        var days: [CalendarOutput.Day] = []
        for date in dates {
            let shifts = schedule.shifts(.on(date))
            var requests: [CalendarRequestOutput] = []
            text += "\(date.weekday.name.prefix(3).capitalized) \(date)\n"
            // Type, time, person, location, then the requests waiting for a decision.
            var rows: [[String]] = []
            let outputs = shifts.map { ShiftOutput($0, in: schedule) }
            for (shift, output) in zip(shifts, outputs) {
                let about = marks.about(shift.id)
                requests += about.map { CalendarRequestOutput($0, shift: shift.id, in: schedule) }
                rows.append([output.type, output.time, output.person ?? "(open)", output.location ?? "",
                             about.map { "? " + RequestMarks.label($0, in: schedule) }.joined(separator: "; ")])
            }
            // Time off asked for the day, one line each after the shifts.
            for request in marks.timeOff(on: date) {
                requests.append(CalendarRequestOutput(request, shift: nil, in: schedule))
                rows.append(["?", "", RequestMarks.label(request, in: schedule), "", ""])
            }
            var table = TextTable("", "", "", "", "")
            // A day without locations leaves their column out, so nothing gapes before the requests.
            let located = rows.contains { !$0[3].isEmpty }
            if !located { table.headers.removeLast() }
            for row in rows { table.add(row: located ? row : Array(row[0..<3]) + [row[4]]) }
            if shifts.isEmpty && requests.isEmpty { text += "  -\n" }
            text += table.rendered.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().filter { !$0.isEmpty }
                .map { "  " + $0 }.joined(separator: "\n") + (shifts.isEmpty && requests.isEmpty ? "" : "\n")
            days.append(CalendarOutput.Day(date: date.description, weekday: date.weekday.name,
                                           shifts: outputs, requests: requests))
        }
        if days.contains(where: { !$0.requests.isEmpty }) {
            text += "? a request waiting for a decision (shiftctl request list --pending)\n"
        }
        let output = CalendarOutput(view: view.rawValue, from: start.description, to: dates.last!.description, days: days)
        return CommandResult(text: text, json: output)
    }

    private func roster(_ schedule: Schedule, from: LocalDate, days: Int?) -> CommandResult {
        let renderer = RosterRenderer(width: environment.width, colour: environment.usesColour)
        var count = days ?? 7
        if days == nil {
            // As many days as fit the width (at most a month), measured on a one-day roster.
            count = min(31, renderer.daysThatFit(RosterOutput(schedule: schedule, from: from, days: 1)))
        }
        let roster = RosterOutput(schedule: schedule, from: from, days: count)
        let text = roster.rows.isEmpty ? "no people or shifts from \(roster.from) to \(roster.to)\n"
            : renderer.render(roster)
        return CommandResult(text: text, json: roster)
    }
}
