import Foundation

extension StoreSettings {
    /// The setting `requests.auto_approve`: `true` approves a claim when it is made, and a swap
    /// when its colleague accepts it, if the change passes every rule.
    public static let autoApproveKey = "requests.auto_approve"

    /// Whether the store approves claims and accepted swaps by itself (`autoApproveKey`).
    public var autoApprovesRequests: Bool { extra[Self.autoApproveKey] == .bool(true) }
}

/// What staff and schedulers do with requests, as the mutations the funnel commits: making a
/// swap, an offer, a claim or time off, and moving a request on (accept, approve, decline,
/// cancel). `shiftctl request` and the embedding's `RequestClient` both plan their changes here,
/// so they check the same things and commit the same changes.
///
/// A workflow only reads the schedule it is given. It refuses what it can tell is wrong from
/// there (someone else's shift, a shift that started, a request already decided) with a
/// `ScheduleError` naming the request's field; `ScheduleStore.apply(_:)` commits a plan, and the
/// core, the permissions and the rules check it again against the schedule as it is then.
///
/// ```swift
/// let workflow = RequestWorkflow(schedule: schedule, user: user, environment: .live)
/// let plan = try workflow.approve(request, reason: "fine")
/// let done = try await store.apply(plan)
/// ```
public struct RequestWorkflow: Sendable {
    /// The schedule the plans are made against (the one the user saw).
    public let schedule: Schedule
    /// Who acts: recorded in every state change a plan makes.
    public let user: UserProfile
    /// The clock (a state change's time, whether a shift has started) and the ids of new
    /// requests and of the unavailability an approved time off adds.
    public let environment: StoreEnvironment
    /// A staff member whose writes the database checks (PostgreSQL with database roles,
    /// `DatabaseIdentity.staffPerson`): the database lets them write no shift and no one else's
    /// request, so their plans expire only their own requests and approve nothing automatically
    /// (the request waits for a scheduler, and the plan's `notice` says so). Nil: no such limits.
    public let databaseStaff: PersonID?

    public init(schedule: Schedule, user: UserProfile, environment: StoreEnvironment, databaseStaff: PersonID? = nil) {
        self.schedule = schedule
        self.user = user
        self.environment = environment
        self.databaseStaff = databaseStaff
    }

    /// The history's reason for an approval the store made by itself.
    public static let autoApprovalReason = "approved automatically: the change passes every rule"

    /// Why a staff member's claim or accepted swap is not approved automatically where the
    /// database checks roles.
    public static let databaseStaffNotice = "not approved automatically: the database lets only schedulers and admins change shifts; it waits for a scheduler"

    /// Whether the store approves this kind of request by itself for this user: with
    /// `requests.auto_approve`, unless the database would refuse the shift changes.
    private var autoApproves: Bool { schedule.settings.autoApprovesRequests && databaseStaff == nil }

    /// The notice of a plan that would have been approved automatically but for the database.
    private var withheldApproval: String? {
        schedule.settings.autoApprovesRequests && databaseStaff != nil ? Self.databaseStaffNotice : nil
    }

    // MARK: Making requests

    /// A swap: `requester` gives `shift` to `colleague`, or with `theirs` exchanges it for that
    /// shift of the colleague's. The colleague accepts it before a scheduler approves it.
    /// - Throws: `ScheduleError` naming the field: `shift` or `colleagueShift` when a shift is
    ///   not its side's or has started, `colleagueID` when the colleague is the requester.
    public func swap(
        _ shift: ScheduledShift, by requester: PersonID, with colleague: PersonID, for theirs: ScheduledShift? = nil,
        reason: String? = nil
    ) throws(ScheduleError) -> RequestPlan {
        let asker = try person(requester, field: "requesterID")
        let other = try person(colleague, field: "colleagueID")
        try checkOwn(shift, of: asker, field: "shift")
        guard other.id != asker.id else {
            throw .invalidValue(field: "colleagueID", reason: "a swap is with someone else, not \(asker.displayName)")
        }
        if let theirs { try checkOwn(theirs, of: other, field: "colleagueShift") }
        try checkNotStarted(shift, field: "shift")
        if let theirs { try checkNotStarted(theirs, field: "colleagueShift") }
        return making(Request(
            id: RequestID(environment.makeUUID()), kind: .swap, requesterID: asker.id, shift: SeenShift(shift), colleagueID: other.id,
            colleagueShift: theirs.map(SeenShift.init), history: [transition(.pending, reason)]))
    }

    /// An offer: `requester` gives `shift` to anyone; approved, it becomes open.
    /// - Throws: `ScheduleError` naming `shift` when it is not the requester's or has started.
    public func offer(_ shift: ScheduledShift, by requester: PersonID, reason: String? = nil) throws(ScheduleError) -> RequestPlan {
        let asker = try person(requester, field: "requesterID")
        try checkOwn(shift, of: asker, field: "shift")
        try checkNotStarted(shift, field: "shift")
        return making(Request(
            id: RequestID(environment.makeUUID()), kind: .offer, requesterID: asker.id, shift: SeenShift(shift),
            history: [transition(.pending, reason)]))
    }

    /// A claim: `requester` asks for the open `shift`. With `requests.auto_approve` the plan
    /// approves it at once, and falls back to a pending claim when the rules refuse that.
    /// - Throws: `ScheduleError` naming `shift` when it is not open or has started.
    public func claim(_ shift: ScheduledShift, by requester: PersonID, reason: String? = nil) throws(ScheduleError) -> RequestPlan {
        let asker = try person(requester, field: "requesterID")
        if let holder = shift.personID {
            throw .invalidValue(
                field: "shift",
                reason: "\(describe(shift)) is \(schedule.person(holder)?.displayName ?? "someone")'s, not open; only an open shift can be claimed")
        }
        try checkNotStarted(shift, field: "shift")
        return making(Request(
            id: RequestID(environment.makeUUID()), kind: .claim, requesterID: asker.id, shift: SeenShift(shift),
            history: [transition(.pending, reason)]))
    }

    /// Time off from `from` to `to` (both included), for every shift or only `shiftTypeID`.
    /// - Throws: `ScheduleError` naming `from` when it is before today (in the store's time
    ///   zone); the funnel refuses `to` before `from`.
    public func timeOff(
        from: LocalDate, to: LocalDate, shiftTypeID: ShiftTypeID? = nil, by requester: PersonID, reason: String? = nil
    ) throws(ScheduleError) -> RequestPlan {
        let asker = try person(requester, field: "requesterID")
        let today = self.today
        guard from >= today else {
            throw .invalidValue(field: "from", reason: "\(from) is in the past (today is \(today)); time off is asked for ahead")
        }
        return making(Request(
            id: RequestID(environment.makeUUID()), kind: .timeOff, requesterID: asker.id, from: from, to: to, shiftTypeID: shiftTypeID,
            history: [transition(.pending, reason)]))
    }

    /// A new request, approved with it when it is a claim and the store auto-approves.
    private func making(_ request: Request) -> RequestPlan {
        let expiries = expiries(except: nil)
        let made = RequestPlan.Step(mutation: .batch(expiries + [.addRequest(request)]), request: request, action: "made")
        guard request.kind == .claim else { return RequestPlan(made) }
        guard autoApproves else { return RequestPlan(made, notice: withheldApproval) }
        let approved = request.moved(transition(.approved, Self.autoApprovalReason))
        return RequestPlan(
            RequestPlan.Step(
                mutation: .batch(expiries + [.addRequest(request), .updateRequest(approved)] + approvalChanges(approved)),
                request: approved, action: "made and approved"),
            otherwise: made)
    }

    // MARK: Moving requests

    /// The colleague accepts a swap. With `requests.auto_approve` the plan approves it at once,
    /// and falls back to an accepted swap when the rules refuse that.
    /// - Throws: `ScheduleError` naming `state` when the request is decided or has expired.
    public func accept(_ request: Request, reason: String? = nil) throws(ScheduleError) -> RequestPlan {
        try checkOpen(request, to: .accepted)
        let accepted = request.moved(transition(.accepted, reason))
        let expiries = expiries(except: request.id)
        let plain = RequestPlan.Step(mutation: .batch(expiries + [.updateRequest(accepted)]), request: accepted, action: "accepted")
        guard request.kind == .swap else { return RequestPlan(plain) }
        guard autoApproves else { return RequestPlan(plain, notice: withheldApproval) }
        let approved = accepted.moved(transition(.approved, Self.autoApprovalReason))
        return RequestPlan(
            RequestPlan.Step(
                mutation: .batch(expiries + [.updateRequest(accepted), .updateRequest(approved)] + approvalChanges(approved)),
                request: approved, action: "accepted and approved"),
            otherwise: plain)
    }

    /// A scheduler approves a request: its state change and the change it asks for, as one
    /// mutation the rules check. Refused, nothing is written and the request stays as it was.
    /// - Throws: `ScheduleError` naming `state` when the request is decided or has expired.
    public func approve(_ request: Request, reason: String? = nil) throws(ScheduleError) -> RequestPlan {
        try checkOpen(request, to: .approved)
        let approved = request.moved(transition(.approved, reason))
        return RequestPlan(RequestPlan.Step(
            mutation: .batch(expiries(except: request.id) + [.updateRequest(approved)] + approvalChanges(approved)),
            request: approved, action: "approved"))
    }

    /// A scheduler declines a request.
    /// - Throws: `ScheduleError` naming `state` when the request is already decided.
    public func decline(_ request: Request, reason: String? = nil) throws(ScheduleError) -> RequestPlan {
        try moving(request, to: .declined, reason: reason, action: "declined")
    }

    /// The requester cancels a request.
    /// - Throws: `ScheduleError` naming `state` when the request is already decided.
    public func cancel(_ request: Request, reason: String? = nil) throws(ScheduleError) -> RequestPlan {
        try moving(request, to: .cancelled, reason: reason, action: "cancelled")
    }

    private func moving(_ request: Request, to state: RequestState, reason: String?, action: String) throws(ScheduleError) -> RequestPlan {
        try checkOpen(request, to: state)
        let moved = request.moved(transition(state, reason))
        return RequestPlan(RequestPlan.Step(mutation: .batch(expiries(except: request.id) + [.updateRequest(moved)]), request: moved, action: action))
    }

    // MARK: What a plan holds

    /// When the first shift of a request began (`2026-03-02 D`), or its first day off passed,
    /// if it has: it can then no longer be accepted or approved.
    public func startedAt(_ request: Request) -> String? {
        let now = Int64(environment.now().timeIntervalSince1970)
        for seen in [request.shift, request.colleagueShift].compactMap({ $0 }) {
            if let type = schedule.shiftType(seen.shiftTypeID) {
                let start = schedule.interval(of: type.duration, on: seen.date).start
                if start <= now { return "\(seen.date) \(type.symbol)" }
            }
        }
        if let from = request.from, from < today { return from.description }
        return nil
    }

    /// Open requests whose shift has started, moved to expired: every plan carries them, so
    /// the next request change of anyone expires them (of a `databaseStaff` member: only their
    /// own, which is all the database lets them move).
    public func expiries(except: RequestID?) -> [Mutation] {
        schedule.requests.compactMap { request in
            guard request.state.isOpen, request.id != except, databaseStaff.map({ $0 == request.requesterID }) ?? true,
                  let started = startedAt(request) else { return nil }
            return .updateRequest(request.moved(transition(.expired, "its shift started at \(started)")))
        }
    }

    /// What approving a request changes: the shifts change hands, or time off becomes
    /// unavailability and the person's shifts on those days become open. Each shift change's
    /// log entry says `request 1a2b3c4d: swap approved`.
    public func approvalChanges(_ request: Request) -> [Mutation] {
        let why = "request \(request.id.description.prefix(8)): \(request.kind.words) approved"
        switch request.kind {
        case .swap:
            guard let mine = request.shift, let colleague = request.colleagueID else { return [] }
            var changes: [Mutation] = [.reassignShift(mine.shiftID, to: colleague, reason: why)]
            if let theirs = request.colleagueShift { changes.append(.reassignShift(theirs.shiftID, to: request.requesterID, reason: why)) }
            return changes
        case .offer:
            return request.shift.map { [.reassignShift($0.shiftID, to: nil, reason: why)] } ?? []
        case .claim:
            return request.shift.map { [.reassignShift($0.shiftID, to: request.requesterID, reason: why)] } ?? []
        case .timeOff:
            guard let from = request.from, let to = request.to else { return [] }
            let away = Availability(
                id: AvailabilityID(environment.makeUUID()), personID: request.requesterID, from: from, to: to,
                shiftTypeID: request.shiftTypeID, kind: .unavailable)
            let shifts = schedule.shifts(ShiftQuery(
                from: from, to: to, personID: request.requesterID, shiftTypeIDs: request.shiftTypeID.map { [$0] }))
            return [.addAvailability(away)] + shifts.map { .reassignShift($0.id, to: nil, reason: why) }
        }
    }

    // MARK: Checks

    private var today: LocalDate {
        schedule.zone.localDateTime(at: environment.now()).date
    }

    private func transition(_ state: RequestState, _ reason: String?) -> RequestTransition {
        RequestTransition(state: state, timestamp: environment.now(), by: user, reason: reason)
    }

    private func person(_ id: PersonID, field: String) throws(ScheduleError) -> Person {
        guard let person = schedule.person(id) else { throw .notFound(entity: .person, id: id.description, field: field) }
        return person
    }

    private func checkOwn(_ shift: ScheduledShift, of person: Person, field: String) throws(ScheduleError) {
        guard shift.personID != person.id else { return }
        let holder = shift.personID.flatMap { schedule.person($0)?.displayName }.map { $0 + "'s" } ?? "open"
        throw .invalidValue(field: field, reason: "\(describe(shift)) is \(holder), not \(person.displayName)'s")
    }

    private func checkNotStarted(_ shift: ScheduledShift, field: String) throws(ScheduleError) {
        if let start = schedule.interval(of: shift)?.start, start <= Int64(environment.now().timeIntervalSince1970) {
            throw .invalidValue(field: field, reason: "\(describe(shift)) has already started")
        }
    }

    /// The request can move to `state`: it is open, and unless it is being declined or
    /// cancelled, it has not expired.
    private func checkOpen(_ request: Request, to state: RequestState) throws(ScheduleError) {
        guard request.state.isOpen else { throw .conflict(field: "state", reason: MutationContext.refusedMove(request, to: state)) }
        if state != .cancelled, state != .declined, let started = startedAt(request) {
            throw .conflict(
                field: "state",
                reason: "request \(request.id.description.prefix(8)) expired: its shift started at \(started); it can no longer be \(state.rawValue)")
        }
    }

    /// `the D shift on 2026-03-02`, for messages.
    private func describe(_ shift: ScheduledShift) -> String {
        "the \(schedule.shiftType(shift.shiftTypeID)?.symbol ?? "?") shift on \(shift.date)"
    }
}

/// The change a request action commits, and what it commits instead when that is an approval
/// the store makes by itself and the rules refuse it.
public struct RequestPlan: Sendable {
    /// One commit: the mutation, the request as it stands after it, and what happened in words
    /// (`made`, `made and approved`, `accepted and approved`, `approved`…).
    public struct Step: Sendable {
        public let mutation: Mutation
        public let request: Request
        public let action: String
    }

    /// What to commit.
    public let step: Step
    /// What to commit instead when the rules refuse `step`: set when `step` is an approval the
    /// store makes by itself (`requests.auto_approve`), so that the request is made (or
    /// accepted) and waits for a scheduler.
    public let otherwise: Step?
    /// Something the user should know about the plan (`RequestWorkflow.databaseStaffNotice`).
    public let notice: String?

    init(_ step: Step, otherwise: Step? = nil, notice: String? = nil) {
        self.step = step
        self.otherwise = otherwise
        self.notice = notice
    }
}
