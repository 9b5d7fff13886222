import Foundation
import ShiftCore

extension SettingsKey {
    /// `true`: a claim, or a swap once its colleague accepts, is approved at once when the
    /// change passes every rule; otherwise it waits for a scheduler as always.
    public static let autoApprove = "requests.auto_approve"
}

/// `shiftctl request …`: staff make swap, offer, claim and time-off requests; colleagues accept
/// swaps; schedulers approve or decline. Every state change goes through the funnel, and an
/// approval is one mutation with the change it asks for, which the rules check.
extension App {
    // MARK: Making requests

    public func requestSwap(shift: String, with colleague: String, for theirs: String?, person: String?, reason: String?) async throws -> CommandResult {
        let schedule = try load()
        let resolver = ReferenceResolver(schedule)
        let requester = try requester(person, in: schedule)
        let mine = try resolver.shift(shift, option: "SHIFT")
        let other = try resolver.person(colleague, option: "--with")
        let exchange = try theirs.map { try resolver.shift($0, option: "--for") }
        try checkOwn(mine, of: requester, option: "SHIFT", in: schedule)
        guard other.id != requester.id else { throw AppError.invalidValue(option: "--with", message: "a swap is with someone else, not \(requester.displayName)") }
        if let exchange { try checkOwn(exchange, of: other, option: "--for", in: schedule) }
        try checkNotStarted(mine, option: "SHIFT", in: schedule)
        if let exchange { try checkNotStarted(exchange, option: "--for", in: schedule) }
        let request = Request(
            id: RequestID(UUID.random()), kind: .swap, requesterID: requester.id, shift: SeenShift(mine), colleagueID: other.id,
            colleagueShift: exchange.map(SeenShift.init), history: [transition(.pending, reason, in: schedule)])
        return try await make(request, in: schedule)
    }

    public func requestOffer(shift: String, person: String?, reason: String?) async throws -> CommandResult {
        let schedule = try load()
        let requester = try requester(person, in: schedule)
        let mine = try ReferenceResolver(schedule).shift(shift, option: "SHIFT")
        try checkOwn(mine, of: requester, option: "SHIFT", in: schedule)
        try checkNotStarted(mine, option: "SHIFT", in: schedule)
        let request = Request(
            id: RequestID(UUID.random()), kind: .offer, requesterID: requester.id, shift: SeenShift(mine),
            history: [transition(.pending, reason, in: schedule)])
        return try await make(request, in: schedule)
    }

    public func requestClaim(shift: String, person: String?, reason: String?) async throws -> CommandResult {
        let schedule = try load()
        let requester = try requester(person, in: schedule)
        let open = try ReferenceResolver(schedule).shift(shift, option: "SHIFT")
        if let holder = open.personID {
            throw AppError.invalidValue(
                option: "SHIFT", message: "\(describe(open, in: schedule)) is \(schedule.person(holder)?.displayName ?? "someone")'s, not open; only an open shift can be claimed")
        }
        try checkNotStarted(open, option: "SHIFT", in: schedule)
        let request = Request(
            id: RequestID(UUID.random()), kind: .claim, requesterID: requester.id, shift: SeenShift(open),
            history: [transition(.pending, reason, in: schedule)])
        return try await make(request, in: schedule)
    }

    public func requestTimeOff(from: String, to: String?, type: String?, person: String?, reason: String?) async throws -> CommandResult {
        let schedule = try load()
        let requester = try requester(person, in: schedule)
        let start = try date(from, option: "--from", in: schedule)
        let end = try optionalDate(to, option: "--to", in: schedule) ?? start
        try InputParsing.range(from: start, to: end)
        let today = today(in: schedule)
        guard start >= today else {
            throw AppError.invalidValue(option: "--from", message: "\(start) is in the past (today is \(today)); time off is asked for ahead")
        }
        let typeID = try type.map { try ReferenceResolver(schedule).shiftType($0, option: "--type").id }
        let request = Request(
            id: RequestID(UUID.random()), kind: .timeOff, requesterID: requester.id, from: start, to: end, shiftTypeID: typeID,
            history: [transition(.pending, reason, in: schedule)])
        return try await make(request, in: schedule)
    }

    /// Commits a new request; a claim is approved with it when the store auto-approves and the
    /// change passes every rule.
    private func make(_ request: Request, in schedule: Schedule) async throws -> CommandResult {
        let expiries = expiries(in: schedule, except: nil)
        if request.kind == .claim, autoApproves(schedule) {
            let approved = request.moved(transition(.approved, Self.autoReason, in: schedule))
            let mutation = Mutation.batch(expiries + [.addRequest(request), .updateRequest(approved)] + approvalChanges(approved, in: schedule))
            do {
                return try await commitRequest(mutation, approved, action: "made and approved", in: schedule)
            } catch let rejection as RejectedChange {
                var result = try await commitRequest(.batch(expiries + [.addRequest(request)]), request, action: "made", in: schedule)
                result.note = Self.notAutoApproved(rejection)
                return result
            }
        }
        return try await commitRequest(.batch(expiries + [.addRequest(request)]), request, action: "made", in: schedule)
    }

    // MARK: Moving requests

    public func acceptRequest(_ reference: String, reason: String?) async throws -> CommandResult {
        let schedule = try load()
        let request = try resolveRequest(reference, in: schedule)
        try checkOpen(request, in: schedule, to: .accepted)
        let accepted = request.moved(transition(.accepted, reason, in: schedule))
        let expiries = expiries(in: schedule, except: request.id)
        if autoApproves(schedule), request.kind == .swap {
            let approved = accepted.moved(transition(.approved, Self.autoReason, in: schedule))
            let mutation = Mutation.batch(expiries + [.updateRequest(accepted), .updateRequest(approved)] + approvalChanges(approved, in: schedule))
            do {
                return try await commitRequest(mutation, approved, action: "accepted and approved", in: schedule)
            } catch let rejection as RejectedChange {
                var result = try await commitRequest(.batch(expiries + [.updateRequest(accepted)]), accepted, action: "accepted", in: schedule)
                result.note = Self.notAutoApproved(rejection)
                return result
            }
        }
        return try await commitRequest(.batch(expiries + [.updateRequest(accepted)]), accepted, action: "accepted", in: schedule)
    }

    /// Approves a request: its state change and the change it asks for, as one mutation that
    /// the rules check. Refused, the request stays as it was and the violations are shown.
    public func approveRequest(_ reference: String, reason: String?) async throws -> CommandResult {
        let schedule = try load()
        let request = try resolveRequest(reference, in: schedule)
        try checkOpen(request, in: schedule, to: .approved)
        let approved = request.moved(transition(.approved, reason, in: schedule))
        let mutation = Mutation.batch(expiries(in: schedule, except: request.id) + [.updateRequest(approved)] + approvalChanges(approved, in: schedule))
        return try await commitRequest(mutation, approved, action: "approved", in: schedule, reasonOnFailure: "request \(shortID(request.id)) stays \(request.state.rawValue)")
    }

    public func declineRequest(_ reference: String, reason: String?) async throws -> CommandResult {
        try await move(reference, to: .declined, reason: reason, action: "declined")
    }

    public func cancelRequest(_ reference: String, reason: String?) async throws -> CommandResult {
        try await move(reference, to: .cancelled, reason: reason, action: "cancelled")
    }

    private func move(_ reference: String, to state: RequestState, reason: String?, action: String) async throws -> CommandResult {
        let schedule = try load()
        let request = try resolveRequest(reference, in: schedule)
        try checkOpen(request, in: schedule, to: state)
        let moved = request.moved(transition(state, reason, in: schedule))
        return try await commitRequest(.batch(expiries(in: schedule, except: request.id) + [.updateRequest(moved)]), moved, action: action, in: schedule)
    }

    private func commitRequest(
        _ mutation: Mutation, _ request: Request, action: String, in seen: Schedule, reasonOnFailure: String? = nil
    ) async throws -> CommandResult {
        do {
            return try await commit(mutation, action: action, kind: "\(request.kind.words) request", id: request.id.description,
                                    label: label(request, in: seen)) { schedule in
                schedule.request(request.id).map { RequestOutput($0, in: schedule, now: environment.now()) }
            }
        } catch var rejection as RejectedChange {
            rejection.remark = reasonOnFailure
            throw rejection
        }
    }

    /// Sets or clears the store setting `requests.auto_approve`.
    public func setAutoApprove(_ on: Bool) async throws -> CommandResult {
        var settings = try load().settings
        settings.extra[SettingsKey.autoApprove] = on ? .bool(true) : nil
        let (_, _) = try await workspace.apply(.updateSettings(settings))
        let text = on ? "claims and accepted swaps that pass every rule are approved at once\n" : "every request waits for a scheduler\n"
        return CommandResult(text: text, json: AutoApproveOutput(autoApprove: on))
    }

    // MARK: Reading

    public func listRequests(mine: Bool, open: Bool, person: String?) throws -> CommandResult {
        let schedule = try load()
        let who: PersonID? = try {
            if let person { return try ReferenceResolver(schedule).person(person, option: "--person").id }
            if mine { return try requester(nil, in: schedule).id }
            return nil
        }()
        let now = environment.now()
        let items = schedule.requests.filter { request in
            (who == nil || request.requesterID == who || request.colleagueID == who) && (!open || request.state.isOpen)
        }.map { RequestOutput($0, in: schedule, now: now) }
        var table = TextTable("MADE", "KIND", "BY", "WHAT", "STATE", "ID")
        for item in items {
            table.add(String(item.madeAt.prefix(10)), item.kind, item.requester, item.summary, item.state, shortID(item.id))
        }
        return CommandResult(text: items.isEmpty ? "no requests\n" : table.rendered, json: ListOutput(key: "requests", items: items))
    }

    public func showRequest(_ reference: String) throws -> CommandResult {
        let schedule = try load()
        let item = RequestOutput(try resolveRequest(reference, in: schedule), in: schedule, now: environment.now())
        var pairs: [(String, String)] = [("id", item.id), ("kind", item.kind), ("by", item.requester), ("what", item.summary), ("state", item.state)]
        if let note = item.note { pairs.append(("note", note)) }
        var text = Self.fields(pairs) + "history:\n"
        var table = TextTable("WHEN", "STATE", "BY", "REASON")
        for step in item.history { table.add(step.timestamp, step.state, step.user, step.reason ?? "") }
        text += table.rendered
        return CommandResult(text: text, json: item)
    }

    // MARK: Pieces

    static let autoReason = "approved automatically: the change passes every rule"

    /// Why a request the store would approve by itself waits for a scheduler after all.
    static func notAutoApproved(_ rejection: RejectedChange) -> String {
        let errors = rejection.violations.filter { $0.severity == .error }
        let rules = Set(errors.map(\.ruleID)).sorted().joined(separator: ", ")
        return "not approved automatically: the rules refuse the change (\(errors.count) violation\(errors.count == 1 ? "" : "s"): \(rules)); it waits for a scheduler"
    }

    func autoApproves(_ schedule: Schedule) -> Bool {
        schedule.settings.extra[SettingsKey.autoApprove] == .bool(true)
    }

    /// The person making a request: `--person`, else the acting user's person (by the
    /// person's `login` attribute, else by name).
    func requester(_ person: String?, in schedule: Schedule) throws -> Person {
        if let person { return try ReferenceResolver(schedule).person(person, option: "--person") }
        let user = workspace.actingUser(settings: schedule.settings)
        if let person = Permissions.person(of: user, in: schedule) { return person }
        throw AppError.invalidValue(
            option: "--as", message: "the acting user '\(user.userId)' is nobody in the schedule; pass --as NAME or --person NAME, or give the person the attribute login=\(user.userId)")
    }

    func transition(_ state: RequestState, _ reason: String?, in schedule: Schedule) -> RequestTransition {
        RequestTransition(state: state, timestamp: environment.now(), by: workspace.actingUser(settings: schedule.settings), reason: reason)
    }

    func resolveRequest(_ reference: String, in schedule: Schedule) throws -> Request {
        let prefix = reference.trimmingCharacters(in: .whitespaces).lowercased()
        let matches = schedule.requests.filter { $0.id.description.hasPrefix(prefix) }
        guard !prefix.isEmpty, let first = matches.first else {
            throw AppError.unknownReference(option: "ID", kind: "request", reference: reference, suggestions: [])
        }
        guard matches.count == 1 else {
            throw AppError.ambiguousReference(option: "ID", kindPlural: "requests", reference: reference,
                                              candidates: matches.prefix(9).map { "\(label($0, in: schedule)) (\(shortID($0.id))…)" })
        }
        return first
    }

    private func checkOwn(_ shift: ScheduledShift, of person: Person, option: String, in schedule: Schedule) throws {
        guard shift.personID == person.id else {
            let holder = shift.personID.flatMap { schedule.person($0)?.displayName } ?? "nobody"
            throw AppError.invalidValue(option: option, message: "\(describe(shift, in: schedule)) is \(holder == "nobody" ? "open" : holder + "'s"), not \(person.displayName)'s")
        }
    }

    private func checkNotStarted(_ shift: ScheduledShift, option: String, in schedule: Schedule) throws {
        if let start = schedule.interval(of: shift)?.start, start <= Int64(environment.now().timeIntervalSince1970) {
            throw AppError.invalidValue(option: option, message: "\(describe(shift, in: schedule)) has already started")
        }
    }

    /// The request can move to `state`: it is open and has not expired.
    private func checkOpen(_ request: Request, in schedule: Schedule, to state: RequestState) throws {
        guard request.state.isOpen else {
            throw AppError.invalidValue(
                option: "ID", message: "request \(shortID(request.id)) is already \(request.state.rawValue); only a pending or accepted request can be \(state.rawValue)")
        }
        if state != .cancelled, state != .declined, let started = startedAt(request, in: schedule) {
            throw AppError.invalidValue(option: "ID", message: "request \(shortID(request.id)) expired: its shift started at \(started); it can no longer be \(state.rawValue)")
        }
    }

    /// When the first shift (or day off) of a request began, if it has.
    func startedAt(_ request: Request, in schedule: Schedule) -> String? {
        let now = Int64(environment.now().timeIntervalSince1970)
        for seen in [request.shift, request.colleagueShift].compactMap({ $0 }) {
            if let type = schedule.shiftType(seen.shiftTypeID) {
                let start = schedule.interval(of: type.duration, on: seen.date).start
                if start <= now { return "\(seen.date) \(type.symbol)" }
            }
        }
        if let from = request.from, from < today(in: schedule) { return from.description }
        return nil
    }

    /// Open requests whose shift has started move to expired with the next request change.
    func expiries(in schedule: Schedule, except: RequestID?) -> [Mutation] {
        schedule.requests.filter { $0.state.isOpen && $0.id != except && startedAt($0, in: schedule) != nil }.map { request in
            .updateRequest(request.moved(RequestTransition(
                state: .expired, timestamp: environment.now(), by: workspace.actingUser(settings: schedule.settings),
                reason: "its shift started at \(startedAt(request, in: schedule)!)")))
        }
    }

    /// What approving a request changes: the shifts change hands, or time off becomes
    /// unavailability and the person's shifts on those days become open.
    func approvalChanges(_ request: Request, in schedule: Schedule) -> [Mutation] {
        let why = "request \(shortID(request.id)): \(request.kind.words) approved"
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
                id: AvailabilityID(UUID.random()), personID: request.requesterID, from: from, to: to, shiftTypeID: request.shiftTypeID,
                kind: .unavailable)
            let shifts = schedule.shifts(ShiftQuery(
                from: from, to: to, personID: request.requesterID, shiftTypeIDs: request.shiftTypeID.map { [$0] }))
            return [.addAvailability(away)] + shifts.map { .reassignShift($0.id, to: nil, reason: why) }
        }
    }

    func describe(_ shift: ScheduledShift, in schedule: Schedule) -> String {
        "the \(schedule.shiftType(shift.shiftTypeID)?.symbol ?? "?") shift on \(shift.date)"
    }

    /// `Bob: D 2026-03-02 to Carol`, for messages and lists.
    func label(_ request: Request, in schedule: Schedule) -> String {
        "\(schedule.person(request.requesterID)?.displayName ?? "?"): " + RequestOutput.summary(request, in: schedule)
    }
}

/// `request auto-approve` in JSON.
public struct AutoApproveOutput: Encodable, Sendable {
    public let autoApprove: Bool
}

/// A request for `request list`, `show` and JSON.
public struct RequestOutput: Encodable, Sendable {
    public struct Step: Encodable, Sendable {
        public let state: String
        public let timestamp: String
        public let user: String
        public let userID: String
        public let reason: String?
    }

    public let id: String
    public let kind: String
    public let state: String
    public let requester: String
    public let requesterID: String
    public let summary: String
    public let shiftID: String?
    public let colleague: String?
    public let colleagueID: String?
    public let colleagueShiftID: String?
    public let from: String?
    public let to: String?
    public let type: String?
    public let reason: String?
    public let madeAt: String
    /// Why an open request cannot go on as it is (its shift changed or started).
    public let note: String?
    public let history: [Step]

    init(_ request: Request, in schedule: Schedule, now: Date) {
        id = request.id.description
        kind = request.kind.rawValue
        state = request.state.rawValue
        requester = schedule.person(request.requesterID)?.displayName ?? "?"
        requesterID = request.requesterID.description
        summary = Self.summary(request, in: schedule)
        shiftID = request.shift?.shiftID.description
        colleague = request.colleagueID.flatMap { schedule.person($0)?.displayName }
        colleagueID = request.colleagueID?.description
        colleagueShiftID = request.colleagueShift?.shiftID.description
        from = request.from?.description
        to = request.to?.description
        type = request.shiftTypeID.flatMap { schedule.shiftType($0)?.symbol }
        reason = request.reason
        madeAt = request.madeAt.map(Timestamp.format) ?? ""
        history = request.history.map {
            Step(state: $0.state.rawValue, timestamp: Timestamp.format($0.timestamp), user: $0.userDisplayName, userID: $0.userId, reason: $0.reason)
        }
        note = request.state.isOpen ? Self.staleNote(request, in: schedule) : nil
    }

    /// `D 2026-03-02 to Carol for N 2026-03-03`, `off 2026-03-10–2026-03-12`.
    static func summary(_ request: Request, in schedule: Schedule) -> String {
        func shift(_ seen: SeenShift) -> String { "\(schedule.shiftType(seen.shiftTypeID)?.symbol ?? "?") \(seen.date)" }
        let colleague = request.colleagueID.flatMap { schedule.person($0)?.displayName } ?? "?"
        switch request.kind {
        case .swap:
            return "\(request.shift.map(shift) ?? "?") to \(colleague)" + (request.colleagueShift.map { " for \(shift($0))" } ?? "")
        case .offer: return "\(request.shift.map(shift) ?? "?") to anyone"
        case .claim: return "\(request.shift.map(shift) ?? "?") (open)"
        case .timeOff:
            let days = request.from == request.to ? "\(request.from!)" : "\(request.from!)–\(request.to!)"
            return "off \(days)" + (request.shiftTypeID.flatMap { schedule.shiftType($0)?.symbol }.map { " (\($0) only)" } ?? "")
        }
    }

    /// A shift of an open request that is gone or changed since it was made.
    static func staleNote(_ request: Request, in schedule: Schedule) -> String? {
        for seen in [request.shift, request.colleagueShift].compactMap({ $0 }) {
            guard let now = schedule.shift(seen.shiftID) else { return "the shift of \(seen.date) no longer exists" }
            if !seen.matches(now) { return "the shift of \(seen.date) changed since the request was made; it cannot be approved" }
        }
        return nil
    }
}
