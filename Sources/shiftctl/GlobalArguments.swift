import ArgumentParser
import Foundation
import ShiftApp
import ShiftCore

/// Options every command takes.
struct GlobalArguments: ParsableArguments {
    @Option(help: ArgumentHelp("The schedule store file (default: $SHIFTCTL_STORE, else ./schedule.json).", valueName: "path"))
    var store: String?

    @Option(help: ArgumentHelp("A folder of Lua rules; repeat for several (default: the store's rules folders, else ./rules).", valueName: "dir"))
    var rules: [String] = []

    @Flag(help: "Run without rules: nothing is checked (init: create a store that runs without rules). Not with --rules.")
    var noRules = false

    @Option(name: .customLong("as"), help: ArgumentHelp("Who makes the change, for the change log (default: the store's user.default, else $USER, else your login name).", valueName: "user"))
    var actingUser: String?

    var options: GlobalOptions { GlobalOptions(store: store, rules: rules, actingUser: actingUser, noRules: noRules) }

    func validate() throws {
        if noRules, !rules.isEmpty { throw ValidationError("--no-rules cannot be used with --rules; pass one or the other") }
    }
}

/// `--format text|json` for commands that print data.
struct OutputArguments: ParsableArguments {
    @Option(help: "Output format: text for people, json for scripts.")
    var format: OutputFormat = .text
}

extension OutputFormat: ExpressibleByArgument {}
extension ValidateFormat: ExpressibleByArgument {}
extension ExchangeFormat: ExpressibleByArgument {}
extension AvailabilityKind: ExpressibleByArgument {}

/// Runs an app call, prints its output, and exits with its status.
enum Console {
    /// `shiftctl: note: …` on stderr: something to know that does not stop the command.
    static func note(_ text: String) {
        FileHandle.standardError.write(Data("shiftctl: note: \(CommandRunner.printable(text))\n".utf8))
    }

    static func run(_ global: GlobalArguments, format: OutputFormat, _ body: (App) async throws -> CommandResult) async throws {
        let app = App(options: global.options)
        let outcome = await CommandRunner.run(format: format) {
            let result = try await body(app)
            try app.workspace.throwFailedReads()
            return result
        }
        if !outcome.stdout.isEmpty { FileHandle.standardOutput.write(Data(outcome.stdout.utf8)) }
        if !outcome.stderr.isEmpty { FileHandle.standardError.write(Data(outcome.stderr.utf8)) }
        if outcome.status != .ok { throw ExitCode(outcome.status.rawValue) }
    }
}
