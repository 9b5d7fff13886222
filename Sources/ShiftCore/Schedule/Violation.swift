import Foundation

/// A rule's finding about a schedule.
public struct Violation: Codable, Hashable, Sendable, CustomStringConvertible {
    /// How much a finding matters. `error` rejects a mutation; `warning` is reported; `penalty`
    /// is a soft cost that `validate --score` adds up.
    public enum Severity: String, Codable, Hashable, Sendable, Comparable, CaseIterable {
        case penalty, warning, error

        private var rank: Int {
            switch self {
            case .penalty: 0
            case .warning: 1
            case .error: 2
            }
        }

        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }
    }

    // Stored in this order so that the fields pack tightly: a whole-schedule check makes one
    // per finding, and copies them as it merges and sorts.
    public var ruleID: String
    public var severity: Severity
    /// The line of `source` where `report` was called; 0 when unknown.
    public var line: Int32
    public var message: String
    /// The soft cost of a `penalty` (or any violation a rule weighs).
    public var penalty: Double?
    public var shiftID: ShiftID?
    public var personID: PersonID?
    /// The shift type it is about, when that is not the type of `shiftID` (a day short of staff
    /// for a demand names the demand's type).
    public var shiftTypeID: ShiftTypeID?
    public var date: LocalDate?
    /// Other shifts involved (the one a double booking collides with).
    public var relatedShiftIDs: [ShiftID]
    /// The file of the rule that reported it (`rules/no_double_booking.lua`), or of the helper
    /// module whose code made the `report` call.
    public var source: String?

    // Inlinable: a whole-schedule check makes one per finding, tens of thousands in a run.
    @inlinable public init(
        ruleID: String, severity: Severity, message: String, penalty: Double? = nil, shiftID: ShiftID? = nil,
        personID: PersonID? = nil, date: LocalDate? = nil, relatedShiftIDs: [ShiftID] = [], source: String? = nil,
        line: Int32 = 0, shiftTypeID: ShiftTypeID? = nil
    ) {
        self.ruleID = ruleID
        self.severity = severity
        self.message = message
        self.penalty = penalty
        self.shiftID = shiftID
        self.personID = personID
        self.date = date
        self.relatedShiftIDs = relatedShiftIDs
        self.source = source
        self.line = line
        self.shiftTypeID = shiftTypeID
    }

    /// `2026-03-02: error: Alice already works D on 2026-03-02 (no_double_booking)`.
    public var description: String {
        (date.map { "\($0): " } ?? "") + "\(severity.rawValue): \(message) (\(ruleID))"
    }
}
