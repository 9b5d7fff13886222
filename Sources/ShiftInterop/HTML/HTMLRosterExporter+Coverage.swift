import Foundation
import ShiftCore

// The coverage rows under the roster grid: one per shift type (and per skill a demand names),
// each day's staff against the demand, shortfalls marked.

extension HTMLRosterExporter {
    func coverage(_ schedule: Schedule, types: [ShiftType], dates: [LocalDate], starts: Set<LocalDate>) -> String {
        let coverage = RosterCoverage(schedule: schedule, types: types, dates: dates)
        guard !coverage.rows.isEmpty else { return "" }
        var out = "<tbody class=\"coverage\">\n<tr class=\"coverage-title\"><th scope=\"rowgroup\" colspan=\"\(dates.count + 3)\">"
        out += "Coverage: people staffed / the demand's minimum (the optimum in each cell's title)</th></tr>\n"
        for row in coverage.rows {
            let label = row.type.symbol + (row.skill.map { " " + $0 } ?? "")
            out += "<tr class=\"coverage\" data-type=\"\(Self.escape(row.type.symbol))\">"
            out += "<th class=\"person\" scope=\"row\" title=\"\(Self.escape(row.type.title))\">"
            out += "<span class=\"shift \(Self.typeClass(row.type))\">\(Self.escape(row.type.symbol))</span>"
            out += (row.skill.map { " " + Self.escape($0) } ?? "") + " staffed</th>"
            var short = 0
            for (date, cell) in zip(dates, row.cells) {
                var classes = ["cov"]
                if date.weekday == .saturday || date.weekday == .sunday { classes.append("weekend") }
                if starts.contains(date) { classes.append("month-start") }
                if cell.isShort { classes.append("short"); short += 1 }
                if cell.isBelowOptimal { classes.append("thin") }
                let title: String
                let text: String
                if let minimum = cell.minimum, let optimal = cell.optimal {
                    title = "\(label) on \(date): \(cell.staffed) staffed; minimum \(minimum), optimal \(optimal)"
                        + (cell.isShort ? " — \(minimum - cell.staffed) short" : cell.isBelowOptimal ? " — below the optimum" : "")
                    text = "\(cell.staffed)/\(minimum)"
                } else {
                    title = "\(label) on \(date): \(cell.staffed) staffed; no demand"
                    text = cell.staffed > 0 ? String(cell.staffed) : ""
                }
                out += "<td class=\"\(classes.joined(separator: " "))\" title=\"\(Self.escape(title))\">\(text)</td>"
            }
            out += "<td class=\"total\" colspan=\"2\">" + (short == 0 ? "" : "\(short) day\(short == 1 ? "" : "s") short") + "</td></tr>\n"
        }
        out += "</tbody>\n"
        return out
    }
}
