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
    /// `file:line` of the rule that reported it.
    public let source: String?

    enum CodingKeys: String, CodingKey {
        case rule, severity, message, date, person, personID, type, shiftID, relatedShiftIDs, penalty, source
    }

    /// - Parameter pending: shifts of a rejected change, which the schedule does not hold yet.
    init(_ violation: Violation, schedule: Schedule?, pending: [ScheduledShift] = []) {
        rule = violation.ruleID
        severity = violation.severity.rawValue
        message = violation.message
        personID = violation.personID?.description
        person = violation.personID.flatMap { schedule?.person($0)?.displayName }
        shiftID = violation.shiftID?.description
        let shift = violation.shiftID.flatMap { id in pending.first { $0.id == id } ?? schedule?.shift(id) }
        type = shift.flatMap { schedule?.shiftType($0.shiftTypeID)?.symbol }
        date = (violation.date ?? shift?.date)?.description
        relatedShiftIDs = violation.relatedShiftIDs.map(\.description)
        penalty = violation.penalty
        source = violation.source
    }
}

/// A change the rules refused, with what is needed to name people and shift types in the report.
public struct RejectedChange: Error, Sendable {
    public let violations: [Violation]
    public let schedule: Schedule
    public let pending: [ScheduledShift]
}

/// Rule scores for `validate --score`.
public struct ScoreOutput: Encodable, Sendable {
    public struct Rule: Encodable, Sendable {
        public let count: Int
        public let penalty: Double
        public let severity: String
        enum CodingKeys: String, CodingKey { case count, penalty, severity }
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
        byRule = summary.byRule.mapValues { Rule(count: $0.count, penalty: $0.penalty, severity: $0.severity.rawValue) }
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
    /// Violations found but not listed (`validate --limit`).
    public let omitted: Int
    public let score: ScoreOutput?
    /// `validate --stats`.
    public var stats: ValidateStats?

    enum CodingKeys: String, CodingKey { case ok, rejected, errors, warnings, penalties, violations, omitted, score, stats }

    /// - Parameter limit: list at most this many violations (the first in report order).
    init(violations: [Violation], schedule: Schedule?, pending: [ScheduledShift] = [], score: ScoreSummary?, rejected: Bool, limit: Int? = nil) {
        var sorted = violations.sorted { a, b in
            (a.date ?? .minimum, b.severity, a.ruleID, a.message) < (b.date ?? .minimum, a.severity, b.ruleID, b.message)
        }
        omitted = limit.map { max(0, sorted.count - $0) } ?? 0
        if let limit, sorted.count > limit { sorted.removeLast(sorted.count - limit) }
        self.violations = sorted.map { ViolationOutput($0, schedule: schedule, pending: pending) }
        errors = violations.filter { $0.severity == .error }.count
        warnings = violations.filter { $0.severity == .warning }.count
        penalties = violations.filter { $0.severity == .penalty }.count
        ok = errors == 0
        self.rejected = rejected
        self.score = score.map(ScoreOutput.init)
    }

    /// A table: date, person, type, severity, rule, message; then a summary line.
    public func text(okLine: String? = nil) -> String {
        var out = ""
        if !violations.isEmpty {
            var table = TextTable("DATE", "PERSON", "TYPE", "SEVERITY", "RULE", "MESSAGE")
            for v in violations {
                table.add(v.date ?? "-", v.person ?? "-", v.type ?? "-", v.severity, v.rule, v.message)
            }
            out += table.rendered
        }
        if omitted > 0 {
            out += violations.isEmpty ? "\(omitted) violation\(omitted == 1 ? "" : "s") found, none listed (--limit)\n" : "… and \(omitted) more (--limit)\n"
        }
        out += (violations.isEmpty && omitted == 0 ? okLine ?? summaryLine : summaryLine) + "\n"
        if let score {
            out += "score: \(score.hardViolations) hard (penalty \(Self.number(score.hardPenalty))), \(score.warnings) warnings, soft penalty \(Self.number(score.softPenalty))\n"
            for rule in score.byRule.keys.sorted() {
                let entry = score.byRule[rule]!
                out += "  \(rule): \(entry.count) × \(entry.severity), penalty \(Self.number(entry.penalty))\n"
            }
        }
        return out
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
