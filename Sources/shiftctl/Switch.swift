import ArgumentParser
import ShiftApp

extension Shiftctl {
    struct Switch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a shift's type; the change log keeps the old and new shift.",
            discussion: "To change who works a shift, use schedule assign or schedule unassign.")
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Argument(help: "Shift id or unique id prefix.") var shift: String
        @Option(help: "The new shift type: symbol or id prefix.", completion: Completions.shiftTypes) var to: String
        @Option(help: "Why, for the change log.") var reason: String?

        func run() async throws {
            try await Console.run(global, format: output.format) { try await $0.switchShift(shift, to: to, reason: reason) }
        }
    }
}
