import Dependencies
import DependenciesMacros
import Foundation
import ShiftCore

/// Requests: staff ask to swap, offer or claim a shift or for time off; a swap's colleague
/// accepts it; a scheduler approves or declines it (docs/requests.md).
///
/// Each call is one change through the funnel, planned by `RequestWorkflow` exactly as
/// `shiftctl request` plans it: the core checks it, the permissions check the app user's role
/// once anyone has one, and the Lua rules check it. An approval commits the change it asks for
/// (the shifts change hands; time off becomes unavailability and opens the person's shifts) in
/// the same mutation, so a rule that refuses it leaves the request as it was. Calls that change
/// a request first move open requests whose shift has started to `expired`.
///
/// The requester is the app's user (the person whose `login` attribute is its `userId`, else
/// whose name it is) unless `requester` names someone else, as a scheduler acting for them.
@DependencyClient
public struct RequestClient: Sendable {
    /// Asks to give `shift` to a colleague, or with `theirs` to exchange it for that shift of
    /// the colleague's; the colleague accepts it before a scheduler approves it. The shifts are
    /// taken as the app saw them: if one changed since, the request is refused naming the change.
    /// - Throws: `ScheduleError.invalidValue` naming `shift`, `colleagueShift` or `colleagueID`
    ///   (not the requester's shift, started, a swap with oneself); `ScheduleError.conflict` for a
    ///   shift that changed; `.forbidden`; `.rejected(violations:)` when a rule refuses it.
    public var requestSwap: @Sendable (
        _ shift: ScheduledShift, _ colleagueID: PersonID, _ theirs: ScheduledShift?, _ requester: PersonID?, _ reason: String?
    ) async throws -> RequestCommit
    /// Offers `shift` to anyone: approved, it becomes open.
    public var requestOffer: @Sendable (_ shift: ScheduledShift, _ requester: PersonID?, _ reason: String?) async throws -> RequestCommit
    /// Asks for an open shift. With the store setting `requests.auto_approve` the claim is
    /// approved at once when the change passes every rule (otherwise `autoApprovalRefusal` says
    /// why it waits).
    public var requestClaim: @Sendable (_ shift: ScheduledShift, _ requester: PersonID?, _ reason: String?) async throws -> RequestCommit
    /// Asks for the days `from` to `to` off (both included), for every shift or only `shiftTypeID`.
    /// - Throws: `ScheduleError.invalidValue` naming `from` when it is before today.
    public var requestTimeOff: @Sendable (
        _ from: LocalDate, _ to: LocalDate, _ shiftTypeID: ShiftTypeID?, _ requester: PersonID?, _ reason: String?
    ) async throws -> RequestCommit
    /// Requests in the order they were made: with `mine`, those the app's user made or that
    /// name them as a swap's colleague (`ShiftClientError.userIsNobody` when the app's user is
    /// no person); with `pending`, only open ones (pending or accepted).
    public var fetchRequests: @Sendable (_ mine: Bool, _ pending: Bool) async throws -> [Request]
    /// The request with this id, or nil.
    public var fetchRequest: @Sendable (_ id: RequestID) async throws -> Request?
    /// The swap's colleague accepts it (with `requests.auto_approve`, approved at once when the
    /// change passes every rule).
    public var accept: @Sendable (_ id: RequestID, _ reason: String?) async throws -> RequestCommit
    /// Approves a request: its state change and the change it asks for, as one mutation the
    /// rules check.
    /// - Throws: `ScheduleError.rejected(violations:)` when a rule refuses it (the request stays
    ///   pending or accepted, nothing is written); `.conflict` naming `state` when it is decided
    ///   or expired, or naming a shift that changed; `.forbidden` for a role that may not approve.
    public var approve: @Sendable (_ id: RequestID, _ reason: String?) async throws -> RequestCommit
    /// Declines a request.
    public var decline: @Sendable (_ id: RequestID, _ reason: String?) async throws -> RequestCommit
    /// The requester cancels a request.
    public var cancel: @Sendable (_ id: RequestID, _ reason: String?) async throws -> RequestCommit
    /// `fetchRequests(mine:pending:)` now and whenever it changes, for UI updates. Ends at once
    /// when the store cannot be opened, or with `mine` when the app's user is nobody in the
    /// schedule (`fetchRequests` says why).
    public var observe: @Sendable (_ mine: Bool, _ pending: Bool) -> AsyncStream<[Request]> = { _, _ in .finished }
}

extension RequestClient: TestDependencyKey {
    /// Every endpoint unimplemented: a test fails when it calls one it did not override.
    public static let testValue = RequestClient()
}

extension DependencyValues {
    public var requestClient: RequestClient {
        get { self[RequestClient.self] }
        set { self[RequestClient.self] = newValue }
    }
}
