import ArgumentParser
import Dispatch
import Foundation
import ShiftApp
import ShiftSolve
import Synchronization

extension Shiftctl {
    struct Solve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a roster: give open shifts and demand people, with the rules as the only model.",
            discussion: """
                Works on the window --from..--to (default: the store's horizon.first..horizon.last). Open \
                shifts get a person; each demand entry (shiftctl demand) gets new shifts with people, up to its \
                optimal number (and --overstaff more, when the rules gain by them); assigned shifts stay as \
                they are unless --replan lets the search move them, each change costing --change-penalty. The search uses its --time-limit (or --moves) and \
                stops earlier only when nothing is left to improve or on Ctrl-C, and keeps the best roster found; progress goes to stderr. The plan \
                is written as one batch that the rules check again (nothing is written if they refuse it); \
                --dry-run only shows it. When horizon.first..horizon.last do not cover the window, the plan \
                sets them to cover it, so that the rules judge the same period during the search and after. Exit 0 when every rule is kept and every slot filled, 1 when errors \
                or unfilled demand remain (listed with the rules that refused the best candidates), 2 on bad \
                input. See docs/solve.md.
                """)
        @OptionGroup var global: GlobalArguments
        @OptionGroup var output: OutputArguments
        @Option(help: "First date of the window (YYYY-MM-DD or today; default: the store's horizon.first).") var from: String?
        @Option(help: "Last date of the window (inclusive; default: the store's horizon.last).") var to: String?
        @Flag(help: "Let the search move assigned shifts of the window too.") var replan = false
        @Option(parsing: .unconditional, help: ArgumentHelp("With --replan: the soft cost of each assignment changed from the schedule as it was.", valueName: "n"),
                transform: NumberArgument.decimal)
        var changePenalty: Double = 0
        @Option(parsing: .unconditional, help: ArgumentHelp(
            "Let each demand entry get up to n shifts beyond its optimal number, for rules that gain by more people (default: 0).",
            valueName: "n"), transform: NumberArgument.whole)
        var overstaff: Int = 0
        @Option(parsing: .unconditional, help: ArgumentHelp("Stop after this many seconds and keep the best roster found.", valueName: "seconds"),
                transform: NumberArgument.decimal)
        var timeLimit: Double = 30
        @Option(help: "The search's seed: the same seed and workers give the same roster when the search ends by itself or by --moves.")
        var seed: UInt64 = 1
        @Option(parsing: .unconditional, help: ArgumentHelp("Searches side by side (default: the cores).", valueName: "n"), transform: NumberArgument.whole)
        var workers: Int?
        @Option(name: .customLong("moves"), parsing: .unconditional, help: ArgumentHelp("Stop after this many moves per worker.", valueName: "n"),
                transform: NumberArgument.whole)
        var moveLimit: Int?
        @Option(help: "The reason recorded in the change log for changed assignments (default: shiftctl solve).") var reason: String?
        @Flag(help: "Show the plan and the score per rule before and after; write nothing.") var dryRun = false
        @Flag(name: .shortAndLong, help: "No progress on stderr.") var quiet = false

        func run() async throws {
            var request = SolveRequest()
            request.from = from
            request.to = to
            request.replan = replan
            request.overstaff = overstaff
            request.changePenalty = changePenalty
            request.timeLimit = timeLimit
            request.seed = seed
            request.workers = workers
            request.moveLimit = moveLimit
            request.dryRun = dryRun
            request.reason = reason
            let control = SolveControl()
            let signals = Self.stopOnSignals(control)
            defer { signals.forEach { $0.cancel() } }
            let reporter = ProgressLine(enabled: !quiet, terminal: isatty(STDERR_FILENO) == 1)
            try await Console.run(global, format: output.format) { app in
                defer { reporter.finish() }
                return try await app.solve(request, control: control, progress: { reporter.show($0) })
            }
        }

        /// Ctrl-C and SIGTERM stop the search (the best roster is kept); a second Ctrl-C ends the
        /// process as usual.
        static func stopOnSignals(_ control: SolveControl) -> [any DispatchSourceSignal] {
            [SIGINT, SIGTERM].map { number in
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler {
                    control.stop()
                    signal(number, SIG_DFL)
                    FileHandle.standardError.write(Data("\nshiftctl: stopping, keeping the best roster found (again to quit at once)\n".utf8))
                }
                source.resume()
                return source
            }
        }
    }
}

/// Progress on stderr: one line rewritten in place on a terminal, a plain line every few
/// seconds otherwise.
final class ProgressLine: Sendable {
    private let enabled: Bool
    private let terminal: Bool
    private let last = Mutex<(shown: ContinuousClock.Instant?, drawn: Bool)>((nil, false))

    init(enabled: Bool, terminal: Bool) {
        self.enabled = enabled
        self.terminal = terminal
    }

    func show(_ progress: SolveProgress) {
        guard enabled else { return }
        let now = ContinuousClock.now
        let interval: Duration = terminal ? .milliseconds(200) : .seconds(5)
        let due = last.withLock { state -> Bool in
            if let shown = state.shown, now - shown < interval { return false }
            state = (now, true)
            return true
        }
        guard due else { return }
        let line = "solve: " + progress.line
        FileHandle.standardError.write(Data((terminal ? "\r\u{1B}[K" + line : line + "\n").utf8))
    }

    func finish() {
        guard enabled, terminal, last.withLock({ $0.drawn }) else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
