import ArgumentParser
import ShiftApp

extension Shiftctl {
    struct Location: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add, list, show, update and remove locations.",
            subcommands: [Add.self, List.self, Show.self, Update.self, Remove.self])
    }
}

extension Shiftctl.Location {
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a location.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Argument(help: "The location's name.") var name: String
        @Option(help: "Postal address.") var address: String?
        @Option(help: ArgumentHelp("A custom attribute; repeat for several.", valueName: "key=value")) var attr: [String] = []

        func run() async throws {
            try await Console.run(global, format: output.format) { try await $0.addLocation(name: name, address: address, attributes: attr) }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List locations.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments

        func run() async throws {
            try await Console.run(global, format: output.format) { try $0.listLocations() }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one location.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Argument(help: "Name or id prefix.", completion: Completions.locations) var location: String

        func run() async throws {
            try await Console.run(global, format: output.format) { try $0.showLocation(location) }
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change a location.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Argument(help: "Name or id prefix.", completion: Completions.locations) var location: String
        @Option(help: "New name.") var name: String?
        @Option(help: "New address.") var address: String?
        @Option(help: ArgumentHelp("Set an attribute; repeat for several.", valueName: "key=value")) var attr: [String] = []
        @Option(help: ArgumentHelp("Remove an attribute; repeat for several.", valueName: "key")) var removeAttr: [String] = []

        func run() async throws {
            try await Console.run(global, format: output.format) {
                try await $0.updateLocation(location, name: name, address: address, attributes: attr, removeAttributes: removeAttr)
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a location (the location_in_use rule refuses while shift types use it).")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Argument(help: "Name or id prefix.", completion: Completions.locations) var location: String

        func run() async throws {
            try await Console.run(global, format: output.format) { try await $0.removeLocation(location) }
        }
    }
}
