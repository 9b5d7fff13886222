import ArgumentParser
import ShiftApp

extension Shiftctl {
    struct Person: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add, list, show, update and remove people; link them to PostgreSQL database roles.",
            subcommands: [Add.self, List.self, Show.self, Update.self, Remove.self, Link.self, Unlink.self])
    }
}

extension Shiftctl.Person {
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a person.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Argument(help: "Display name.") var name: String
        @Option(help: ArgumentHelp("A custom attribute (skills=[nurse, lead], max_hours=38.5); repeat for several.", valueName: "key=value"))
        var attr: [String] = []

        func run() async throws {
            try await Console.run(global, format: output.format) { try await $0.addPerson(name: name, attributes: attr) }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List people.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments

        func run() async throws {
            try await Console.run(global, format: output.format) { try $0.listPeople() }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one person and their next shifts.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Argument(help: "Name or id prefix.", completion: Completions.people) var person: String

        func run() async throws {
            try await Console.run(global, format: output.format) { try $0.showPerson(person) }
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change a person.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Argument(help: "Name or id prefix.", completion: Completions.people) var person: String
        @Option(help: "New display name.") var name: String?
        @Option(help: ArgumentHelp("Set an attribute; repeat for several.", valueName: "key=value")) var attr: [String] = []
        @Option(help: ArgumentHelp("Remove an attribute; repeat for several.", valueName: "key")) var removeAttr: [String] = []

        func run() async throws {
            try await Console.run(global, format: output.format) {
                try await $0.updatePerson(person, name: name, attributes: attr, removeAttributes: removeAttr)
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a person (the person_in_use rule refuses while they have future shifts).")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Argument(help: "Name or id prefix.", completion: Completions.people) var person: String

        func run() async throws {
            try await Console.run(global, format: output.format) { try await $0.removePerson(person) }
        }
    }

    struct Link: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Tie a person to a PostgreSQL database role (admins only, once roles are on).",
            discussion: """
                Whoever connects as that database role is that person: --as cannot change it, and the database \
                itself lets the role write only what the person's role allows. The first link sets the schedule's \
                group roles up, which needs the owner of the schedule's tables with CREATEROLE.
                """)
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Argument(help: "Name or id prefix.", completion: Completions.people) var person: String
        @Option(help: ArgumentHelp("The database role (a login role on the server) that is this person.", valueName: "role"))
        var dbRole: String

        func run() async throws {
            try await Console.run(global, format: output.format) { try await $0.linkPerson(person, databaseRole: dbRole) }
        }
    }

    struct Unlink: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Untie a person from their database role (admins only).")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Argument(help: "Name or id prefix.", completion: Completions.people) var person: String

        func run() async throws {
            try await Console.run(global, format: output.format) { try await $0.unlinkPerson(person) }
        }
    }
}
