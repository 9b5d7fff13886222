import ArgumentParser
import ShiftApp

extension Shiftctl {
    struct INRC2Command: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "inrc2",
            abstract: "Load nurse rostering competition (INRC-II) instances and solutions, and export solutions.",
            subcommands: [Import.self, Export.self])
    }
}

extension Shiftctl.INRC2Command {
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a store from an INRC-II instance, and optionally a solution to score.",
            discussion: """
                INSTANCE is a folder holding Sc-<inst>.txt, H0-<inst>-<h>.txt and WD-<inst>-<w>.txt. With \
                --solution FOLDER named Solution_H_<h>-WD_<w0>-<w1>-…, the history and the weeks come from its \
                name and its Sol-… files become the shifts; without it, give --history and --weeks to load the \
                problem alone. The store must not exist yet: it is created with the stock rules beside it and \
                rules/examples/inrc2 as its rules, so `shiftctl validate --score` then reports the competition's \
                hard violations and soft costs (docs/inrc2.md).
                """)
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Argument(help: "The instance folder, e.g. n005w4.") var instance: String
        @Option(help: "A solution folder (Solution_H_<h>-WD_<w0>-…) whose assignments become the shifts.") var solution: String?
        @Option(help: "Which initial history to load: H0-<inst>-<N>.txt.") var history: Int?
        @Option(help: ArgumentHelp("The week-data files of the horizon, in order: e.g. 1,2,3,3 for WD-<inst>-1.txt ….", valueName: "w,w,…"))
        var weeks: String?
        @Option(help: "The horizon's first day, a Monday (default 2024-01-01).") var start: String?

        func run() async throws {
            try await Console.run(global, format: output.format) { app in
                let parsedWeeks = try weeks.map { text in
                    try text.split(separator: ",", omittingEmptySubsequences: false).map { part in
                        guard let week = Int(part.trimmingCharacters(in: .whitespaces)), week >= 0 else {
                            throw AppError.invalidValue(option: "--weeks", message: "'\(text)' is not a list of week numbers like 1,2,3,3")
                        }
                        return week
                    }
                }
                return try await app.importINRC2(instance: instance, solution: solution, history: history, weeks: parsedWeeks, start: start)
            }
        }
    }
}

extension Shiftctl.INRC2Command {
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the store's roster as INRC-II solution files, one per week.",
            discussion: """
                For a store made by `shiftctl inrc2 import`: writes Sol-<inst>-<wd>-<k>.txt for each week k of the \
                horizon into FOLDER (created if needed), the format the competition's validator reads. Each shift \
                needs its `skill` attribute (solve gives it to the shifts it makes for demand).
                """)
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Argument(help: "The folder to write the solution files into.") var folder: String

        func run() async throws {
            try await Console.run(global, format: output.format) { try $0.exportINRC2(to: folder) }
        }
    }
}
