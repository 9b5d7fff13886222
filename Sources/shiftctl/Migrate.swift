import ArgumentParser
import ShiftApp

extension Shiftctl {
    struct Migrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy the store to a new store of another kind (json, sqlite, postgres), losslessly.",
            discussion: """
                The new store's extension picks its backend: .json, or .sqlite (.sqlite3, .db), or a postgres:// URL. Ids, attributes, settings \
                and the whole change log are copied (with progress on stderr when it is a terminal); the copy is read back \
                and compared before the command succeeds, and the original is left as it is. Example: shiftctl --store schedule.json migrate --to schedule.sqlite
                """)
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Option(help: ArgumentHelp("The new store (must not exist): a file or a postgres:// URL.", valueName: "path")) var to: String

        func run() async throws {
            try await Console.run(global, format: output.format) { try await $0.migrate(to: to) }
        }
    }
}
