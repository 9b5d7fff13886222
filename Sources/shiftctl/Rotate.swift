import ArgumentParser
import Foundation
import ShiftApp

extension Shiftctl {
    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Generate a rotation as one batch that every rule checks.",
            discussion: """
                Each --team maps one of the rotation's teams to people: --team A=Alice,Bob. Shift letters \
                map to the shift type with the same symbol unless --shift D=SYMBOL says otherwise. The cycle \
                starts on --anchor (default --from). A violation anywhere rejects the whole batch; --dry-run \
                shows the roster and the violations and writes nothing. See `shiftctl rotations list`.
                """)
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Argument(help: "The rotation's id (shiftctl rotations list).", completion: Completions.rotations) var rotation: String
        @Option(name: .customLong("team"), help: ArgumentHelp("A team and its people: TEAM=person,person (repeatable).", valueName: "team"))
        var teams: [String] = []
        @Option(help: "First date (YYYY-MM-DD or today).") var from: String
        @Option(help: "Last date (inclusive).") var to: String
        @Option(name: .customLong("shift"), help: ArgumentHelp("Map a shift letter to a shift type: LETTER=SYMBOL (repeatable).", valueName: "letter=type"))
        var shifts: [String] = []
        @Option(help: "The date the cycle starts on (default: --from).") var anchor: String?
        @Flag(help: "Show what would be scheduled and the rules' verdict; write nothing.") var dryRun = false
        @Flag(help: "Remove the team members' existing shifts in the date range first.") var replace = false
        @Option(help: "Why, for the change log (default: rotation ROTATION).") var reason: String?

        func run() async throws {
            let showProgress = isatty(STDERR_FILENO) == 1
            try await Console.run(global, format: output.format) { app in
                try await app.rotate(rotation, teams: teams, from: from, to: to, shifts: shifts, anchor: anchor, dryRun: dryRun,
                                     replace: replace, reason: reason, progress: { message in
                                         if showProgress { FileHandle.standardError.write(Data("\(message)\n".utf8)) }
                                     })
            }
        }
    }

    struct Rotations: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the rotation patterns in the rules folders and show their cycles.",
            subcommands: [List.self, Show.self])
    }
}

extension Shiftctl.Rotations {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the rotations.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments

        func run() async throws {
            try await Console.run(global, format: output.format) { try $0.listRotations() }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a rotation's cycle as a grid of teams by days.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Argument(help: "The rotation's id.", completion: Completions.rotations) var rotation: String

        func run() async throws {
            try await Console.run(global, format: output.format) { try $0.showRotation(rotation) }
        }
    }
}
