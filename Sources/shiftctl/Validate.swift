import ArgumentParser
import ShiftApp

extension Shiftctl {
    struct Validate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check the whole schedule against the rules.",
            discussion: "Exit status: 0 no errors (warnings allowed), 1 error violations, 2 bad input or a broken rule.")
        @OptionGroup var global: GlobalArguments
        @Flag(help: "Add up penalties per rule.") var score = false
        @Option(help: "text, json, or github (GitHub Actions annotations).") var format: ValidateFormat = .text
        @Option(parsing: .unconditional, help: ArgumentHelp("List at most N violations (counts and --score still cover all).", valueName: "N"),
                transform: NumberArgument.whole)
        var limit: Int?
        @Flag(help: "Report the time of each step (load, rules, check, report) and the peak memory.") var stats = false

        func validate() throws {
            if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
        }

        func run() async throws {
            let outputFormat: OutputFormat = format == .json ? .json : .text
            try await Console.run(global, format: outputFormat) { try $0.validate(score: score, format: format, limit: limit, stats: stats).result }
        }
    }
}
