import ArgumentParser
import ShiftApp

extension Shiftctl {
    struct Init: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a schedule store, with the stock rules in rules/ beside it.",
            discussion: "Fails when the store already exists. --no-rules creates a store without rules folders.")

        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments

        @Option(help: ArgumentHelp("IANA time zone of the schedule, e.g. Europe/Berlin (default: $TZ, else the system's).", valueName: "tz"))
        var timeZone: String?

        @Option(help: ArgumentHelp("First day of the week: monday … sunday (default: monday).", valueName: "day"))
        var weekStart: String?

        @Flag(help: "Do not copy the stock rules or record a rules folder.")
        var noRules = false

        func run() async throws {
            try await Console.run(global, format: output.format) { app in
                try await app.initialize(timeZone: timeZone, weekStart: weekStart, noRules: noRules)
            }
        }
    }
}
