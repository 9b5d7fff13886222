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
        var namer = FindingNamer(schedule: schedule, pending: pending, directory: directory)
        self = namer.output(violation)
    }

    init(rule: String, severity: String, message: String, date: String?, person: String?, personID: String?, type: String?,
         shiftID: String?, relatedShiftIDs: [String], penalty: Double?, source: String?) {
        (self.rule, self.severity, self.message, self.date, self.person, self.personID) = (rule, severity, message, date, person, personID)
        (self.type, self.shiftID, self.relatedShiftIDs, self.penalty, self.source) = (type, shiftID, relatedShiftIDs, penalty, source)
    }
}

/// The names in a report's findings (people, shift types, rule files), each worked out once: a
/// messy roster's listing names the same few thousand people, a few shift types and one or two
/// files a hundred thousand times.
struct FindingNamer {
    let schedule: Schedule?
    /// The shifts of a rejected change by id (the last of each), made when first asked.
    private let pending: [ScheduledShift]
    private var pendingByID: [ShiftID: ScheduledShift]?
    let directory: String?
    private var people: [PersonID: (id: String, name: String?)] = [:]
    private var types: [ShiftTypeID: String?] = [:]
    private struct Site: Hashable { var file: String; var line: Int32 }
    private var sources: [Site: String] = [:]

    init(schedule: Schedule?, pending: [ScheduledShift], directory: String?) {
        (self.schedule, self.pending, self.directory) = (schedule, pending, directory)
    }

    mutating func output(_ violation: borrowing Violation) -> ViolationOutput {
        let person = violation.personID.map { self.person($0) }
        // The shift is read only for what the finding does not say itself.
        let shift = violation.shiftTypeID != nil && violation.date != nil ? nil : violation.shiftID.flatMap { self.shift($0) }
        return ViolationOutput(
            rule: violation.ruleID, severity: violation.severity.rawValue, message: violation.message,
            date: (violation.date ?? shift?.date)?.description, person: person?.name, personID: person?.id,
            type: (violation.shiftTypeID ?? shift?.shiftTypeID).flatMap { symbol($0) }, shiftID: violation.shiftID?.description,
            relatedShiftIDs: violation.relatedShiftIDs.map(\.description), penalty: violation.penalty,
            source: violation.source.map { source(Site(file: $0, line: violation.line)) })
    }

    private mutating func person(_ id: PersonID) -> (id: String, name: String?) {
        if let known = people[id] { return known }
        let named = (id.description, schedule?.person(id)?.displayName)
        people[id] = named
        return named
    }

    private mutating func symbol(_ id: ShiftTypeID) -> String? {
        if let known = types[id] { return known }
        let symbol = schedule?.shiftType(id)?.symbol
        types[id] = symbol
        return symbol
    }

    private mutating func shift(_ id: ShiftID) -> ScheduledShift? {
        if !pending.isEmpty {
            // One finding looks through the list; from the second on, the list is indexed.
            if pendingByID == nil, !pendingSearched {
                pendingSearched = true
                if let shift = pending.last(where: { $0.id == id }) { return shift }
            } else {
                if pendingByID == nil { pendingByID = Dictionary(pending.map { ($0.id, $0) }, uniquingKeysWith: { $1 }) }
                if let shift = pendingByID?[id] { return shift }
            }
        }
        return schedule?.shift(id)
    }
    private var pendingSearched = false

    /// `file:line`, the file relative to the working folder when it is inside it.
    private mutating func source(_ site: Site) -> String {
        if let known = sources[site] { return known }
        let relative = directory.map { site.file.hasPrefix($0 + "/") ? String(site.file.dropFirst($0.count + 1)) : site.file } ?? site.file
        let named = relative + (site.line > 0 ? ":\(site.line)" : "")
        sources[site] = named
        return named
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
        var namer = FindingNamer(schedule: schedule, pending: pending, directory: directory)
        self.violations = violations.withUnsafeBufferPointer { all in Self.firstIndices(listed, of: violations).map { namer.output(all[$0]) } }
        weekStart = schedule?.settings.weekStart ?? .monday
        var counts = [0, 0, 0]
        // Through the buffer, as below: a finding's field is read without copying the finding.
        violations.withUnsafeBufferPointer { all in
            for index in all.indices {
                switch all[index].severity {
                case .error: counts[0] += 1
                case .warning: counts[1] += 1
                case .penalty: counts[2] += 1
                }
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
        firstIndices(count, of: violations).map { violations[$0] }
    }

    /// Where the first `count` findings in report order are in `violations` (`first(_:of:)`).
    static func firstIndices(_ count: Int, of violations: [Violation]) -> [Int] {
        guard count > 0 else { return [] }
        // Each finding is read through the buffer, field by field: `for violation in violations`
        // copies every finding (five reference counts up and down), a third of this step. A
        // rule's findings come in runs, so a rule is looked up only where a run starts.
        var order: [(key: UInt64, index: Int)] = []
        violations.withUnsafeBufferPointer { all in
            var ranks: [String: UInt64] = [:]
            var lastRule = ""
            for index in all.indices where all[index].ruleID != lastRule {
                lastRule = all[index].ruleID
                if ranks[lastRule] == nil { ranks[lastRule] = 0 }
            }
            for (rank, rule) in ranks.keys.sorted().enumerated() { ranks[rule] = UInt64(rank) }
            // Day, severity (the highest first) and rule in one integer, compared as the order is.
            let severities = Violation.Severity.allCases.sorted(by: >)
            var lastRank = UInt64(0)
            lastRule = ""
            order.reserveCapacity(all.count)
            for index in all.indices {
                if all[index].ruleID != lastRule { (lastRule, lastRank) = (all[index].ruleID, ranks[all[index].ruleID]!) }
                let day = UInt64(UInt32(bitPattern: (all[index].date ?? .minimum).dayNumber) ^ 0x8000_0000)
                let severity = UInt64(severities.firstIndex(of: all[index].severity)!)
                order.append((day << 32 | severity << 24 | lastRank, index))
            }
        }
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
                // Through the buffer: each comparison reads two messages, not two whole findings.
                violations.withUnsafeBufferPointer { all in
                    order[start..<stop].sort { a, b in
                        let m = all[a.index].message, n = all[b.index].message
                        return m != n ? m < n : a.index < b.index
                    }
                }
            }
            start = stop
        }
        return order.prefix(count).map(\.index)
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
            let first = violations[group.items[0]]
            let types = violations.withUnsafeBufferPointer { all in
                group.items.compactMap { all[$0].type }.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
            }
            table.add(span(group.first, group.last) ?? "-", first.person ?? "-", types.isEmpty ? "-" : types.joined(separator: ","),
                      first.severity, first.rule, first.message + (group.count > 1 ? " (×\(group.count))" : ""))
        }
        var out = table.rendered
        if groups.count < violations.count {
            out += "(\(violations.count) findings in \(groups.count) rows: a rule's findings about one person that say the same thing or fall in one week or run of days share a row; --format json lists each)\n"
        }
        return out
    }

    /// Repeated findings together (`FindingGrouping`), as positions in `violations`: a group
    /// holds indices, and each field is read through the buffer without copying the finding.
    static func grouped(_ violations: [ViolationOutput], weekStart: Weekday) -> [FindingGroup<Int>] {
        violations.withUnsafeBufferPointer { all in
            FindingGrouping.group(Array(all.indices), weekStart: weekStart, key: { index in
                FindingGrouping.Key(rule: all[index].rule, severity: Violation.Severity(rawValue: all[index].severity) ?? .error,
                                    person: all[index].personID, type: all[index].type)
            }, date: { all[$0].date.flatMap { LocalDate($0) } }, message: { all[$0].message })
        }
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
