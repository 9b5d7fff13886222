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
            discussion: """
                Without PATH, tests the store's rules; with PATH, the rules in that folder or that one rule file (no store needed).
                Rules without examples are listed as untested; exit 2 when there is no example at all.
                """)
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Argument(help: ArgumentHelp("A folder of rules, or one rule file (.lua).", valueName: "path")) var path: String?

        func run() async throws {
            try await Console.run(global, format: output.format) { try $0.testRules(directory: path) }
        }
    }
}
