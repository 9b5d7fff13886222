import ArgumentParser
import ShiftApp

extension CalendarView: ExpressibleByArgument {}

extension Shiftctl {
    struct Calendar: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show shifts by day, week or month, or a roster grid of people by days.",
            discussion: """
                day, week and month list each day's shifts. roster draws people by days with a colour per shift \
                type, as many days as fit the terminal (COLUMNS); no colour when NO_COLOR is set or stdout is not a terminal. \
                Requests waiting for a decision are marked: beside their shift and as a line for time off in day, week \
                and month, and with a ? after the cell's symbols in roster.
                """)
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Argument(help: "day, week, month or roster.") var view: CalendarView
        @Option(help: ArgumentHelp("First day (default: today; this week's first day for week and roster; the 1st for month).", valueName: "YYYY-MM-DD"))
        var from: String?
        @Option(parsing: .unconditional, help: "Number of days to show.", transform: NumberArgument.whole) var days: Int?

        func run() async throws {
            try await Console.run(global, format: output.format) { try $0.calendar(view, from: from, days: days) }
        }
    }
}
