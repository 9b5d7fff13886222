import ArgumentParser
import Foundation
import ShiftApp
import ShiftCore
import Synchronization

/// Options every command takes.
struct GlobalArguments: ParsableArguments {
    @Option(help: ArgumentHelp("The schedule store file (default: $SHIFTCTL_STORE, else ./schedule.json).", valueName: "path"))
    var store: String?

    @Option(help: ArgumentHelp("A folder of Lua rules; repeat for several (default: the store's rules folders, else ./rules).", valueName: "dir"))
    var rules: [String] = []

    @Flag(help: "Run without rules: nothing is checked (init: create a store that runs without rules). Not with --rules.")
    var noRules = false

    @Option(name: .customLong("as"), help: ArgumentHelp("Who makes the change, for the change log (default: the store's user.default, else $USER, else your login name). On PostgreSQL with database roles you are your database role, and --as may name only yourself.", valueName: "user"))
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

    /// Runs a command that prints as it goes (`log --follow`) until it ends or Ctrl-C (SIGINT)
    /// or SIGTERM cancels it, which ends it cleanly with status 0; an error ends it with its one
    /// line and its status, as `run` does.
    static func follow(_ global: GlobalArguments, format: OutputFormat,
                       _ body: @escaping @Sendable (App, @escaping @Sendable (String) -> Void) async throws -> Void) async throws {
        let app = App(options: global.options)
        // The signals are caught before the work starts, so a Ctrl-C never finds them uncaught.
        let interrupted = Mutex<(stop: Bool, work: Task<CommandRunner.Outcome, Never>?)>((false, nil))
        let signals = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                interrupted.withLock { state in
                    state.stop = true
                    state.work?.cancel()
                }
            }
            source.resume()
            return source
        }
        defer { signals.forEach { $0.cancel() } }
        let work = Task {
            await CommandRunner.run(format: format) {
                try await body(app) { FileHandle.standardOutput.write(Data($0.utf8)) }
                return CommandResult(text: "", json: nil)
            }
        }
        interrupted.withLock { state in
            state.work = work
            if state.stop { work.cancel() }
        }
        let outcome = await work.value
        if !outcome.stdout.isEmpty { FileHandle.standardOutput.write(Data(outcome.stdout.utf8)) }
        if !outcome.stderr.isEmpty { FileHandle.standardError.write(Data(outcome.stderr.utf8)) }
        if outcome.status != .ok { throw ExitCode(outcome.status.rawValue) }
    }
}
