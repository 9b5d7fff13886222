import Foundation
import ShiftCore

/// A self-contained HTML page of the roster: one grid of people by days with the months marked
/// over it, a colour per shift type with a legend, each person's shifts and hours, a coverage
/// row per shift type (staffed against the demand's minimum and optimum, shortfalls marked),
/// cells whose shifts break a rule highlighted, and the rule findings with repeated ones grouped.
/// Inline CSS only, no scripts or external files; prints landscape with its colours.
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
        out += grid(schedule, shifts: shifts, types: types, dates: Array(stride(from: first, through: last, by: 1)))
        out += findings(schedule)
        out += "</body>\n</html>\n"
        return out
    }

    private func legend(_ types: [ShiftType], schedule: Schedule) -> String {
        var out = "<section class=\"legend\" aria-label=\"Shift types\"><h2>Shift types</h2><ul>"
        for type in types {
            let location = type.locationID.flatMap { schedule.location($0)?.name }
            out += "<li><span class=\"shift \(Self.typeClass(type))\">\(Self.escape(type.symbol))</span> "
            out += "<span class=\"name\">\(Self.escape(type.title))</span> <span class=\"time\">\(type.duration)</span>"
            if let location { out += " <span class=\"where\">\(Self.escape(location))</span>" }
            out += "</li>"
        }
        out += "<li><span class=\"swatch-violation\">!</span> <span class=\"name\">breaks a rule</span></li>"
        out += "<li><span class=\"cov-key short\">1/2</span> <span class=\"name\">staffed / minimum: below the minimum</span></li>"
        out += "<li><span class=\"cov-key thin\">2/2</span> <span class=\"name\">below the optimum</span></li></ul></section>\n"
        return out
    }

    // MARK: Style

    /// `t-<id>`: a class per type, so symbols need no CSS escaping.
    static func typeClass(_ type: ShiftType) -> String { "t-" + type.id.description.prefix(8) }

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
        var out = HTMLRosterStyle.css
        for type in types {
            guard let colour = colours[type.id] else { continue }
            out += ".\(typeClass(type)) { background: \(colour.background); color: \(colour.text); }\n"
        }
        return out
    }

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
