import ArgumentParser
import ShiftApp

extension Shiftctl {
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Merge a file into the store as one change (new ids added, known ids updated).",
            discussion: "The rules check the whole import; if they reject it, nothing is written.")
        @OptionGroup var global: GlobalArguments
        @Argument(help: "The file to import.") var file: String
        @Option(help: "File format: json.") var format: ExchangeFormat = .json

        func run() async throws {
            try await Console.run(global, format: .text) { try await $0.importFile(file, format: format) }
        }
    }
}
