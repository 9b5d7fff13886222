import ArgumentParser
import ShiftApp

extension Shiftctl {
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Merge a file into the store as one change (json, csv or ics).",
            discussion: """
                json: new ids are added, known ids updated. csv and ics: shifts (docs/interop.md).
                The file format comes from --file-format, else the file's extension.
                The rules check the whole import; if they reject it, or a line of the file is wrong, nothing is written.
                """)
        @OptionGroup var global: GlobalArguments
        @Argument(help: "The file to import.") var file: String
        @Option(help: "Output format: text for people, json for scripts.") var format: FileOrOutputFormat = .text
        @Option(help: ArgumentHelp("File format: json, csv or ics (default: from the file's extension).", valueName: "format"))
        var fileFormat: ExchangeFormat?

        func validate() throws { try format.check(fileFormat: fileFormat) }

        func run() async throws {
            let (output, file) = format.resolve(fileFormat: fileFormat)
            try await Console.run(global, format: output) { try await $0.importFile(self.file, format: file) }
        }
    }
}
