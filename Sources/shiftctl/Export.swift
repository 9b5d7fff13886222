import ArgumentParser
import ShiftApp

extension Shiftctl {
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the schedule in a file format: json (the store), csv, ics (iCalendar) or html (a roster page).",
            discussion: """
                The file format comes from --file-format, else the extension of -o, else json.
                --person, --from, --to and --type narrow csv, ics and html exports (json is always the whole store).
                Each person can subscribe to their own calendar: shiftctl export --person Alice -o alice.ics
                """)
        @OptionGroup var global: GlobalArguments
        @Option(help: "Output format of the report when writing to a file (-o): text or json.") var format: FileOrOutputFormat = .text
        @Option(help: ArgumentHelp("File format: json, csv, ics or html (default: from the extension of -o, else json).", valueName: "format"))
        var fileFormat: ExchangeFormat?
        @Option(name: [.short, .customLong("output")], help: ArgumentHelp("Write to this file instead of stdout.", valueName: "file"))
        var output: String?
        @Option(help: ArgumentHelp("Only this person's shifts (repeatable).", valueName: "person"), completion: Completions.people)
        var person: [String] = []
        @Option(help: ArgumentHelp("First day (YYYY-MM-DD, today…).", valueName: "date")) var from: String?
        @Option(help: ArgumentHelp("Last day (YYYY-MM-DD, today…).", valueName: "date")) var to: String?
        @Option(help: ArgumentHelp("Only shifts of this type (repeatable).", valueName: "type"), completion: Completions.shiftTypes)
        var type: [String] = []

        func validate() throws { try format.check(fileFormat: fileFormat) }

        func run() async throws {
            let (output, file) = format.resolve(fileFormat: fileFormat)
            let filter = ExportFilter(people: person, from: from, to: to, types: type)
            try await Console.run(global, format: output) { try $0.export(format: file, to: self.output, filter: filter) }
        }
    }
}
