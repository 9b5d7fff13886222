import Foundation
import ShiftCore

// The rule findings under the grid, repeated ones grouped as the command line groups them
// (`FindingGrouping`): one row per group with its dates, a count and the first message.

extension HTMLRosterExporter {
    /// One finding with its names resolved.
    struct Finding {
        let violation: Violation
        let date: LocalDate?
        let person: PersonID?
        let personName: String
        let type: String
    }

    func findings(_ schedule: Schedule) -> String {
        guard !violations.isEmpty else { return "" }
        let sorted = violations.sorted { ($0.date ?? .minimum, $1.severity) < ($1.date ?? .minimum, $0.severity) }
        let items = sorted.map { violation in
            let shift = violation.shiftID.flatMap { schedule.shift($0) }
            let person = violation.personID ?? shift?.personID
            let type = (violation.shiftTypeID ?? shift?.shiftTypeID).flatMap { schedule.shiftType($0)?.symbol } ?? ""
            return Finding(violation: violation, date: violation.date ?? shift?.date, person: person,
                           personName: person.flatMap { schedule.person($0)?.displayName } ?? "", type: type)
        }
        let groups = FindingGrouping.group(items, weekStart: schedule.settings.weekStart, key: {
            FindingGrouping.Key(rule: $0.violation.ruleID, severity: $0.violation.severity, person: $0.person?.description, type: $0.type)
        }, date: \.date, message: \.violation.message)

        var out = "<section class=\"violations\" aria-label=\"Rule findings\"><h2>Rule findings</h2>\n"
        if groups.count < items.count {
            out += "<p class=\"meta\">\(items.count) findings in \(groups.count) rows: a rule's repeated findings about one person "
            out += "(or one shift type) in a week or a run of days share a row.</p>\n"
        }
        out += "<table>\n<colgroup><col class=\"c-date\"><col class=\"c-person\"><col class=\"c-type\"><col class=\"c-severity\">"
        out += "<col class=\"c-rule\"><col class=\"c-count\"><col class=\"c-message\"></colgroup>\n"
        out += "<thead><tr><th scope=\"col\">Date</th><th scope=\"col\">Person</th><th scope=\"col\">Type</th><th scope=\"col\">Severity</th>"
        out += "<th scope=\"col\">Rule</th><th scope=\"col\" class=\"count\">Count</th><th scope=\"col\">Message</th></tr></thead>\n<tbody>\n"
        for group in groups {
            let first = group.items[0]
            let types = group.items.map(\.type).filter { !$0.isEmpty }.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
            let severity = first.violation.severity.rawValue
            out += "<tr class=\"\(severity)\"><td>\(Self.span(group.first, group.last))</td><td>\(Self.escape(first.personName))</td>"
            out += "<td>\(Self.escape(types.joined(separator: ", ")))</td><td class=\"severity\">\(severity)</td>"
            out += "<td><code>\(Self.escape(first.violation.ruleID))</code></td><td class=\"count\">\(group.count)</td>"
            out += "<td>\(Self.escape(first.violation.message))\(group.count > 1 ? " <span class=\"more\">(and \(group.count - 1) more)</span>" : "")</td></tr>\n"
        }
        out += "</tbody>\n</table></section>\n"
        return out
    }

    /// `2026-03-02`, or `2026-03-02 – 03-08` (the year again across a year's end).
    static func span(_ first: LocalDate?, _ last: LocalDate?) -> String {
        guard let first else { return "" }
        guard let last, last != first else { return first.description }
        return "\(first) – " + (last.year == first.year ? String(last.description.dropFirst(5)) : last.description)
    }
}
