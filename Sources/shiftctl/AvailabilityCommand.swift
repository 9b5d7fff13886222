import ArgumentParser
import ShiftApp
import ShiftCore

extension Shiftctl {
    struct AvailabilityCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "availability",
            abstract: "Days off and shift requests: unavailable, undesired or desired.",
            subcommands: [Add.self, List.self, Remove.self])
    }
}

extension Shiftctl.AvailabilityCommand {
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add an availability entry.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Option(help: "Name or id prefix.", completion: Completions.people) var person: String
        @Option(help: ArgumentHelp("First day.", valueName: "YYYY-MM-DD")) var from: String
        @Option(help: ArgumentHelp("Last day (default: --from).", valueName: "YYYY-MM-DD")) var to: String?
        @Option(help: "Only this shift type (default: every shift).", completion: Completions.shiftTypes) var type: String?
        @Option(help: "unavailable, undesired or desired.") var kind: AvailabilityKind = .unavailable
        @Option(parsing: .unconditional, help: "How much the request weighs for soft rules.", transform: NumberArgument.decimal) var weight: Double?

        func run() async throws {
            try await Console.run(global, format: output.format) {
                try await $0.addAvailability(person: person, from: from, to: to, type: type, kind: kind, weight: weight)
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List availability entries.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Option(help: "Only this person.", completion: Completions.people) var person: String?
        @Option(help: ArgumentHelp("Only entries on or after this day.", valueName: "YYYY-MM-DD")) var from: String?
        @Option(help: ArgumentHelp("Only entries on or before this day.", valueName: "YYYY-MM-DD")) var to: String?

        func run() async throws {
            try await Console.run(global, format: output.format) { try $0.listAvailability(person: person, from: from, to: to) }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an availability entry.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Argument(help: "Id prefix (see availability list).") var id: String

        func run() async throws {
            try await Console.run(global, format: output.format) { try await $0.removeAvailability(id) }
        }
    }
}
