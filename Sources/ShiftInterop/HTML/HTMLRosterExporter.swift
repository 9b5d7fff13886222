import Foundation
import ShiftCore

/// A self-contained HTML page of the roster: people by days (one table per month), a colour per
/// shift type with a legend, cells whose shifts break a rule highlighted, and the list of
/// violations. Inline CSS only, no scripts or external files; prints landscape with its colours.
///
/// A shift type's colour is its `color` attribute when that is a hex colour (`#1f77b4`), else
/// one of a fixed palette by the type's place in symbol order.
public struct HTMLRosterExporter: Sendable {
    public var selection: ShiftSelection
    /// Findings to highlight (from the rules' `validate`); each marks the cells of its shift and
    /// related shifts, else of its person and date.
    public var violations: [Violation]
    public var title: String
    /// A line under the title (when and how it was made).
    public var subtitle: String?

    public init(selection: ShiftSelection = ShiftSelection(), violations: [Violation] = [], title: String = "Roster", subtitle: String? = nil) {
        self.selection = selection
        self.violations = violations
        self.title = title
        self.subtitle = subtitle
    }

    /// Background and text colours, distinct on screen and in print.
    static let palette: [(background: String, text: String)] = [
        ("#f6c343", "#1d1d1d"), ("#2f6fb0", "#ffffff"), ("#4caf6a", "#10210f"), ("#8e5bb5", "#ffffff"),
        ("#3fb8c4", "#0c2326"), ("#d9534f", "#ffffff"), ("#c9ccd1", "#1d1d1d"), ("#5c5f66", "#ffffff"),
        ("#f29c50", "#1d1d1d"), ("#9bd15c", "#1d1d1d"), ("#e377c2", "#1d1d1d"), ("#17a2a2", "#ffffff"),
    ]

    /// The page for the selected shifts; the grid runs from the selection's first day (else the
    /// first shift's) to its last, and shows the findings that fall in it.
    public func export(_ schedule: Schedule) -> String {
        let shifts = selection.shifts(in: schedule)
        let first = selection.from ?? shifts.first?.date ?? LocalDate(dayNumber: 0)
        let last = max(first, selection.to ?? shifts.last?.date ?? first)
        var view = self
        view.violations = violations.filter { violation in
            let shift = violation.shiftID.flatMap { schedule.shift($0) }
            let date = shift?.date ?? violation.date
            let person = shift?.personID ?? violation.personID
            return date.map { first <= $0 && $0 <= last } ?? true
                && (selection.people == nil || person.map { selection.people!.contains($0) } ?? false)
        }
        return view.render(schedule, shifts: shifts, first: first, last: last)
    }

    private func render(_ schedule: Schedule, shifts: [ScheduledShift], first: LocalDate, last: LocalDate) -> String {
        let types = schedule.shiftTypes.filter { selection.types?.contains($0.id) ?? true }
        let colours = Dictionary(uniqueKeysWithValues: schedule.shiftTypes.enumerated().map { index, type in
            (type.id, Self.colour(of: type) ?? Self.palette[index % Self.palette.count])
        })
        var people: [Person] = schedule.people.filter { selection.people?.contains($0.id) ?? true }
        if selection.people == nil, shifts.contains(where: { $0.personID == nil }) {
            people.append(Person(id: Self.openRow, displayName: "(open)"))
        }
        var cells: [CellKey: [ScheduledShift]] = [:]
        for shift in shifts { cells[CellKey(person: shift.personID ?? Self.openRow, date: shift.date), default: []].append(shift) }
        let flagged = flaggedCells(schedule)

        var out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        out += "<title>\(Self.escape(title))</title>\n<style>\n\(Self.css(types: types, colours: colours))</style>\n</head>\n<body>\n"
        out += "<header><h1>\(Self.escape(title))</h1>"
        if let subtitle { out += "<p class=\"meta\">\(Self.escape(subtitle))</p>" }
        let errorCount = violations.filter { $0.severity == .error }.count
        out += "<p class=\"meta\">\(first) – \(last) · time zone \(Self.escape(schedule.zone.identifier)) · \(shifts.count) shift\(shifts.count == 1 ? "" : "s") · "
        out += violations.isEmpty ? "no rule violations" : "\(violations.count) rule finding\(violations.count == 1 ? "" : "s") (\(errorCount) error\(errorCount == 1 ? "" : "s"))"
        out += "</p></header>\n"
        out += legend(types, schedule: schedule)

        var monthStart = first
        while monthStart <= last {
            let monthEnd = min(last, LocalDate(year: monthStart.year, month: monthStart.month, day: LocalDate.daysIn(month: monthStart.month, year: monthStart.year))!)
            out += month(from: monthStart, to: monthEnd, people: people, cells: cells, flagged: flagged, schedule: schedule)
            monthStart = monthEnd.adding(days: 1)
        }
        out += violationList(schedule)
        out += "</body>\n</html>\n"
        return out
    }

    // MARK: Parts

    struct CellKey: Hashable {
        var person: PersonID
        var date: LocalDate
    }

    /// The row of open shifts (no real person has the nil UUID).
    static let openRow = PersonID(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))

    private func flaggedCells(_ schedule: Schedule) -> [CellKey: [Violation]] {
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

    private func legend(_ types: [ShiftType], schedule: Schedule) -> String {
        var out = "<section class=\"legend\" aria-label=\"Shift types\"><h2>Shift types</h2><ul>"
        for type in types {
            let location = type.locationID.flatMap { schedule.location($0)?.name }
            out += "<li><span class=\"shift \(Self.typeClass(type, in: schedule))\">\(Self.escape(type.symbol))</span> "
            out += "<span class=\"name\">\(Self.escape(type.title))</span> <span class=\"time\">\(type.duration)</span>"
            if let location { out += " <span class=\"where\">\(Self.escape(location))</span>" }
            out += "</li>"
        }
        out += "<li><span class=\"swatch-violation\">!</span> <span class=\"name\">breaks a rule</span></li></ul></section>\n"
        return out
    }

    private func month(from: LocalDate, to: LocalDate, people: [Person], cells: [CellKey: [ScheduledShift]],
                       flagged: [CellKey: [Violation]], schedule: Schedule) -> String {
        let dates = Array(stride(from: from, through: to, by: 1))
        var out = "<section class=\"month\"><h2>\(Self.monthNames[from.month - 1]) \(from.year)</h2>\n<table class=\"roster\">\n<thead><tr><th class=\"person\" scope=\"col\">Person</th>"
        for date in dates {
            let weekend = date.weekday == .saturday || date.weekday == .sunday
            out += "<th scope=\"col\"\(weekend ? " class=\"weekend\"" : "")><span class=\"wd\">\(date.weekday.name.prefix(2).capitalized)</span><span class=\"dn\">\(date.day)</span></th>"
        }
        out += "</tr></thead>\n<tbody>\n"
        for person in people {
            out += "<tr><th class=\"person\" scope=\"row\" title=\"\(Self.escape(person.displayName))\">\(Self.escape(person.displayName))</th>"
            for date in dates {
                let key = CellKey(person: person.id, date: date)
                var classes: [String] = []
                if date.weekday == .saturday || date.weekday == .sunday { classes.append("weekend") }
                var tooltip: [String] = []
                if let found = flagged[key] {
                    let worst = found.map(\.severity).max()!
                    classes.append("violation \(worst.rawValue)")
                    tooltip = found.map { "\($0.severity.rawValue): \($0.message) (\($0.ruleID))" }
                }
                out += "<td" + (classes.isEmpty ? "" : " class=\"\(classes.joined(separator: " "))\"")
                out += tooltip.isEmpty ? ">" : " title=\"\(Self.escape(tooltip.joined(separator: "\n")))\">"
                for shift in cells[key] ?? [] {
                    guard let type = schedule.shiftType(shift.shiftTypeID) else { continue }
                    let hint = "\(type.title) \(type.duration)" + (shift.notes.map { " — \($0)" } ?? "")
                    out += "<span class=\"shift \(Self.typeClass(type, in: schedule))\" title=\"\(Self.escape(hint))\">\(Self.escape(type.symbol))</span>"
                }
                if !tooltip.isEmpty { out += "<span class=\"flag\" aria-label=\"breaks a rule\">!</span>" }
                out += "</td>"
            }
            out += "</tr>\n"
        }
        out += "</tbody>\n</table></section>\n"
        return out
    }

    private func violationList(_ schedule: Schedule) -> String {
        guard !violations.isEmpty else { return "" }
        var out = "<section class=\"violations\"><h2>Rule findings</h2>\n<table>\n<thead><tr><th>Date</th><th>Person</th><th>Type</th><th>Severity</th><th>Rule</th><th>Message</th></tr></thead>\n<tbody>\n"
        let sorted = violations.sorted { ($0.date ?? .minimum, $1.severity) < ($1.date ?? .minimum, $0.severity) }
        for violation in sorted {
            let shift = violation.shiftID.flatMap { schedule.shift($0) }
            let person = (violation.personID ?? shift?.personID).flatMap { schedule.person($0)?.displayName } ?? ""
            let type = shift.flatMap { schedule.shiftType($0.shiftTypeID)?.symbol } ?? ""
            out += "<tr class=\"\(violation.severity.rawValue)\"><td>\(violation.date?.description ?? "")</td><td>\(Self.escape(person))</td>"
            out += "<td>\(Self.escape(type))</td><td class=\"severity\">\(violation.severity.rawValue)</td>"
            out += "<td><code>\(Self.escape(violation.ruleID))</code></td><td>\(Self.escape(violation.message))</td></tr>\n"
        }
        out += "</tbody>\n</table></section>\n"
        return out
    }

    // MARK: Style

    static let monthNames = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                             "October", "November", "December"]

    /// `t-<id>`: a class per type, so symbols need no CSS escaping.
    static func typeClass(_ type: ShiftType, in schedule: Schedule) -> String { "t-" + type.id.description.prefix(8) }

    /// A type's `color` attribute when it is `#rgb` or `#rrggbb`, with black or white text by brightness.
    static func colour(of type: ShiftType) -> (background: String, text: String)? {
        guard let text = type.attributes["color"]?.stringValue ?? type.attributes["colour"]?.stringValue,
              text.first == "#", text.count == 4 || text.count == 7, text.dropFirst().allSatisfy(\.isHexDigit) else { return nil }
        let digits = Array(text.dropFirst())
        let full = digits.count == 3 ? digits.flatMap { [$0, $0] } : digits
        let values = stride(from: 0, to: 6, by: 2).map { Int(String(full[$0...$0 + 1]), radix: 16) ?? 0 }
        let brightness = (values[0] * 299 + values[1] * 587 + values[2] * 114) / 1000
        return (text, brightness > 140 ? "#1d1d1d" : "#ffffff")
    }

    static func css(types: [ShiftType], colours: [ShiftTypeID: (background: String, text: String)]) -> String {
        var out = baseCSS
        for type in types {
            guard let colour = colours[type.id] else { continue }
            out += ".t-\(type.id.description.prefix(8)) { background: \(colour.background); color: \(colour.text); }\n"
        }
        return out
    }

    static let baseCSS = """
        :root { --line: #d5d8dd; --weekend: #f1f3f6; --error: #c62828; --warning: #e68a00; --penalty: #5a6fd6; }
        * { box-sizing: border-box; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
        body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif; color: #1d1d1d; margin: 24px; background: #fff; }
        h1 { font-size: 22px; margin: 0 0 4px; }
        h2 { font-size: 16px; margin: 20px 0 8px; }
        .meta { color: #555; margin: 0; }
        .legend ul { list-style: none; padding: 0; margin: 0; display: flex; flex-wrap: wrap; gap: 6px 18px; }
        .legend li { display: flex; align-items: center; gap: 6px; }
        .legend .time, .legend .where { color: #555; }
        table { border-collapse: collapse; }
        table.roster { table-layout: fixed; width: 100%; }
        .roster th, .roster td { border: 1px solid var(--line); padding: 2px; text-align: center; vertical-align: middle; height: 30px; position: relative; }
        .roster thead th { font-weight: 600; font-size: 12px; background: #fafbfc; }
        .roster thead th .wd { display: block; color: #666; font-weight: 400; }
        .roster th.person { width: 13em; text-align: left; padding: 2px 8px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
        .roster .weekend { background: var(--weekend); }
        .shift { display: inline-block; min-width: 1.8em; padding: 1px 4px; margin: 1px; border-radius: 4px; font-weight: 700; font-size: 12px; line-height: 1.5; }
        td.violation { outline: 3px solid var(--error); outline-offset: -3px; background: #fdecea; }
        td.violation.warning { outline-color: var(--warning); background: #fff4e0; }
        td.violation.penalty { outline-color: var(--penalty); background: #eef0fc; }
        .flag { position: absolute; top: 0; right: 2px; font-size: 10px; font-weight: 800; color: var(--error); }
        td.warning .flag { color: var(--warning); }
        td.penalty .flag { color: var(--penalty); }
        .swatch-violation { display: inline-block; width: 1.8em; text-align: center; border-radius: 4px; outline: 3px solid var(--error); outline-offset: -3px; background: #fdecea; color: var(--error); font-weight: 800; }
        .violations table { width: 100%; }
        .violations th, .violations td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
        .violations thead th { background: #fafbfc; }
        .violations tr.error .severity { color: var(--error); font-weight: 700; }
        .violations tr.warning .severity { color: var(--warning); font-weight: 700; }
        @media print {
          @page { size: A4 landscape; margin: 10mm; }
          body { margin: 0; font-size: 10px; }
          h1 { font-size: 16px; }
          h2 { font-size: 12px; margin: 8px 0 4px; }
          .roster th, .roster td { height: 22px; padding: 1px; }
          .roster th.person { width: 9em; }
          .shift { font-size: 9px; padding: 0 2px; min-width: 1.4em; }
          section.month { break-inside: avoid; page-break-inside: avoid; }
          section.month + section.month { break-before: page; page-break-before: always; }
          thead { display: table-header-group; }
          tr { break-inside: avoid; }
        }

        """

    /// Escapes text for HTML element content and quoted attribute values.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
