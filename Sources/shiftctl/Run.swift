import ArgumentParser
import Foundation
import ShiftApp

extension Shiftctl {
    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run a script plugin: queries plus operations, through the rules, as one batch.",
            discussion: """
                The script returns script { id = …, run = function(ctx, schedule, ops) … end }; ctx.args holds \
                the ARGS. Every operation goes through the rules. Without ops.commit() the whole script is one \
                batch (all or nothing); each accepted ops.commit() is written as its own batch, in order, then \
                the rest. Put -- before arguments that start with a dash. See docs/scripts.md.
                """)
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Argument(help: ArgumentHelp("The script file (.lua).", valueName: "script"))
        var script: String
        @Argument(help: ArgumentHelp("Arguments for the script (ctx.args).", valueName: "args"))
        var arguments: [String] = []
        @Flag(help: "Run the script and report what it would change and the rules' verdict; write nothing.")
        var dryRun = false

        func run() async throws {
            try await Console.run(global, format: output.format) { app in
                try await app.runScript(script, arguments: arguments, dryRun: dryRun)
            }
        }
    }
}
