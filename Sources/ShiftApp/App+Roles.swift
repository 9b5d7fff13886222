import Foundation
import ShiftCore
import ShiftStoragePostgres

/// `shiftctl role …` and `person link|unlink`: who may do what (docs/cli.md, "role"). A role is
/// the person attribute `role`; the funnel enforces it once anyone has one (`Permissions`). On
/// PostgreSQL a person linked to a database role (`db_role`) is that role, and once the first
/// link set the schedule's group roles up the database enforces the roles itself: a trigger
/// makes the linked role a member of its person's group as the attributes change.
extension App {
    public func grantRole(person: String, role: Role) async throws -> CommandResult {
        let schedule = try load()
        var who = try ReferenceResolver(schedule).person(person, option: "PERSON")
        let before = Role.of(who)
        who.attributes[Role.attribute] = .string(role.rawValue)
        let first = !Permissions.enforced(in: schedule)
        let (_, _) = try await workspace.apply(.updatePerson(who))
        var text = before == role ? "\(who.displayName) already is \(role.rawValue)\n" : "\(who.displayName) is now \(role.rawValue)\n"
        if let login = Self.databaseRole(of: who), workspace.databaseIdentity?.rolesSetUp == true {
            text += "the database grants it to their database role \(login)\n"
        }
        if first { text += "roles are now enforced: every change needs a role (see shiftctl role list)\n" }
        return CommandResult(text: text, json: RoleOutput(person: who.displayName, personID: who.id.description, role: role.rawValue,
                                                          databaseRole: Self.databaseRole(of: who)))
    }

    public func revokeRole(person: String, role: Role) async throws -> CommandResult {
        let schedule = try load()
        var who = try ReferenceResolver(schedule).person(person, option: "PERSON")
        guard Role.of(who) == role else {
            throw AppError.invalidValue(option: "ROLE", message: "\(who.displayName) is \(Role.of(who)?.rawValue ?? "without a role"), not \(role.rawValue)")
        }
        who.attributes[Role.attribute] = nil
        let (_, _) = try await workspace.apply(.updatePerson(who))
        var text = "\(who.displayName) is no longer \(role.rawValue)\n"
        if let login = Self.databaseRole(of: who), workspace.databaseIdentity?.rolesSetUp == true {
            text += "the database revokes it from their database role \(login)\n"
        }
        return CommandResult(text: text, json: RoleOutput(person: who.displayName, personID: who.id.description, role: nil,
                                                          databaseRole: Self.databaseRole(of: who)))
    }

    public func listRoles() throws -> CommandResult {
        let schedule = try load()
        let items = schedule.people.map {
            RoleOutput(person: $0.displayName, personID: $0.id.description, role: Role.of($0)?.rawValue, databaseRole: Self.databaseRole(of: $0))
        }
        let linked = schedule.people.contains { Self.databaseRole(of: $0) != nil }
        var table = linked ? TextTable("PERSON", "ROLE", "LOGIN", "DATABASE ROLE") : TextTable("PERSON", "ROLE", "LOGIN")
        for person in schedule.people {
            var row = [person.displayName, Role.of(person)?.rawValue ?? "", person.attributes[Role.loginAttribute]?.stringValue ?? ""]
            if linked { row.append(Self.databaseRole(of: person) ?? "") }
            table.add(row: row)
        }
        let user = workspace.actingUser(settings: schedule.settings)
        let you = Permissions.person(of: user, in: schedule)
        let identity = workspace.databaseIdentity
        let note: String
        if let identity, identity.decidesWhoYouAre {
            note = "you are database role \(identity.role): \(you.map { "\($0.displayName), \(Role.of($0)?.rawValue ?? "without a role")" } ?? "nobody in the schedule")"
                + (identity.checked ? "; the database checks what you write" : "")
        } else if Permissions.enforced(in: schedule) {
            note = "you (\(user.userId)) are \(you.map { "\($0.displayName), \(Role.of($0)?.rawValue ?? "without a role")" } ?? "nobody in the schedule")"
        } else {
            note = "nobody has a role: roles are not enforced (grant the first with shiftctl role grant PERSON admin)"
        }
        return CommandResult(text: (items.isEmpty ? "no people\n" : table.rendered), json: ListOutput(key: "roles", items: items), note: note)
    }

    // MARK: Database roles (PostgreSQL)

    /// `person link PERSON --db-role ROLE`: the person is that database role from now on. The
    /// first link sets the schedule's group roles up, which turns the database's own check of
    /// roles on (it needs the tables' owner, with CREATEROLE).
    public func linkPerson(_ reference: String, databaseRole name: String) async throws -> CommandResult {
        let repository = try postgresRepository()
        let schedule = try load()
        var person = try ReferenceResolver(schedule).person(reference, option: "PERSON")
        guard !name.isEmpty else { throw AppError.invalidValue(option: "--db-role", message: "give the name of a database role") }
        if let linked = schedule.people.first(where: { Self.databaseRole(of: $0) == name }) {
            guard linked.id != person.id else {
                return CommandResult(text: "\(person.displayName) already is database role \(name)\n", json: linkOutput(person))
            }
            throw AppError.invalidValue(
                option: "--db-role", message: "\(name) is \(linked.displayName)'s database role already; unlink it first: shiftctl person unlink \(linked.displayName)")
        }
        guard !repository.groupRoleNames.contains(name) else {
            throw AppError.invalidValue(option: "--db-role", message: "\(name) is one of this schedule's group roles; link each person to a login role of their own")
        }
        guard try repository.databaseRoleExists(name) else {
            throw AppError.invalidValue(
                option: "--db-role", message: "the server has no database role '\(name)'; create it first (CREATE ROLE \(name) LOGIN PASSWORD '…'), then link it")
        }
        person.attributes[Role.databaseRoleAttribute] = .string(name)
        // Refused by the permissions, the roles are not set up for nothing.
        try checkPermission(.updatePerson(person), in: schedule)
        let setUp = try repository.setUpDatabaseRoles()
        let (_, _) = try await workspace.apply(.updatePerson(person))
        var result = CommandResult(
            text: "\(person.displayName) is now database role \(name)" + (Role.of(person).map { ", \($0.rawValue)" } ?? ", without a role (reads only)") + "\n",
            json: linkOutput(person))
        if setUp {
            result.note = "the database now checks roles for this schedule: a database role writes only what its person's role allows, "
                + "and a role linked to no one only reads what it was granted (docs/requests.md)"
        }
        return result
    }

    /// `person unlink PERSON`: the person is no longer a database role (which loses the
    /// schedule's group roles).
    public func unlinkPerson(_ reference: String) async throws -> CommandResult {
        try requirePostgres()
        var person = try ReferenceResolver(try load()).person(reference, option: "PERSON")
        guard let name = Self.databaseRole(of: person) else {
            throw AppError.invalidValue(option: "PERSON", message: "\(person.displayName) is linked to no database role")
        }
        person.attributes[Role.databaseRoleAttribute] = nil
        let (_, _) = try await workspace.apply(.updatePerson(person))
        return CommandResult(text: "\(person.displayName) is no longer database role \(name)\n", json: linkOutput(person))
    }

    /// The PostgreSQL repository of the store: database roles exist only there.
    private func postgresRepository() throws -> PostgresRepository {
        try requirePostgres()
        guard let repository = try workspace.repository() as? PostgresRepository else {
            throw AppError.unsupportedStore(path: workspace.storePath)
        }
        return repository
    }

    private func requirePostgres() throws {
        guard try workspace.storeKind() == .postgres else {
            throw AppError.invalidValue(
                option: "--store",
                message: "database roles exist only on a PostgreSQL store; on a file store tie a person to a login with shiftctl person update NAME --attr login=USER")
        }
    }

    /// Runs the funnel's permission check of a change before anything else is done for it.
    private func checkPermission(_ mutation: Mutation, in schedule: Schedule) throws {
        let (after, changes) = try schedule.applying(mutation)
        let identity = workspace.databaseIdentity
        try Permissions(checkedByDatabase: identity?.checked ?? false).authorize(Proposal(
            mutation: mutation, changes: changes, before: schedule, after: after, user: workspace.actingUser(settings: schedule.settings),
            timestamp: environment.now()))
    }

    private func linkOutput(_ person: Person) -> RoleOutput {
        RoleOutput(person: person.displayName, personID: person.id.description, role: Role.of(person)?.rawValue,
                   databaseRole: Self.databaseRole(of: person))
    }

    static func databaseRole(of person: Person) -> String? {
        person.attributes[Role.databaseRoleAttribute]?.stringValue
    }
}

/// A person's role in JSON.
public struct RoleOutput: Encodable, Sendable {
    public let person: String
    public let personID: String
    public let role: String?
    /// The database role linked to the person (PostgreSQL), if any.
    public let databaseRole: String?
}
