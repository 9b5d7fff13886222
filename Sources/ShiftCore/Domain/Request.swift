import Foundation

/// What a request asks for.
public enum RequestKind: String, Codable, Hashable, Sendable, CaseIterable {
    /// Give my shift to a named colleague, or exchange it for one of theirs.
    case swap
    /// Give my shift to anyone: it becomes open once approved.
    case offer
    /// Take an open shift.
    case claim
    /// Dates off, for every shift or one shift type.
    case timeOff = "time_off"

    /// The kind in words (`time off`).
    public var words: String { rawValue.replacingOccurrences(of: "_", with: " ") }

    /// `a swap request`, `an offer request`, `a time-off request`: the kind in a sentence.
    public var aRequest: String {
        switch self {
        case .swap: "a swap request"
        case .offer: "an offer request"
        case .claim: "a claim request"
        case .timeOff: "a time-off request"
        }
    }
}

/// Where a request stands. `pending` and `accepted` are open; the rest are final.
public enum RequestState: String, Codable, Hashable, Sendable, CaseIterable {
    case pending, accepted, approved, declined, cancelled, expired

    /// Whether the request still waits for someone (it can still move).
    public var isOpen: Bool { self == .pending || self == .accepted }

    /// Whether a request of `kind` may move from this state to `next`:
    /// - pending → accepted: a swap, by the colleague it names;
    /// - pending → approved: any kind but a swap with a colleague (which needs accepting first);
    /// - accepted → approved;
    /// - pending or accepted → declined, cancelled or expired.
    public func canMove(to next: RequestState, kind: RequestKind, needsAcceptance: Bool) -> Bool {
        switch (self, next) {
        case (.pending, .accepted): kind == .swap && needsAcceptance
        case (.pending, .approved): !needsAcceptance
        case (.accepted, .approved): true
        case (.pending, .declined), (.accepted, .declined): true
        case (.pending, .cancelled), (.accepted, .cancelled): true
        case (.pending, .expired), (.accepted, .expired): true
        default: false
        }
    }
}

/// A shift as the requester saw it: what an approval checks is still so. A request made on
/// stale data, or approved after its shift changed, fails with the difference named.
public struct SeenShift: Codable, Hashable, Sendable {
    public var shiftID: ShiftID
    public var shiftTypeID: ShiftTypeID
    public var date: LocalDate
    public var personID: PersonID?

    public init(shiftID: ShiftID, shiftTypeID: ShiftTypeID, date: LocalDate, personID: PersonID?) {
        self.shiftID = shiftID
        self.shiftTypeID = shiftTypeID
        self.date = date
        self.personID = personID
    }

    /// The shift's identity and the fields a request is about (notes and attributes excluded).
    public init(_ shift: ScheduledShift) {
        self.init(shiftID: shift.id, shiftTypeID: shift.shiftTypeID, date: shift.date, personID: shift.personID)
    }

    /// Whether `shift` still has the type, date and person seen.
    public func matches(_ shift: ScheduledShift) -> Bool { self == SeenShift(shift) }
}

/// One state change of a request: the history the request keeps of who moved it, when and why.
public struct RequestTransition: Codable, Hashable, Sendable {
    public var state: RequestState
    /// When it happened (whole milliseconds, so it survives a round trip).
    public var timestamp: Date
    public var userId: String
    public var userDisplayName: String
    public var reason: String?

    public init(state: RequestState, timestamp: Date, userId: String, userDisplayName: String, reason: String? = nil) {
        self.state = state
        self.timestamp = Timestamp.truncated(timestamp)
        self.userId = userId
        self.userDisplayName = userDisplayName
        self.reason = reason
    }

    private enum CodingKeys: String, CodingKey { case state, timestamp, userId, userDisplayName, reason }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        state = try c.decode(RequestState.self, forKey: .state)
        let stamp = try c.decode(String.self, forKey: .timestamp)
        guard let date = Timestamp.parse(stamp) else {
            throw DecodingError.dataCorruptedError(
                forKey: .timestamp, in: c, debugDescription: "'\(stamp)' is not a UTC timestamp (YYYY-MM-DDTHH:MM:SS.sssZ)")
        }
        timestamp = date
        userId = try c.decode(String.self, forKey: .userId)
        userDisplayName = try c.decodeIfPresent(String.self, forKey: .userDisplayName) ?? userId
        reason = try c.decodeIfPresent(String.self, forKey: .reason)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(state, forKey: .state)
        try c.encode(Timestamp.format(timestamp), forKey: .timestamp)
        try c.encode(userId, forKey: .userId)
        try c.encode(userDisplayName, forKey: .userDisplayName)
        try c.encodeIfPresent(reason, forKey: .reason)
    }

    /// A transition made by `user`.
    public init(state: RequestState, timestamp: Date, by user: UserProfile, reason: String? = nil) {
        self.init(state: state, timestamp: timestamp, userId: user.userId, userDisplayName: user.displayName, reason: reason)
    }
}

/// A staff member's request: a swap, an offer, a claim or time off, with its state and the
/// history of its state changes (the first is its making, in state `pending`).
///
/// Which fields a kind uses:
/// - swap: `shift` (the requester's), `colleagueID`, and `colleagueShift` for an exchange;
/// - offer: `shift` (the requester's);
/// - claim: `shift` (an open one);
/// - time off: `from`, `to`, and `shiftTypeID` for one type only.
public struct Request: Identifiable, Codable, Hashable, Sendable {
    public var id: RequestID
    public var kind: RequestKind
    public var requesterID: PersonID
    public var shift: SeenShift?
    public var colleagueID: PersonID?
    public var colleagueShift: SeenShift?
    public var from: LocalDate?
    public var to: LocalDate?
    public var shiftTypeID: ShiftTypeID?
    /// Every state change in order; the last one's state is the request's state.
    public var history: [RequestTransition]

    public init(
        id: RequestID, kind: RequestKind, requesterID: PersonID, shift: SeenShift? = nil, colleagueID: PersonID? = nil,
        colleagueShift: SeenShift? = nil, from: LocalDate? = nil, to: LocalDate? = nil, shiftTypeID: ShiftTypeID? = nil,
        history: [RequestTransition]
    ) {
        self.id = id
        self.kind = kind
        self.requesterID = requesterID
        self.shift = shift
        self.colleagueID = colleagueID
        self.colleagueShift = colleagueShift
        self.from = from
        self.to = to
        self.shiftTypeID = shiftTypeID
        self.history = history
    }

    /// The current state (pending for a request without history, which the core refuses).
    public var state: RequestState { history.last?.state ?? .pending }

    /// When it was made.
    public var madeAt: Date? { history.first?.timestamp }

    /// The reason given when it was made.
    public var reason: String? { history.first?.reason }

    /// Whether a colleague must accept it before a scheduler approves it (a swap with a person).
    public var needsAcceptance: Bool { kind == .swap && colleagueID != nil }

    /// This request moved to `state` by `transition`.
    public func moved(_ transition: RequestTransition) -> Request {
        var copy = self
        copy.history.append(transition)
        return copy
    }

    /// The first date the request is about: its shift's, or the first day off.
    public var firstDate: LocalDate? {
        [shift?.date, colleagueShift?.date, from].compactMap { $0 }.min()
    }

    /// The order requests are listed and stored in: by when they were made, then id.
    public static func storageOrder(_ a: Request, _ b: Request) -> Bool {
        let (ta, tb) = (a.madeAt ?? .distantPast, b.madeAt ?? .distantPast)
        return ta != tb ? ta < tb : a.id < b.id
    }
}
