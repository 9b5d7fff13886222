import ArgumentParser
import ShiftApp

extension Shiftctl {
    struct ShiftTypeCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "type",
            abstract: "Add, list, show, update and remove shift types.",
            subcommands: [Add.self, List.self, Show.self, Update.self, Remove.self])
    }
}

extension Shiftctl.ShiftTypeCommand {
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a shift type.",
            discussion: "A time range ending at or before its start ends the next day (19:00-07:00).")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Argument(help: "Unique symbol, 1 to 8 characters (D, N, E1).") var symbol: String
        @Option(help: "Title (default: the symbol).") var title: String?
        @Option(help: ArgumentHelp("Start and end, e.g. 07:00-19:00.", valueName: "HH:MM-HH:MM")) var time: String?
        @Flag(help: "An all-day shift type instead of --time.") var allDay = false
        @Option(help: "Location name or id prefix.", completion: Completions.locations) var location: String?
        @Option(help: "A longer description.") var description: String?
        @Option(help: ArgumentHelp("A custom attribute; repeat for several.", valueName: "key=value")) var attr: [String] = []

        func run() async throws {
            try await Console.run(global, format: output.format) {
                try await $0.addShiftType(symbol: symbol, title: title, time: time, allDay: allDay, location: location,
                                          description: description, attributes: attr)
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List shift types.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments

        func run() async throws {
            try await Console.run(global, format: output.format) { try $0.listShiftTypes() }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one shift type.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Argument(help: "Symbol or id prefix.", completion: Completions.shiftTypes) var type: String

        func run() async throws {
            try await Console.run(global, format: output.format) { try $0.showShiftType(type) }
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change a shift type.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Argument(help: "Symbol or id prefix.", completion: Completions.shiftTypes) var type: String
        @Option(help: "New symbol.") var symbol: String?
        @Option(help: "New title.") var title: String?
        @Option(help: ArgumentHelp("New start and end.", valueName: "HH:MM-HH:MM")) var time: String?
        @Flag(help: "Make it all-day.") var allDay = false
        @Option(help: "New location name or id prefix.", completion: Completions.locations) var location: String?
        @Flag(help: "Detach it from its location.") var noLocation = false
        @Option(help: "New description.") var description: String?
        @Option(help: ArgumentHelp("Set an attribute; repeat for several.", valueName: "key=value")) var attr: [String] = []
        @Option(help: ArgumentHelp("Remove an attribute; repeat for several.", valueName: "key")) var removeAttr: [String] = []

        func run() async throws {
            try await Console.run(global, format: output.format) {
                try await $0.updateShiftType(type, symbol: symbol, title: title, time: time, allDay: allDay, location: location,
                                             noLocation: noLocation, description: description, attributes: attr, removeAttributes: removeAttr)
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a shift type (the shift_type_in_use rule refuses while shifts use it).")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Argument(help: "Symbol or id prefix.", completion: Completions.shiftTypes) var type: String

        func run() async throws {
            try await Console.run(global, format: output.format) { try await $0.removeShiftType(type) }
        }
    }
}
