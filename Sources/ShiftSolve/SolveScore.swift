import Foundation
import ShiftCore

/// How good a roster is, compared in this order: errors, then warnings, then open shifts left
/// without a person, then penalties (the rules' plus the change penalty), then the number of new
/// shifts made (of two rosters the rules score alike, the one with fewer shifts).
///
/// `hard`, `warnings` and the rules' penalties are what `shiftctl validate --score` prints for
/// the same roster.
public struct SolveScore: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Error findings.
    public var hard: Int
    public var warnings: Int
    /// Open shifts of the window still without a person.
    public var openShifts: Int
    /// The rules' penalties added up.
    public var penalty: Double
    /// The change penalty: `--change-penalty` times the assignments changed (`--replan`).
    public var changePenalty: Double
    /// Shifts the plan adds for demand.
    public var newShifts: Int

    public init(hard: Int = 0, warnings: Int = 0, openShifts: Int = 0, penalty: Double = 0, changePenalty: Double = 0, newShifts: Int = 0) {
        self.hard = hard
        self.warnings = warnings
        self.openShifts = openShifts
        self.penalty = penalty
        self.changePenalty = changePenalty
        self.newShifts = newShifts
    }

    /// No finding of any rule, no open shift, no change penalty: no move can do better on
    /// anything but the tie-breaker. (The search adds and takes away fractional penalties, so
    /// its sum of none may be off zero by a rounding error.)
    public var isPerfect: Bool { hard == 0 && warnings == 0 && openShifts == 0 && abs(soft) < 1e-6 }

    /// Penalties and change penalties together: the soft part the search weighs.
    public var soft: Double { penalty + changePenalty }

    public static func < (a: SolveScore, b: SolveScore) -> Bool {
        if a.hard != b.hard { return a.hard < b.hard }
        if a.warnings != b.warnings { return a.warnings < b.warnings }
        if a.openShifts != b.openShifts { return a.openShifts < b.openShifts }
        if a.soft != b.soft { return a.soft < b.soft }
        return a.newShifts < b.newShifts
    }

    /// `0 hard, 2 warnings, soft 1695`.
    public var description: String {
        var text = "\(hard) hard, \(warnings) warning\(warnings == 1 ? "" : "s")"
        if openShifts > 0 { text += ", \(openShifts) open" }
        text += ", soft \(Self.number(soft))"
        return text
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(format: "%.2f", value)
    }
}

/// What a set of findings adds to the score.
struct ScorePart: Sendable, Equatable {
    var hard = 0
    var warnings = 0
    var penalty = 0.0

    init() {}

    init(_ violations: [Violation]) {
        for violation in violations {
            switch violation.severity {
            case .error: hard += 1
            case .warning: warnings += 1
            case .penalty: penalty += violation.penalty ?? 1
            }
        }
    }

    static func + (a: ScorePart, b: ScorePart) -> ScorePart {
        var sum = a
        sum.hard += b.hard
        sum.warnings += b.warnings
        sum.penalty += b.penalty
        return sum
    }

    static func - (a: ScorePart, b: ScorePart) -> ScorePart {
        var difference = a
        difference.hard -= b.hard
        difference.warnings -= b.warnings
        difference.penalty -= b.penalty
        return difference
    }
}
