import ArgumentParser
import ShiftApp

extension Shiftctl {
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the schedule in a file format: json (the store), csv, ics (iCalendar) or html (a roster page).",
            discussion: """
                --person, --from, --to and --type narrow csv, ics and html exports (json is always the whole store).
                Each person can subscribe to their own calendar: shiftctl export --format ics --person Alice -o alice.ics
                """)
        @OptionGroup var global: GlobalArguments
        @Option(help: "File format: json, csv, ics or html.") var format: ExchangeFormat = .json
        @Option(name: [.short, .customLong("output")], help: ArgumentHelp("Write to this file instead of stdout.", valueName: "file"))
        var output: String?
        @Option(help: ArgumentHelp("Only this person's shifts (repeatable).", valueName: "person")) var person: [String] = []
        @Option(help: ArgumentHelp("First day (YYYY-MM-DD, today…).", valueName: "date")) var from: String?
        @Option(help: ArgumentHelp("Last day (YYYY-MM-DD, today…).", valueName: "date")) var to: String?
        @Option(help: ArgumentHelp("Only shifts of this type (repeatable).", valueName: "type")) var type: [String] = []

        func run() async throws {
            let filter = ExportFilter(people: person, from: from, to: to, types: type)
            try await Console.run(global, format: .text) { try $0.export(format: format, to: output, filter: filter) }
        }
    }
}
