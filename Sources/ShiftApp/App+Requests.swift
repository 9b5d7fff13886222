import Foundation
import ShiftCore

extension SettingsKey {
    /// `true`: a claim, or a swap once its colleague accepts it, is approved at once when the
    /// change passes every rule; otherwise it waits for a scheduler as always.
    public static let autoApprove = StoreSettings.autoApproveKey
}

/// `shiftctl request …`: staff make swap, offer, claim and time-off requests; colleagues accept
/// swaps; schedulers approve or decline. The commands resolve what the user typed and print the
/// outcome; `RequestWorkflow` (ShiftCore) plans each change, so that the embedding's
/// `RequestClient` checks and commits the same, and `ScheduleStore.apply(_:)` commits it
/// through the funnel. An approval is one mutation with the change it asks for, which the rules
/// check.
extension App {
    // MARK: Making requests

    public func requestSwap(shift: String, with colleague: String, for theirs: String?, person: String?, reason: String?) async throws -> CommandResult {
        let schedule = try load()
        let resolver = ReferenceResolver(schedule)
        let requester = try requester(person, in: schedule)
        let mine = try resolver.shift(shift, option: "SHIFT")
        let other = try resolver.person(colleague, option: "--with")
        let exchange = try theirs.map { try resolver.shift($0, option: "--for") }
        let plan = try planning { try workflow(schedule).swap(mine, by: requester.id, with: other.id, for: exchange, reason: reason) }
        return try await commit(plan, in: schedule)
    }

    public func requestOffer(shift: String, person: String?, reason: String?) async throws -> CommandResult {
        let schedule = try load()
        let requester = try requester(person, in: schedule)
        let mine = try ReferenceResolver(schedule).shift(shift, option: "SHIFT")
        let plan = try planning { try workflow(schedule).offer(mine, by: requester.id, reason: reason) }
        return try await commit(plan, in: schedule)
    }

    public func requestClaim(shift: String, person: String?, reason: String?) async throws -> CommandResult {
        let schedule = try load()
        let requester = try requester(person, in: schedule)
        let open = try ReferenceResolver(schedule).shift(shift, option: "SHIFT")
        let plan = try planning { try workflow(schedule).claim(open, by: requester.id, reason: reason) }
        return try await commit(plan, in: schedule)
    }

    public func requestTimeOff(from: String, to: String?, type: String?, person: String?, reason: String?) async throws -> CommandResult {
        let schedule = try load()
        let requester = try requester(person, in: schedule)
        let start = try date(from, option: "--from", in: schedule)
        let end = try optionalDate(to, option: "--to", in: schedule) ?? start
        try InputParsing.range(from: start, to: end)
        let typeID = try type.map { try ReferenceResolver(schedule).shiftType($0, option: "--type").id }
        let plan = try planning { try workflow(schedule).timeOff(from: start, to: end, shiftTypeID: typeID, by: requester.id, reason: reason) }
        return try await commit(plan, in: schedule)
    }

    // MARK: Moving requests

    public func acceptRequest(_ reference: String, reason: String?) async throws -> CommandResult {
        let schedule = try load()
        let request = try resolveRequest(reference, in: schedule)
        return try await commit(try planning { try workflow(schedule).accept(request, reason: reason) }, in: schedule)
    }

    /// Approves a request: its state change and the change it asks for, as one mutation that
    /// the rules check. Refused, the request stays as it was and the violations are shown.
    public func approveRequest(_ reference: String, reason: String?) async throws -> CommandResult {
        let schedule = try load()
        let request = try resolveRequest(reference, in: schedule)
        let plan = try planning { try workflow(schedule).approve(request, reason: reason) }
        return try await commit(plan, in: schedule, remark: "request \(shortID(request.id)) stays \(request.state.rawValue)")
    }

    public func declineRequest(_ reference: String, reason: String?) async throws -> CommandResult {
        let schedule = try load()
        let request = try resolveRequest(reference, in: schedule)
        return try await commit(try planning { try workflow(schedule).decline(request, reason: reason) }, in: schedule)
    }

    public func cancelRequest(_ reference: String, reason: String?) async throws -> CommandResult {
        let schedule = try load()
        let request = try resolveRequest(reference, in: schedule)
        return try await commit(try planning { try workflow(schedule).cancel(request, reason: reason) }, in: schedule)
    }

    /// Commits a plan and reports it: `made swap request Bob: D 2026-03-02 to Carol (1a2b3c4d)`,
    /// with a note when the store did not approve it by itself. `remark` ends the message of a
    /// change the rules refuse.
    private func commit(_ plan: RequestPlan, in seen: Schedule, remark: String? = nil) async throws -> CommandResult {
        do {
            let (done, schedule) = try await workspace.apply(plan)
            var result = report(
                done.result, in: schedule, action: done.action, kind: "\(done.request.kind.words) request", id: done.request.id.description,
                label: label(done.request, in: seen), item: schedule.request(done.request.id).map { RequestOutput($0, in: schedule, now: environment.now()) })
            result.note = done.note
            return result
        } catch var rejection as RejectedChange {
            rejection.remark = remark
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
        let requests = schedule.requests(involving: who, openOnly: open)
        let items = requests.map { RequestOutput($0, in: schedule, now: now) }
        var table = TextTable("MADE", "KIND", "BY", "WHAT", "STATE", "ID")
        for (request, item) in zip(requests, items) {
            // The day it was made in the store's time zone (the JSON keeps the UTC instant).
            let made = request.madeAt.map { schedule.zone.localDateTime(at: $0).date.description } ?? ""
            table.add(made, item.kind, item.requester, item.summary, item.state, shortID(item.id))
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

    /// The workflow over the schedule the command read, acting as the command's user, with the
    /// command's clock.
    func workflow(_ schedule: Schedule) -> RequestWorkflow {
        RequestWorkflow(
            schedule: schedule, user: workspace.actingUser(settings: schedule.settings),
            environment: StoreEnvironment(now: environment.now, makeUUID: { UUID.random() }),
            databaseStaff: workspace.databaseIdentity?.staffPerson)
    }

    /// The workflow's refusals in the words of the command line: the request field it names
    /// becomes the option or argument the user gave it with.
    func planning(_ body: () throws -> RequestPlan) throws -> RequestPlan {
        do {
            return try body()
        } catch let error as ScheduleError {
            switch error {
            case let .invalidValue(field, reason), let .conflict(field, reason):
                guard let option = Self.requestOptions[field] else { throw error }
                throw AppError.invalidValue(option: option, message: reason)
            default:
                throw error
            }
        }
    }

    /// The option or argument behind each request field `RequestWorkflow` names.
    static let requestOptions = ["shift": "SHIFT", "colleagueShift": "--for", "colleagueID": "--with", "from": "--from", "state": "ID"]

    /// The person making a request: `--person`, else the acting user's person (by the
    /// person's `login` attribute, else by name).
    func requester(_ person: String?, in schedule: Schedule) throws -> Person {
        if let person { return try ReferenceResolver(schedule).person(person, option: "--person") }
        let user = workspace.actingUser(settings: schedule.settings)
        if let person = Permissions.person(of: user, in: schedule) { return person }
        if let identity = workspace.databaseIdentity, identity.decidesWhoYouAre {
            throw AppError.invalidValue(
                option: "--person",
                message: "you are connected as \(identity), and the database decides who you are; ask an admin to link you: shiftctl person link NAME --db-role \(identity.role)")
        }
        throw AppError.invalidValue(
            option: "--as", message: "the acting user '\(user.userId)' is nobody in the schedule; pass --as NAME or --person NAME, or give the person the attribute login=\(user.userId)")
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
