import Foundation

/// Who a store's database server says the connected user is: for a store whose server
/// authenticates its users and checks the permissions matrix itself (PostgreSQL with database
/// roles, docs/requests.md "Where it is enforced").
///
/// There the identity is the database role the connection logged in as, not `--as` or an app's
/// configured user: a role linked to a person (`shiftctl person link NAME --db-role ROLE`) is
/// that person, and a role the database checks but nobody is linked to is a stranger.
public struct DatabaseIdentity: Sendable, Hashable, CustomStringConvertible {
    /// The database role the connection is authenticated as (`current_user`).
    public var role: String
    /// The person linked to the role (`Role.databaseRoleAttribute`), if any, and their name.
    public var personID: PersonID?
    public var personName: String?
    /// Whether the schedule's database roles are set up: from then on the database checks
    /// every role but the exempt ones.
    public var rolesSetUp: Bool
    /// Whether the database checks this user's writes: roles are set up and the user is neither
    /// the owner of the schedule's tables nor a superuser (whom PostgreSQL exempts from
    /// row-level security; they can change anything from `psql` anyway).
    public var checked: Bool
    /// The schedule's role the database grants the user (the highest, if several); nil: none.
    public var granted: Role?

    public init(role: String, personID: PersonID?, personName: String?, rolesSetUp: Bool, checked: Bool, granted: Role?) {
        self.role = role
        self.personID = personID
        self.personName = personName
        self.rolesSetUp = rolesSetUp
        self.checked = checked
        self.granted = granted
    }

    /// Whether the database decides who the acting user is, so that `--as` cannot change it:
    /// the role is linked to a person, or the database checks its writes.
    public var decidesWhoYouAre: Bool { personID != nil || checked }

    /// The acting user the identity makes: the database role, named as its person.
    public var profile: UserProfile { UserProfile(userId: role, displayName: personName ?? role) }

    /// The person whose request plans must stay within what the database lets staff write
    /// (`RequestWorkflow.databaseStaff`): set when the database checks this user as staff.
    public var staffPerson: PersonID? { checked && granted == .staff ? personID : nil }

    /// `database role bob (Bob)`, `database role eve (nobody in the schedule)`.
    public var description: String { "database role \(role) (\(personName ?? "nobody in the schedule"))" }

    /// The acting user when the connection is this identity.
    ///
    /// - Parameters:
    ///   - asked: a user named on purpose (`--as`, an app's configured user), if any.
    ///   - fallback: the user otherwise (the store's `user.default`, `$USER`).
    ///   - schedule: where names are looked up.
    /// - Returns: `fallback` when the database does not decide who the user is; otherwise the
    ///   identity's `profile`.
    /// - Throws: `ScheduleError.forbidden` when the database decides who the user is and `asked`
    ///   names someone else: another person, or anyone at all for a role linked to nobody.
    public func actingUser(asked: String?, fallback: UserProfile, in schedule: Schedule) throws(ScheduleError) -> UserProfile {
        guard decidesWhoYouAre else { return fallback }
        if let asked, !asked.isEmpty, asked != role {
            let named = Permissions.person(of: UserProfile(userId: asked, displayName: asked), in: schedule)
            if personID == nil || named?.id != personID {
                let whom = named.map { "\($0.displayName)" } ?? "'\(asked)'"
                throw .forbidden(message: "you are connected as \(self), and the database decides who you are: "
                    + "you cannot act as \(whom); connect as their database role instead")
            }
        }
        return profile
    }
}

/// A repository whose server authenticates users and may check their writes itself
/// (PostgreSQL): it says who the connection is.
public protocol IdentifyingRepository: ScheduleRepository {
    /// Who the connection is, as the database sees it.
    /// - Throws: the repository's read error.
    func databaseIdentity() throws -> DatabaseIdentity
}
