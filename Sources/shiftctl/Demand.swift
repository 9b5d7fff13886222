import ArgumentParser
import ShiftApp

extension Shiftctl {
    struct Demand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Staffing demand: how many people a shift type needs on a date or weekday.",
            subcommands: [Add.self, List.self, Remove.self])
    }
}

extension Shiftctl.Demand {
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a staffing requirement.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Option(help: "Shift type symbol or id prefix.", completion: Completions.shiftTypes) var type: String
        @Option(help: ArgumentHelp("The date it applies to.", valueName: "YYYY-MM-DD")) var date: String?
        @Option(help: ArgumentHelp("The weekday it applies to every week, instead of --date.", valueName: "day")) var weekday: String?
        @Option(parsing: .unconditional, help: "Minimum number of people.", transform: NumberArgument.whole) var min: Int
        @Option(parsing: .unconditional, help: "Optimal number of people (default: --min).", transform: NumberArgument.whole) var optimal: Int?
        @Option(help: "Only people with this skill count.") var skill: String?

        func run() async throws {
            try await Console.run(global, format: output.format) {
                try await $0.addDemand(type: type, date: date, weekday: weekday, minimum: min, optimal: optimal, skill: skill)
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List staffing demand.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Option(help: "Only this shift type.", completion: Completions.shiftTypes) var type: String?

        func run() async throws {
            try await Console.run(global, format: output.format) { try $0.listDemand(type: type) }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a staffing requirement.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Argument(help: "Id prefix (see demand list).") var id: String

        func run() async throws {
            try await Console.run(global, format: output.format) { try await $0.removeDemand(id) }
        }
    }
}
