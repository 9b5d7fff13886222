import ArgumentParser
import ShiftApp

extension Shiftctl {
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the schedule in a file format (json: the store format).")
        @OptionGroup var global: GlobalArguments
        @Option(help: "File format: json.") var format: ExchangeFormat = .json
        @Option(name: [.short, .customLong("output")], help: ArgumentHelp("Write to this file instead of stdout.", valueName: "file"))
        var output: String?

        func run() async throws {
            try await Console.run(global, format: .text) { try $0.export(format: format, to: output) }
        }
    }
}
