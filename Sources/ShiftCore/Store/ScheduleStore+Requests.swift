import Foundation

/// What committing a `RequestPlan` did.
public struct RequestCommit: Sendable {
    /// The request as committed.
    public let request: Request
    /// What happened in words: the committed step's `action` (`made`, `accepted and approved`…).
    public let action: String
    /// The commit: its changes, the warnings and penalties that did not block it, its log entries.
    public let result: CommitResult
    /// When the store would have approved the request by itself (`requests.auto_approve`) but
    /// the rules refused the change: their violations. The request was made (or accepted)
    /// without it and waits for a scheduler. Empty otherwise.
    public let autoApprovalRefusal: [Violation]
    /// The plan's notice (`RequestPlan.notice`): why a request waits for a scheduler when the
    /// database keeps the store from approving it.
    public let notice: String?

    /// Why the request waits for a scheduler after all, in one line (nil when it does not).
    public var note: String? {
        let errors = autoApprovalRefusal.filter { $0.severity == .error }
        guard !errors.isEmpty else { return notice }
        let rules = Set(errors.map(\.ruleID)).sorted().joined(separator: ", ")
        return "not approved automatically: the rules refuse the change (\(errors.count) violation\(errors.count == 1 ? "" : "s"): \(rules)); it waits for a scheduler"
    }
}

extension ScheduleStore {
    /// Commits a request plan through the funnel: its step, or when the rules refuse an approval
    /// the store makes by itself, the plan's `otherwise` step instead.
    ///
    /// - Throws: whatever `apply(_:)` throws for the step committed: `ScheduleError.rejected`
    ///   when the rules refuse it (for an approval: the request stays as it was),
    ///   `ScheduleError.conflict` when a shift changed since the plan was made, `.forbidden`
    ///   when the acting user's role does not allow it. Nothing was written then.
    @discardableResult
    public func apply(_ plan: RequestPlan) async throws -> RequestCommit {
        do {
            let result = try await apply(plan.step.mutation)
            return RequestCommit(
                request: plan.step.request, action: plan.step.action, result: result, autoApprovalRefusal: [], notice: plan.notice)
        } catch let ScheduleError.rejected(violations) {
            guard let otherwise = plan.otherwise else { throw ScheduleError.rejected(violations: violations) }
            let result = try await apply(otherwise.mutation)
            return RequestCommit(
                request: otherwise.request, action: otherwise.action, result: result, autoApprovalRefusal: violations, notice: plan.notice)
        }
    }
}

extension Schedule {
    /// Requests in the order they were made: those `person` made or that name them as a swap's
    /// colleague (everyone's when nil), and only the open ones (pending or accepted) when
    /// `openOnly`.
    public func requests(involving person: PersonID?, openOnly: Bool) -> [Request] {
        requests.filter { request in
            (person == nil || request.requesterID == person || request.colleagueID == person) && (!openOnly || request.state.isOpen)
        }
    }
}
