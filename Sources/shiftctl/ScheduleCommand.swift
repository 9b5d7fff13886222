import ArgumentParser
import ShiftApp

extension Shiftctl {
    struct ScheduleCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "schedule",
            abstract: "Schedule, list, remove and assign shifts.",
            discussion: "assign and unassign change who works a shift; switch changes its type.",
            subcommands: [Add.self, List.self, Remove.self, Assign.self, Unassign.self])
    }
}

extension Shiftctl.ScheduleCommand {
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Schedule a shift; the rules check it first.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Option(help: "Shift type symbol or id prefix.", completion: Completions.shiftTypes) var type: String
        @Option(help: ArgumentHelp("The day the shift starts (or today, tomorrow).", valueName: "YYYY-MM-DD")) var date: String
        @Option(help: "Who works it: name or id prefix (default: open).", completion: Completions.people) var person: String?
        @Option(help: "A note on the shift.") var notes: String?

        func run() async throws {
            try await Console.run(global, format: output.format) {
                try await $0.scheduleShift(type: type, date: date, person: person, notes: notes)
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List shifts, oldest first.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Option(help: ArgumentHelp("First day.", valueName: "YYYY-MM-DD")) var from: String?
        @Option(help: ArgumentHelp("Last day.", valueName: "YYYY-MM-DD")) var to: String?
        @Option(help: "Only this person's shifts.", completion: Completions.people) var person: String?
        @Option(help: "Only this shift type.", completion: Completions.shiftTypes) var type: String?
        @Option(parsing: .unconditional, help: "At most this many shifts.", transform: NumberArgument.whole) var limit: Int?

        func run() async throws {
            try await Console.run(global, format: output.format) {
                try $0.listShifts(from: from, to: to, person: person, type: type, limit: limit)
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a shift.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Argument(help: "Shift id or unique id prefix.") var shift: String
        @Option(help: "Why, for the change log.") var reason: String?

        func run() async throws {
            try await Console.run(global, format: output.format) { try await $0.unscheduleShift(shift, reason: reason) }
        }
    }

    struct Assign: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give a shift to a person; the rules check it and the change log keeps who had it before.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Argument(help: "Shift id or unique id prefix.") var shift: String
        @Option(help: "Who works it now: name or id prefix.", completion: Completions.people) var to: String
        @Option(help: "Why, for the change log.") var reason: String?

        func run() async throws {
            try await Console.run(global, format: output.format) { try await $0.assignShift(shift, to: to, reason: reason) }
        }
    }

    struct Unassign: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a shift open (nobody works it); the change log keeps who had it.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Argument(help: "Shift id or unique id prefix.") var shift: String
        @Option(help: "Why, for the change log.") var reason: String?

        func run() async throws {
            try await Console.run(global, format: output.format) { try await $0.assignShift(shift, to: nil, reason: reason) }
        }
    }
}
