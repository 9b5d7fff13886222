import ArgumentParser
import ShiftApp
import ShiftCore

extension Role: ExpressibleByArgument {}

extension Shiftctl {
    struct RoleCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "role",
            abstract: "Who may do what: admin, scheduler or staff.",
            discussion: """
                Once anyone has a role, every change is checked against the acting user's role (--as, else $USER, \
                mapped to a person by their login attribute or name). On a file store the file's own permissions \
                are the real boundary: anyone who may write the file may pass --as. On PostgreSQL, once people are \
                linked to database roles (shiftctl person link), you are the person your database role is linked to, \
                and the database itself enforces the roles.
                """,
            subcommands: [Grant.self, Revoke.self, List.self])
    }
}

extension Shiftctl.RoleCommand {
    struct Grant: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Give a person a role (admins only, once roles are on).")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Argument(help: "Name or id prefix.", completion: Completions.people) var person: String
        @Argument(help: "admin, scheduler or staff.") var role: Role

        func run() async throws {
            try await Console.run(global, format: output.format) { try await $0.grantRole(person: person, role: role) }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Take a role away (admins only).")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Argument(help: "Name or id prefix.", completion: Completions.people) var person: String
        @Argument(help: "The role the person has.") var role: Role

        func run() async throws {
            try await Console.run(global, format: output.format) { try await $0.revokeRole(person: person, role: role) }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List people and their roles.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments

        func run() async throws {
            try await Console.run(global, format: output.format) { try $0.listRoles() }
        }
    }
}
