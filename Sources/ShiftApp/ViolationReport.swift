import Foundation
import ShiftCore
import ShiftRules

/// One rule finding as the CLI prints it, with names resolved.
public struct ViolationOutput: Encodable, Sendable {
    public let rule: String
    public let severity: String
    public let message: String
    public let date: String?
    public let person: String?
    public let personID: String?
    public let type: String?
    public let shiftID: String?
    public let relatedShiftIDs: [String]
    public let penalty: Double?
    /// `file:line` of the `report` call that made it (the file relative to the working folder
    /// when it is inside it).
    public let source: String?

    enum CodingKeys: String, CodingKey {
        case rule, severity, message, date, person, personID, type, shiftID, relatedShiftIDs, penalty, source
    }

    /// - Parameters:
    ///   - pending: shifts of a rejected change as it would have made them, which the schedule
    ///     does not hold yet (or holds as they were before).
    ///   - directory: the working folder, which `source` is relative to when the file is inside it.
    init(_ violation: Violation, schedule: Schedule?, pending: [ScheduledShift] = [], directory: String? = nil) {
        rule = violation.ruleID
        severity = violation.severity.rawValue
        message = violation.message
        personID = violation.personID?.description
        person = violation.personID.flatMap { schedule?.person($0)?.displayName }
        shiftID = violation.shiftID?.description
        let shift = violation.shiftID.flatMap { id in pending.last { $0.id == id } ?? schedule?.shift(id) }
        type = (violation.shiftTypeID ?? shift?.shiftTypeID).flatMap { schedule?.shiftType($0)?.symbol }
        date = (violation.date ?? shift?.date)?.description
        relatedShiftIDs = violation.relatedShiftIDs.map(\.description)
        penalty = violation.penalty
        source = violation.source.map { file in
            let relative = directory.map { file.hasPrefix($0 + "/") ? String(file.dropFirst($0.count + 1)) : file } ?? file
            return relative + (violation.line > 0 ? ":\(violation.line)" : "")
        }
    }
}

/// A change the rules refused, with what is needed to name people and shift types in the report.
public struct RejectedChange: Error, Sendable {
    public let violations: [Violation]
    public let schedule: Schedule
    /// The shifts of the change as it would have written them.
    public let pending: [ScheduledShift]
    /// The working folder, which the findings' rule files are named relative to.
    public var directory: String?
    /// What stays as it was, said after "nothing was written" (`request 1a2b3c4d stays pending`).
    public var remark: String? = nil
}

/// Rule scores for `validate --score`.
public struct ScoreOutput: Encodable, Sendable {
    public struct Rule: Encodable, Sendable {
        public let count: Int
        public let penalty: Double
        /// The highest severity among its findings.
        public let severity: String
        /// Its findings of each severity (a rule may report below its own severity).
        public let errors: Int
        public let warnings: Int
        public let penalties: Int
        enum CodingKeys: String, CodingKey { case count, penalty, severity, errors, warnings, penalties }

        /// `3 × error`; per severity when it reported several: `66 × warning + 186 × penalty`.
        var counts: String {
            let each = [(errors, "error"), (warnings, "warning"), (penalties, "penalty")].filter { $0.0 > 0 }
            guard each.count > 1 else { return "\(count) × \(severity)" }
            return each.map { "\($0.0) × \($0.1)" }.joined(separator: " + ")
        }
    }

    public let hardViolations: Int
    public let hardPenalty: Double
    public let warnings: Int
    public let softPenalty: Double
    public let byRule: [String: Rule]

    enum CodingKeys: String, CodingKey { case hardViolations, hardPenalty, warnings, softPenalty, byRule }

    init(_ summary: ScoreSummary) {
        hardViolations = summary.hardViolations
        hardPenalty = summary.hardPenalty
        warnings = summary.warnings
        softPenalty = summary.softPenalty
        byRule = summary.byRule.mapValues {
            Rule(count: $0.count, penalty: $0.penalty, severity: $0.severity.rawValue, errors: $0.errors, warnings: $0.warnings,
                 penalties: $0.penalties)
        }
    }
}

/// Violations from `validate` or a rejected change, renderable as text, JSON or GitHub annotations.
public struct ViolationReport: Encodable, Sendable {
    public let ok: Bool
    public let rejected: Bool
    public let errors: Int
    public let warnings: Int
    public let penalties: Int
    public let violations: [ViolationOutput]
    /// Violations found but not listed: past `validate --limit`, or past `listBound`.
    public let omitted: Int
    /// Why some were not listed: `limit` (`--limit`) or `memory` (more than `listBound`); nil
    /// when every finding is listed.
    public let omittedBecause: String?
    public let score: ScoreOutput?
    /// `validate --stats`.
    public var stats: ValidateStats?

    /// The first day of the week, for grouping findings in text.
    var weekStart = Weekday.monday

    /// At most this many findings are listed whatever `--limit` says: each listed one is named
    /// and held as text (and printed), while the counts and the score cover every finding.
    public static let listBound = 100_000

    enum CodingKeys: String, CodingKey { case ok, rejected, errors, warnings, penalties, violations, omitted, omittedBecause, score, stats }

    /// - Parameters:
    ///   - limit: list at most this many violations (the first in report order).
    ///   - directory: the working folder, which each finding's `source` is relative to.
    ///   - listBound: list at most this many whatever `limit` says (`ViolationReport.listBound`).
    init(violations: [Violation], schedule: Schedule?, pending: [ScheduledShift] = [], score: ScoreSummary?, rejected: Bool,
         limit: Int? = nil, directory: String? = nil, listBound: Int = ViolationReport.listBound) {
        let listed = min(limit ?? .max, listBound, violations.count)
        omitted = violations.count - listed
        omittedBecause = omitted == 0 ? nil : listed == limit ? "limit" : "memory"
        self.violations = Self.first(listed, of: violations).map { ViolationOutput($0, schedule: schedule, pending: pending, directory: directory) }
        weekStart = schedule?.settings.weekStart ?? .monday
        var counts = [0, 0, 0]
        for violation in violations {
            switch violation.severity {
            case .error: counts[0] += 1
            case .warning: counts[1] += 1
            case .penalty: counts[2] += 1
            }
        }
        (errors, warnings, penalties) = (counts[0], counts[1], counts[2])
        ok = errors == 0
        self.rejected = rejected
        self.score = score.map(ScoreOutput.init)
    }

    /// The first `count` findings in report order (date, severity from the highest, rule,
    /// message; ties in the order found).
    ///
    /// Each finding gets one integer key (day, severity, the rule's rank), and the keys are
    /// sorted; messages are compared only within runs of equal keys among the first `count`.
    /// A messy roster has thousands of findings a day of one rule, so a heap or a sort comparing
    /// findings compared messages nearly every time (half a million findings, the first 100,000
    /// listed: 0.4 s; comparing the findings themselves, copying each twice a comparison, had
    /// been a third of `validate`).
    static func first(_ count: Int, of violations: [Violation]) -> [Violation] {
        guard count > 0 else { return [] }
        var ranks: [String: UInt64] = [:]
        for violation in violations where ranks[violation.ruleID] == nil { ranks[violation.ruleID] = 0 }
        for (rank, rule) in ranks.keys.sorted().enumerated() { ranks[rule] = UInt64(rank) }
        // Day, severity (the highest first) and rule in one integer, compared as the order is.
        let severities = Violation.Severity.allCases.sorted(by: >)
        func key(_ violation: Violation) -> UInt64 {
            let day = UInt64(UInt32(bitPattern: (violation.date ?? .minimum).dayNumber) ^ 0x8000_0000)
            let severity = UInt64(severities.firstIndex(of: violation.severity)!)
            return day << 32 | severity << 24 | ranks[violation.ruleID]!
        }
        var order = violations.indices.map { (key: key(violations[$0]), index: $0) }
        order.sort { $0.key != $1.key ? $0.key < $1.key : $0.index < $1.index }
        // Findings of one key are ordered by message (then as found): only the runs of equal
        // keys among the first `count` are sorted so, the last one whole.
        var end = min(count, order.count)
        while end < order.count, order[end].key == order[end - 1].key { end += 1 }
        var start = 0
        while start < end {
            var stop = start + 1
            while stop < end, order[stop].key == order[start].key { stop += 1 }
            if stop - start > 1 {
                order[start..<stop].sort { a, b in
                    let m = violations[a.index].message, n = violations[b.index].message
                    return m != n ? m < n : a.index < b.index
                }
            }
            start = stop
        }
        return order.prefix(count).map { violations[$0.index] }
    }

    /// A table: date, person, type, severity, rule, message; then a summary line. Repeated
    /// findings (`FindingGrouping`) are one row: the span of their dates, the first message and
    /// how many there are (`(×7)`).
    public func text(okLine: String? = nil) -> String {
        var out = ""
        out += Self.table(violations, weekStart: weekStart)
        if omitted > 0 { out += omittedLine + "\n" }
        out += (violations.isEmpty && omitted == 0 ? okLine ?? summaryLine : summaryLine) + "\n"
        if let score {
            out += "score: \(score.hardViolations) hard (penalty \(Self.number(score.hardPenalty))), \(score.warnings) warnings, soft penalty \(Self.number(score.softPenalty))\n"
            for rule in score.byRule.keys.sorted() {
                let entry = score.byRule[rule]!
                out += "  \(rule): \(entry.counts), penalty \(Self.number(entry.penalty))\n"
            }
        }
        return out
    }

    /// The table of findings for people (empty for none): date, person, type, severity, rule,
    /// message. Repeated findings (`FindingGrouping`) are one row: the span of their dates, their
    /// types, the first message and how many there are (`(×7)`); a line then says so.
    static func table(_ violations: [ViolationOutput], weekStart: Weekday) -> String {
        guard !violations.isEmpty else { return "" }
        let groups = grouped(violations, weekStart: weekStart)
        var table = TextTable("DATE", "PERSON", "TYPE", "SEVERITY", "RULE", "MESSAGE")
        for group in groups {
            let first = group.items[0]
            let types = group.items.compactMap(\.type).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
            table.add(span(group.first, group.last) ?? "-", first.person ?? "-", types.isEmpty ? "-" : types.joined(separator: ","),
                      first.severity, first.rule, first.message + (group.count > 1 ? " (×\(group.count))" : ""))
        }
        var out = table.rendered
        if groups.count < violations.count {
            out += "(\(violations.count) findings in \(groups.count) rows: a rule's findings about one person that say the same thing or fall in one week or run of days share a row; --format json lists each)\n"
        }
        return out
    }

    /// Repeated findings together (`FindingGrouping`).
    static func grouped(_ violations: [ViolationOutput], weekStart: Weekday) -> [FindingGroup<ViolationOutput>] {
        FindingGrouping.group(violations, weekStart: weekStart, key: {
            FindingGrouping.Key(rule: $0.rule, severity: Violation.Severity(rawValue: $0.severity) ?? .error, person: $0.personID, type: $0.type)
        }, date: { $0.date.flatMap { LocalDate($0) } }, message: \.message)
    }

    /// `2026-03-02`, or a span: `2026-03-02..03-08` (`2026-12-28..2027-01-03` across a year).
    static func span(_ first: LocalDate?, _ last: LocalDate?) -> String? {
        guard let first else { return nil }
        guard let last, last != first else { return first.description }
        return "\(first).." + (last.year == first.year ? String(last.description.dropFirst(5)) : last.description)
    }

    /// How many findings are not listed, and why.
    var omittedLine: String {
        let why = omittedBecause == "memory" ? "only the first \(violations.count) are listed; the counts cover all" : "--limit"
        return violations.isEmpty ? "\(omitted) violation\(omitted == 1 ? "" : "s") found, none listed (\(why))" : "… and \(omitted) more (\(why))"
    }

    var summaryLine: String {
        if violations.isEmpty && omitted == 0 { return "ok: no violations" }
        func count(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
        return (rejected ? "rejected: " : "") + [count(errors, "error"), count(warnings, "warning"), count(penalties, "penalty")]
            .joined(separator: ", ").replacingOccurrences(of: "penaltys", with: "penalties")
    }

    /// GitHub Actions workflow commands, one per violation, file paths relative to `root`.
    public func github(relativeTo root: String) -> String {
        var out = ""
        for v in violations {
            let level = v.severity == "error" ? "error" : v.severity == "warning" ? "warning" : "notice"
            var location = ""
            if let source = v.source {
                let (file, line) = Self.split(source)
                let relative = file.hasPrefix(root + "/") ? String(file.dropFirst(root.count + 1)) : file
                location = " file=\(Self.escapeProperty(relative))" + (line.map { ",line=\($0)" } ?? "")
            }
            let subject = [v.date, v.person, v.type].compactMap { $0 }.joined(separator: " ")
            let text = (subject.isEmpty ? "" : subject + ": ") + "\(v.message) (\(v.rule))"
            out += "::\(level)\(location)::\(Self.escapeData(text))\n"
        }
        if omitted > 0 { out += omittedLine + "\n" }
        out += summaryLine + "\n"
        return out
    }

    /// `rules/x.lua:14` → (`rules/x.lua`, 14).
    static func split(_ source: String) -> (String, Int?) {
        guard let colon = source.lastIndex(of: ":"), let line = Int(source[source.index(after: colon)...]) else { return (source, nil) }
        return (String(source[..<colon]), line)
    }

    static func escapeData(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D").replacingOccurrences(of: "\n", with: "%0A")
    }

    static func escapeProperty(_ text: String) -> String {
        escapeData(text).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }

    static func number(_ value: Double) -> String {
        value.rounded() == value ? String(Int(value)) : String(format: "%.2f", value)
    }
}
