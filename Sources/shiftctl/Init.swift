import ArgumentParser
import ShiftApp

extension Shiftctl {
    struct Init: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a schedule store, with the stock rules in rules/ beside it.",
            discussion: """
                Fails when the store already exists. With --no-rules: no rules folder, and the store records that it \
                runs without rules (rules.none), so its changes are not checked.
                """)

        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments

        @Option(help: ArgumentHelp("IANA time zone of the schedule, e.g. Europe/Berlin (default: $TZ, else the system's).", valueName: "tz"))
        var timeZone: String?

        @Option(help: ArgumentHelp("First day of the week: monday … sunday (default: monday).", valueName: "day"))
        var weekStart: String?

        func run() async throws {
            try await Console.run(global, format: output.format) { app in
                try await app.initialize(timeZone: timeZone, weekStart: weekStart, noRules: global.noRules)
            }
        }
    }
}
