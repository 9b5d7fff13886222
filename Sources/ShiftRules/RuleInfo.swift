import Foundation
import ShiftCore

/// What `shiftctl rules list` shows about a loaded rule.
public struct RuleInfo: Codable, Hashable, Sendable {
    public let id: String
    public let summary: String
    /// The severity its reports get unless they name one (after the store's override).
    public let severity: Violation.Severity
    /// The entity kinds whose changes run its `check`.
    public let triggers: [EntityKind]
    /// The rule's file (as given in the rules folder).
    public let file: String
    public let enabled: Bool
    /// True when it has a whole-schedule `validate` phase.
    public let hasValidatePhase: Bool
    /// True when it has a person phase (`validate_person`), which `validate` runs instead of its
    /// `check` over every shift.
    public let hasPersonPhase: Bool
    /// True when it has a day phase (`validate_day`), which `validate` runs for each planning day.
    public let hasDayPhase: Bool
    /// True when it has a demand phase (`validate_demand`), which `validate` runs for each demand
    /// entry on each planning day with the number of people staffing it.
    public let hasDemandPhase: Bool
    public let exampleCount: Int
    /// Its parameters after the store's overrides.
    public let parameters: Attributes
}

/// The outcome of one of a rule's examples (`shiftctl rules test`).
public struct RuleExampleResult: Codable, Hashable, Sendable {
    public let ruleID: String
    public let file: String
    public let name: String
    /// True when the example expects the rule to report something.
    public let expectsViolation: Bool
    public let passed: Bool
    /// What happened, in a line (the violations found, or the error).
    public let detail: String
}

/// Violations added up for `validate --score`.
public struct ScoreSummary: Codable, Hashable, Sendable {
    public struct RuleScore: Codable, Hashable, Sendable {
        public var count: Int
        public var penalty: Double
        /// The highest severity among its findings (the rule's own when it found nothing).
        public var severity: Violation.Severity
        /// Its findings of each severity: a rule may report some below its own severity (a
        /// demand below its minimum is a warning, below its optimum a penalty).
        public var errors = 0
        public var warnings = 0
        public var penalties = 0

        public init(count: Int, penalty: Double, severity: Violation.Severity) {
            self.count = count
            self.penalty = penalty
            self.severity = severity
        }
    }

    public let hardViolations: Int
    /// The penalties of the errors added up (an error reported without one counts 1), for hard
    /// constraints that weigh their violations (minutes of overlap, say).
    public let hardPenalty: Double
    public let warnings: Int
    public let softPenalty: Double
    public let byRule: [String: RuleScore]

    /// Counts errors as hard violations and adds up penalties (a penalty report without an
    /// amount counts 1; a rule's `penalty` also adds up the amounts its errors and warnings
    /// carry). `rules` (the enabled rules that ran) are listed even when they found
    /// nothing, so a score names every constraint it checked.
    public init(_ violations: [Violation], rules: [RuleInfo] = []) {
        var byRule: [String: RuleScore] = [:]
        for rule in rules where rule.enabled {
            byRule[rule.id] = RuleScore(count: 0, penalty: 0, severity: rule.severity)
        }
        var hard = 0
        var hardPenalty = 0.0
        var warnings = 0
        var soft = 0.0
        // A rule's findings come in runs: its score is taken out at the start of a run and put
        // back at the end, not looked up for each finding. Each finding is read through the
        // buffer: `for violation in violations` would copy every one.
        var running: (rule: String, score: RuleScore)?
        violations.withUnsafeBufferPointer { all in
            for index in all.indices {
                let violation = all.baseAddress! + index
                let severity = violation.pointee.severity, penalty = violation.pointee.penalty
                switch severity {
                case .error:
                    hard += 1
                    hardPenalty += penalty ?? 1
                case .warning: warnings += 1
                case .penalty: soft += penalty ?? 1
                }
                if running?.rule != violation.pointee.ruleID {
                    if let running { byRule[running.rule] = running.score }
                    let rule = violation.pointee.ruleID
                    running = (rule, byRule[rule] ?? RuleScore(count: 0, penalty: 0, severity: severity))
                }
                var score = running!.score
                score.severity = score.count == 0 ? severity : max(score.severity, severity)
                score.count += 1
                switch severity {
                case .error: score.errors += 1
                case .warning: score.warnings += 1
                case .penalty: score.penalties += 1
                }
                score.penalty += penalty ?? (severity == .penalty ? 1 : 0)
                running!.score = score
            }
        }
        if let running { byRule[running.rule] = running.score }
        self.hardViolations = hard
        self.hardPenalty = hardPenalty
        self.warnings = warnings
        self.softPenalty = soft
        self.byRule = byRule
    }
}
