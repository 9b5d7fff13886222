import Foundation

/// What a person may do in a schedule.
public enum Role: String, Codable, Hashable, Sendable, CaseIterable, Comparable {
    /// Reads the schedule, makes and cancels their own requests, accepts swaps addressed to
    /// them, claims open shifts.
    case staff
    /// Also approves and declines requests, and edits shifts, people, types, demand, settings
    /// and rules.
    case scheduler
    /// Also grants and revokes roles.
    case admin

    /// The person attribute that holds a person's role.
    public static let attribute = "role"
    /// The person attribute that ties a person to a login name (else their name is it).
    public static let loginAttribute = "login"
    /// The person attribute that ties a person to a PostgreSQL database role (`shiftctl person
    /// link NAME --db-role ROLE`): on a store whose database checks roles, connecting as that
    /// role is being that person (`DatabaseIdentity`).
    public static let databaseRoleAttribute = "db_role"

    public static func < (a: Role, b: Role) -> Bool { a.rank < b.rank }
    private var rank: Int { Role.allCases.firstIndex(of: self)! }

    /// The role a person's attributes give (nil: none).
    public static func of(_ person: Person) -> Role? {
        person.attributes[attribute]?.stringValue.flatMap(Role.init(rawValue:))
    }
}

/// The permissions the funnel enforces for `shiftctl` and the embedding's connections: who the
/// acting user is (a person, by `login` attribute or by name) and what their role lets them
/// change. A schedule where nobody has a role yet has no permissions to enforce (a store from
/// before roles, or one person's roster); granting the first role switches them on.
///
/// The acting user of a file store is whatever `--as` (or the app) says: this keeps honest
/// people from mistakes, and the file's own permissions are the real boundary. On PostgreSQL
/// with database roles the database checks the same matrix with grants and row-level security,
/// and who the user is comes from the connection (`DatabaseIdentity`); this check then runs
/// first so that a refusal names the rule in the user's words.
public struct Permissions: Sendable {
    /// The database checks this user's writes too (`DatabaseIdentity.checked`): roles are
    /// enforced even while nobody has one, and a staff member may expire only their own requests
    /// and approve nothing automatically, as the database allows.
    public var checkedByDatabase: Bool

    public init(checkedByDatabase: Bool = false) {
        self.checkedByDatabase = checkedByDatabase
    }

    /// The person a user is in a schedule: the one whose `db_role` or `login` attribute is the
    /// user id, else the one whose name it is (ignoring case).
    public static func person(of user: UserProfile, in schedule: Schedule) -> Person? {
        let people = schedule.people
        return people.first { $0.attributes[Role.databaseRoleAttribute]?.stringValue == user.userId }
            ?? people.first { $0.attributes[Role.loginAttribute]?.stringValue == user.userId }
            ?? people.first { $0.displayName.compare(user.userId, options: .caseInsensitive) == .orderedSame }
    }

    /// Whether any person has a role (permissions are on).
    public static func enforced(in schedule: Schedule) -> Bool {
        schedule.people.contains { Role.of($0) != nil }
    }

    /// Refuses a proposal the acting user may not make.
    /// - Throws: `ScheduleError.forbidden` naming the user, their role and what was refused.
    public func authorize(_ proposal: Proposal) throws(ScheduleError) {
        let before = proposal.before
        guard checkedByDatabase || Self.enforced(in: before) else { return }
        let person = Self.person(of: proposal.user, in: before)
        let role = person.flatMap(Role.of)
        let who = person.map { "\($0.displayName) (\(role?.rawValue ?? "no role"))" } ?? "\(proposal.user.userId) (nobody in the schedule)"
        func refuse(_ what: String, _ needs: String) -> ScheduleError {
            .forbidden(message: "\(who) may not \(what); \(needs)")
        }
        if role == .admin { return }
        guard let role, let me = person?.id else {
            // On PostgreSQL a login role nobody is linked to needs the link before a role helps.
            throw refuse("change the schedule", checkedByDatabase && person == nil
                ? "ask an admin to link your database role to you (shiftctl person link NAME --db-role \(proposal.user.userId)) and grant you a role"
                : "ask an admin for a role (shiftctl role grant)")
        }
        for change in proposal.changes {
            if Self.changesRoles(change) { throw refuse("grant or revoke roles", "an admin may") }
        }
        if role == .scheduler { return }
        // What the database lets staff do is narrower than auto-approval and expiry allow.
        let approvals = checkedByDatabase ? (auto: false, reassignments: [:]) : Self.approvals(in: proposal)
        for change in proposal.changes {
            switch change {
            case let .request(old, new?):
                if old == nil, new.requesterID != me { throw refuse("make a request for someone else", "a scheduler or admin may") }
                if new.state == (old?.state ?? .pending) { continue }
                switch new.state {
                case .cancelled where new.requesterID == me, .accepted where new.colleagueID == me:
                    continue
                case .expired where !checkedByDatabase || new.requesterID == me:
                    continue
                case .expired:
                    throw refuse("expire someone else's request", "the database lets staff expire only their own; a scheduler or admin may")
                case .approved where approvals.auto && (new.kind == .claim ? new.requesterID == me : new.colleagueID == me):
                    continue
                case .cancelled: throw refuse("cancel someone else's request", "a scheduler or admin may")
                case .accepted: throw refuse("accept a swap addressed to someone else", "only its colleague may")
                default: throw refuse("\(Self.verb(new.state)) requests", "a scheduler or admin may")
                }
            case let .shift(old, new, _):
                guard let old, let new, Self.onlyPersonChanged(old, new), approvals.reassignments[new.id] == .some(new.personID) else {
                    throw refuse("edit shifts", "a scheduler or admin may")
                }
            case let .settings(old, new) where Self.onlyOwnDisplayName(old, new, of: proposal.user):
                continue
            default:
                throw refuse("change \(change.entity.rawValue.replacingOccurrences(of: "_", with: " ")) entries", "a scheduler or admin may")
            }
        }
    }

    private static func verb(_ state: RequestState) -> String {
        switch state {
        case .approved: "approve"
        case .declined: "decline"
        default: "move"
        }
    }

    private static func onlyPersonChanged(_ old: ScheduledShift, _ new: ScheduledShift) -> Bool {
        var same = new
        same.personID = old.personID
        return same == old
    }

    /// Whether a settings change touches nothing but the acting user's own display name.
    private static func onlyOwnDisplayName(_ old: StoreSettings, _ new: StoreSettings, of user: UserProfile) -> Bool {
        let key = StoreSettings.displayNameKey(for: user.userId)
        var same = new
        same.extra[key] = old.extra[key]
        return same == old
    }

    /// Whether a change grants, changes or takes away a role, links a database role, or changes
    /// the login of a person with a role.
    static func changesRoles(_ change: Change) -> Bool {
        guard case let .person(old, new) = change else { return false }
        return old.flatMap(Role.of) != new.flatMap(Role.of)
            || old?.attributes[Role.databaseRoleAttribute] != new?.attributes[Role.databaseRoleAttribute]
            || old?.attributes[Role.loginAttribute] != new?.attributes[Role.loginAttribute] && (old.flatMap(Role.of) != nil)
    }

    /// Approvals in this proposal that the store approves by itself (claims and swaps, with the
    /// store setting `requests.auto_approve`), and the reassignments they imply.
    private static func approvals(in proposal: Proposal) -> (auto: Bool, reassignments: [ShiftID: PersonID?]) {
        guard proposal.before.settings.autoApprovesRequests else { return (false, [:]) }
        var reassignments: [ShiftID: PersonID?] = [:]
        var any = false
        for case let .request(old, new?) in proposal.changes where new.state == .approved && old?.state != .approved {
            guard new.kind == .claim || new.kind == .swap else { return (false, [:]) }
            any = true
            switch new.kind {
            case .claim: if let shift = new.shift { reassignments[shift.shiftID] = .some(new.requesterID) }
            case .swap:
                if let shift = new.shift { reassignments[shift.shiftID] = .some(new.colleagueID) }
                if let theirs = new.colleagueShift { reassignments[theirs.shiftID] = .some(new.requesterID) }
            default: break
            }
        }
        return (any, reassignments)
    }
}
