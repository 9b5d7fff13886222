import ArgumentParser
import ShiftApp

extension Shiftctl {
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Merge a file into the store as one change (json, csv or ics).",
            discussion: """
                json: new ids are added, known ids updated. csv and ics: shifts (docs/interop.md).
                The rules check the whole import; if they reject it, or a line of the file is wrong, nothing is written.
                """)
        @OptionGroup var global: GlobalArguments
        @Argument(help: "The file to import.") var file: String
        @Option(help: "File format: json, csv or ics (default: from the file's extension).") var format: ExchangeFormat?

        func run() async throws {
            try await Console.run(global, format: .text) { try await $0.importFile(file, format: format) }
        }
    }
}
