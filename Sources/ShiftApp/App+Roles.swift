import Foundation
import ShiftCore

/// `shiftctl role …`: who may do what (docs/cli.md, "role"). A role is the person attribute
/// `role`; the funnel enforces it once anyone has one (`Permissions`).
extension App {
    public func grantRole(person: String, role: Role) async throws -> CommandResult {
        let schedule = try load()
        var who = try ReferenceResolver(schedule).person(person, option: "PERSON")
        let before = Role.of(who)
        who.attributes[Role.attribute] = .string(role.rawValue)
        let first = !Permissions.enforced(in: schedule)
        let (_, _) = try await workspace.apply(.updatePerson(who))
        var text = before == role ? "\(who.displayName) already is \(role.rawValue)\n" : "\(who.displayName) is now \(role.rawValue)\n"
        if first { text += "roles are now enforced: every change needs a role (see shiftctl role list)\n" }
        return CommandResult(text: text, json: RoleOutput(person: who.displayName, personID: who.id.description, role: role.rawValue))
    }

    public func revokeRole(person: String, role: Role) async throws -> CommandResult {
        let schedule = try load()
        var who = try ReferenceResolver(schedule).person(person, option: "PERSON")
        guard Role.of(who) == role else {
            throw AppError.invalidValue(option: "ROLE", message: "\(who.displayName) is \(Role.of(who)?.rawValue ?? "without a role"), not \(role.rawValue)")
        }
        who.attributes[Role.attribute] = nil
        let (_, _) = try await workspace.apply(.updatePerson(who))
        return CommandResult(text: "\(who.displayName) is no longer \(role.rawValue)\n",
                             json: RoleOutput(person: who.displayName, personID: who.id.description, role: nil))
    }

    public func listRoles() throws -> CommandResult {
        let schedule = try load()
        let items = schedule.people.map { RoleOutput(person: $0.displayName, personID: $0.id.description, role: Role.of($0)?.rawValue) }
        var table = TextTable("PERSON", "ROLE", "LOGIN")
        for person in schedule.people {
            table.add(person.displayName, Role.of(person)?.rawValue ?? "", person.attributes[Role.loginAttribute]?.stringValue ?? "")
        }
        let user = workspace.actingUser(settings: schedule.settings)
        let you = Permissions.person(of: user, in: schedule)
        let note = Permissions.enforced(in: schedule)
            ? "you (\(user.userId)) are \(you.map { "\($0.displayName), \(Role.of($0)?.rawValue ?? "without a role")" } ?? "nobody in the schedule")"
            : "nobody has a role: roles are not enforced (grant the first with shiftctl role grant PERSON admin)"
        return CommandResult(text: (items.isEmpty ? "no people\n" : table.rendered), json: ListOutput(key: "roles", items: items), note: note)
    }
}

/// A person's role in JSON.
public struct RoleOutput: Encodable, Sendable {
    public let person: String
    public let personID: String
    public let role: String?
}
