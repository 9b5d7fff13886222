import ArgumentParser
import Foundation
import ShiftApp

@main
struct Shiftctl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shiftctl",
        abstract: "Keep a schedule of shifts whose rules are Lua scripts.",
        usage: "shiftctl [--store <path>] [--rules <dir> ...] [--no-rules] [--as <user>] [--format text|json] <subcommand>",
        discussion: """
            Global options (--store, --rules, --no-rules, --as, --format) go before or after the command.
            --format text|json is the output format of every command that prints data (validate also takes github; \
            the file format of export and import is --file-format).
            Exit status: 0 ok, 1 rule violations, 2 bad input or configuration.
            """,
        version: "0.1.0",
        subcommands: [
            Init.self, Location.self, ShiftTypeCommand.self, Person.self, Demand.self, AvailabilityCommand.self,
            ScheduleCommand.self, Switch.self, RequestCommand.self, RoleCommand.self, Rotate.self, Rotations.self, Solve.self, Run.self, Log.self, Validate.self, Rules.self, Calendar.self,
            Export.self, Import.self, Migrate.self, INRC2Command.self,
        ])

    @OptionGroup var global: GlobalArguments

    /// Parses with two adjustments: `--format` given before the command is moved after it (each
    /// command declares its own `--format`), and usage errors exit with 2 as one line that says
    /// what was meant where it can (`UsageHelp`).
    static func main() async {
        let arguments = hoistingFormat(Array(CommandLine.arguments.dropFirst()))
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                let message = message(for: error).split(separator: "\n").first.map(String.init) ?? "invalid arguments"
                let line = UsageHelp.forShiftctl()?.diagnose(arguments, parserMessage: message) ?? message + " (see shiftctl help)"
                FileHandle.standardError.write(Data("shiftctl: \(CommandRunner.printable(line))\n".utf8))
                Foundation.exit(ExitStatus.badInput.rawValue)
            }
            exit(withError: error)
        }
    }

    /// `shiftctl --format json person list` → `shiftctl person list --format json`.
    static func hoistingFormat(_ arguments: [String]) -> [String] {
        var rest = arguments
        var moved: [String] = []
        var index = 0
        while index < rest.count, rest[index].hasPrefix("-"), rest[index] != "--" {
            let argument = rest[index]
            if argument == "--format", index + 1 < rest.count {
                moved = ["--format", rest[index + 1]]
                rest.removeSubrange(index...(index + 1))
            } else if argument.hasPrefix("--format=") {
                moved = [argument]
                rest.remove(at: index)
            } else {
                index += ["--store", "--rules", "--as"].contains(argument) ? 2 : 1
            }
        }
        guard !moved.isEmpty, index < rest.count, rest[index] != "help" else { return arguments }
        if let terminator = rest.firstIndex(of: "--") {
            rest.insert(contentsOf: moved, at: terminator)
        } else {
            rest += moved
        }
        return rest
    }
}
