import Foundation

/// A proposed mutation as validators see it: the schedule before and after, and each entity's
/// net change.
public struct Proposal: Sendable {
    public let mutation: Mutation
    public let changes: [Change]
    public let before: Schedule
    public let after: Schedule
    /// Who is making the change.
    public let user: UserProfile
    /// When the change is being made (the store's clock).
    public let timestamp: Date

    public init(mutation: Mutation, changes: [Change], before: Schedule, after: Schedule, user: UserProfile, timestamp: Date) {
        self.mutation = mutation
        self.changes = changes
        self.before = before
        self.after = after
        self.user = user
        self.timestamp = timestamp
    }
}

/// Checks proposed mutations; the Lua rule host is one. Plugged into `ScheduleStore`.
public protocol ScheduleValidator: Sendable {
    /// A name for messages (`lua rules in ./rules`).
    var name: String { get }

    /// The violations a proposed mutation would cause. Any `.error` rejects it. Throwing means the
    /// validator could not decide (a rule script failed): the store rejects the mutation (fail closed).
    func evaluate(_ proposal: Proposal) throws -> [Violation]

    /// Whole-schedule checks for `validate` (coverage, monthly totals): things that only make
    /// sense on a finished schedule. The default checks nothing.
    func validate(_ schedule: Schedule) throws -> [Violation]
}

extension ScheduleValidator {
    public func validate(_ schedule: Schedule) throws -> [Violation] { [] }
}
