import ArgumentParser
import ShiftApp

extension Shiftctl {
    struct Rules: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the rules in force and run their examples.",
            subcommands: [List.self, Test.self])
    }
}

extension Shiftctl.Rules {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the loaded rules.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments

        func run() async throws {
            try await Console.run(global, format: output.format) { try $0.listRules() }
        }
    }

    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the rules' examples; exit 1 when one fails.",
            discussion: "Without DIR, tests the store's rules; with DIR, the rules in that folder (no store needed).")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Argument(help: "A folder of rules.") var dir: String?

        func run() async throws {
            try await Console.run(global, format: output.format) { try $0.testRules(directory: dir) }
        }
    }
}
