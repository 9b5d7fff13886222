import Foundation
import ShiftCore

/// The roster as data: people by days, the shift symbols in each cell.
public struct RosterOutput: Encodable, Sendable {
    public struct Row: Encodable, Sendable {
        public let person: String
        /// nil for the row of open (unassigned) shifts.
        public let personID: String?
        /// One entry per day: the symbols of the shifts on that day.
        public let cells: [[String]]
        /// One entry per day: the ids of the requests waiting for a decision about that day's
        /// shifts in this row, or (for a person) time off asked for it.
        public let requests: [[String]]
        enum CodingKeys: String, CodingKey { case person, personID, cells, requests }
    }

    public struct TypeKey: Encodable, Sendable {
        public let symbol: String
        public let title: String
        public let time: String
        enum CodingKeys: String, CodingKey { case symbol, title, time }
    }

    public let from: String
    public let to: String
    public let days: [String]
    public let rows: [Row]
    public let types: [TypeKey]

    enum CodingKeys: String, CodingKey { case from, to, days, rows, types }
}

/// Draws a roster grid for a terminal: one row per person, one column per day, a colour per
/// shift type, split into blocks of days that fit the width.
public struct RosterRenderer: Sendable {
    public var width: Int
    public var colour: Bool

    public init(width: Int, colour: Bool) {
        self.width = max(width, 20)
        self.colour = colour
    }

    /// Background/foreground pairs, chosen per shift type by its position in symbol order.
    static let palette = ["30;43", "97;44", "30;42", "97;45", "30;46", "97;41", "30;47", "97;100", "30;103", "30;102"]

    /// How many days fit beside the names at this width.
    public func daysThatFit(_ roster: RosterOutput) -> Int {
        max(1, (width - nameWidth(roster)) / cellWidth(roster))
    }

    public func render(_ roster: RosterOutput) -> String {
        let nameWidth = nameWidth(roster)
        let cell = cellWidth(roster)
        let perBlock = max(1, (width - nameWidth) / cell)
        let colours = Dictionary(uniqueKeysWithValues: roster.types.enumerated().map { ($1.symbol, Self.palette[$0 % Self.palette.count]) })
        var out = ""
        for blockStart in stride(from: 0, to: roster.days.count, by: perBlock) {
            let indices = Array(blockStart..<min(blockStart + perBlock, roster.days.count))
            if blockStart > 0 { out += "\n" }
            out += header(roster, indices, nameWidth: nameWidth, cell: cell)
            for row in roster.rows {
                var line = TextWidth.pad(TextWidth.truncate(row.person, to: nameWidth - 1), to: nameWidth)
                for index in indices {
                    let symbols = row.cells[index]
                    let marked = !row.requests[index].isEmpty
                    var text = symbols.isEmpty ? (marked ? "" : "·") : symbols.count == 1 ? symbols[0] : symbols.joined(separator: "+")
                    // A request waiting for a decision: `?` after the symbols (truncated to make room).
                    text = marked ? TextWidth.truncate(text, to: cell - 2) + "?" : TextWidth.truncate(text, to: cell - 1)
                    let padded = TextWidth.pad(text, to: cell - 1)
                    if colour, let first = symbols.first, let code = colours[first] {
                        line += "\u{1B}[\(code)m\(padded)\u{1B}[0m "
                    } else {
                        line += padded + " "
                    }
                }
                out += line.trimmingTrailingSpaces() + "\n"
            }
        }
        if !roster.types.isEmpty {
            var entries = roster.types.map { type in
                let symbol = colour ? "\u{1B}[\(colours[type.symbol]!)m\(type.symbol)\u{1B}[0m" : type.symbol
                return type.title == type.symbol ? "\(symbol) \(type.time)" : "\(symbol) \(type.title) \(type.time)"
            }
            if roster.rows.contains(where: { $0.requests.contains { !$0.isEmpty } }) {
                entries.append("? a request waiting for a decision (shiftctl request list --pending)")
            }
            out += "\n" + legend(entries)
        }
        return out
    }

    /// The legend's entries on as many lines as the width needs, two spaces apart.
    private func legend(_ entries: [String]) -> String {
        var lines: [String] = []
        var line = ""
        for entry in entries {
            if !line.isEmpty, TextWidth.of(line) + 2 + TextWidth.of(entry) > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : "  ") + entry
        }
        lines.append(line)
        return lines.map { $0 + "\n" }.joined()
    }

    /// The weekday and day-number rows over a block of days. The day numbers are labelled with
    /// their month (`2026-03`); a block that crosses into another month gets a row above with each
    /// month's label over its first day instead.
    private func header(_ roster: RosterOutput, _ indices: [Int], nameWidth: Int, cell: Int) -> String {
        let dates = indices.map { LocalDate(roster.days[$0])! }
        var weekdays = TextWidth.pad("", to: nameWidth)
        var numbers = ""
        for date in dates {
            weekdays += TextWidth.pad(String(date.weekday.name.prefix(2)).capitalized, to: cell)
            numbers += TextWidth.pad(String(format: "%02d", date.day), to: cell)
        }
        let starts = dates.indices.filter { $0 == 0 || dates[$0].month != dates[$0 - 1].month }
        guard starts.count > 1 else {
            let label = TextWidth.pad(TextWidth.truncate(Self.monthLabel(dates[0]), to: nameWidth - 1), to: nameWidth)
            return weekdays.trimmingTrailingSpaces() + "\n" + (label + numbers).trimmingTrailingSpaces() + "\n"
        }
        var months = TextWidth.pad("", to: nameWidth)
        for (k, start) in starts.enumerated() {
            // Room up to the next month's first day; the last month's label may run on.
            let room = k + 1 < starts.count ? (starts[k + 1] - start) * cell - 1 : Int.max
            let date = dates[start]
            let label = [Self.monthLabel(date), String(LocalDate.monthNames[date.month - 1].prefix(3)), String(format: "%02d", date.month)]
                .first { $0.count <= room } ?? ""
            months = TextWidth.pad(months, to: nameWidth + start * cell) + label
        }
        return months.trimmingTrailingSpaces() + "\n" + weekdays.trimmingTrailingSpaces() + "\n"
            + (TextWidth.pad("", to: nameWidth) + numbers).trimmingTrailingSpaces() + "\n"
    }

    /// `2026-03`.
    static func monthLabel(_ date: LocalDate) -> String { String(date.description.prefix(7)) }

    private func nameWidth(_ roster: RosterOutput) -> Int {
        min(max(roster.rows.map { TextWidth.of($0.person) }.max() ?? 0, 8), 18) + 1
    }

    private func cellWidth(_ roster: RosterOutput) -> Int {
        let longest = roster.types.map { TextWidth.of($0.symbol) }.max() ?? 1
        return max(2, min(longest, 4)) + 1
    }
}

extension RosterOutput {
    /// The roster of a schedule over `days` days from `from`: every person, plus a row of open
    /// shifts when there are any.
    init(schedule: Schedule, from: LocalDate, days: Int, people only: [PersonID]? = nil) {
        let dates = (0..<days).map { from.adding(days: $0) }
        let to = dates.last!
        let index = Dictionary(uniqueKeysWithValues: dates.enumerated().map { ($1, $0) })
        let empty = [[String]](repeating: [], count: days)
        var cells: [PersonID: [[String]]] = [:]
        var requests: [PersonID: [[String]]] = [:]
        var open = empty
        var openRequests = empty
        let marks = RequestMarks(schedule)
        for shift in schedule.shifts(ShiftQuery(from: from, to: to)) {
            guard let day = index[shift.date], let symbol = schedule.shiftType(shift.shiftTypeID)?.symbol else { continue }
            let about = marks.about(shift.id).map(\.id.description)
            if let person = shift.personID {
                cells[person, default: empty][day].append(symbol)
                requests[person, default: empty][day] += about
            } else {
                open[day].append(symbol)
                openRequests[day] += about
            }
        }
        let listed = only.map { ids in ids.compactMap { schedule.person($0) } } ?? schedule.people
        var rows = listed.map { person in
            var asked = requests[person.id] ?? empty
            if !marks.isEmpty {
                for (day, date) in dates.enumerated() {
                    asked[day] += marks.timeOff(of: person.id, on: date).map(\.id.description)
                }
            }
            return Row(person: person.displayName, personID: person.id.description, cells: cells[person.id] ?? empty, requests: asked)
        }
        if only == nil, open.contains(where: { !$0.isEmpty }) { rows.append(Row(person: "(open)", personID: nil, cells: open, requests: openRequests)) }
        self.init(
            from: from.description, to: to.description, days: dates.map(\.description), rows: rows,
            types: schedule.shiftTypes.map { TypeKey(symbol: $0.symbol, title: $0.title, time: $0.duration.description) })
    }
}
