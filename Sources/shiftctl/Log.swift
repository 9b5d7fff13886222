import ArgumentParser
import Foundation
import ShiftApp

extension Shiftctl {
    struct Log: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show or prune the change log.",
            subcommands: [Show.self, Prune.self],
            defaultSubcommand: Show.self)
    }
}

extension Shiftctl.Log {
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show change-log entries, newest first (the default).")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Option(help: ArgumentHelp("Entries made on or after this day.", valueName: "YYYY-MM-DD")) var from: String?
        @Option(help: ArgumentHelp("Entries made on or before this day.", valueName: "YYYY-MM-DD")) var to: String?
        @Option(parsing: .unconditional, help: "At most this many entries (with --follow: this many before the new ones, default 10).",
                transform: NumberArgument.whole) var limit: Int?
        @Flag(name: [.customLong("follow"), .customShort("f")],
              help: "Keep running and print each new entry as anyone commits it, oldest first; Ctrl-C ends it.") var follow = false

        func validate() throws {
            if follow, to != nil { throw ValidationError("--to cannot be used with --follow: it shows entries as they are made") }
        }

        func run() async throws {
            guard follow else {
                try await Console.run(global, format: output.format) { try $0.log(from: from, to: to, limit: limit) }
                return
            }
            try await Console.follow(global, format: output.format) { app, write in
                try await app.followLog(from: from, limit: limit, format: output.format, write: write)
            }
        }
    }

    struct Prune: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove old change-log entries.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Option(help: ArgumentHelp("Age to remove, e.g. 90d (default: the store's retention policy).", valueName: "age")) var olderThan: String?

        func run() async throws {
            try await Console.run(global, format: output.format) { try await $0.pruneLog(olderThan: olderThan) }
        }
    }
}
