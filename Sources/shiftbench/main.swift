// shiftbench: the benchmark executable. Run in release:
//
//   swift run -c release shiftbench [SUITE…] [--runs N] [--quick]
//
// Suites: store (JSON open/save), apply (mutation cost in memory), rules (mutation cost with the
// stock Lua rules; Lua against native Swift), host (what one call from Lua into the schedule API
// costs, in CPU time), cli (shiftctl wall time on a 10k-shift store),
// rotate (1,000 people over a year as one batch with all stock rules), postgres (the PostgreSQL
// store: migrate of 1M shifts, `schedule add` at 1M against 10, 1–8 writers in process, pgbench as
// the ceiling; skipped without a server, see PostgresBenchmarks), inrc2 (scoring INRC-II
// solutions with the rules in rules/examples/inrc2; data from benchmarks/inrc2), sqlite (a bulk
// import of 1M shifts into a SQLite store, opening it, and `schedule add` at 1M against 10 shifts),
// solve (the model's speed: seeded moves on n120w8 scored incrementally by the INRC-II Lua rules
// and by the same rules in Swift, --moves N, default 10,000, alone as solve-model; then
// `shiftctl solve` on the 28 INRC-II competition problems beside a CP-SAT model, scored by
// the independent scorer; --time-limit S per 4-week problem, 2S per 8-week, default 10),
// scale (issue #34: every user path as a whole shiftctl process at two sizes and two people
// counts, with each path's growth per shift or per call flagged past 1.5x; --sizes SMALL,BIG,
// --people FEW,MANY), peers (validating the rosters of benchmarks/peers with rules/examples/peers side by side with its
// Python reference checker; Lua against native Swift). peers-lua --rules DIR is a profiling aid:
// one cached roster validated in process with the given rules; rules-lua is another: the `rules`
// suite's additions evaluated by the rules alone, over and over.
// Without a suite, all run. `make bench` builds shiftctl too, which the cli suite runs.
// Prints Markdown tables for BENCHMARKS.md on stdout; progress goes to stderr.
import Foundation
import ShiftCore
import ShiftStorage

var arguments = Array(CommandLine.arguments.dropFirst())
var runs = 7
var quick = false
var suites: [String] = []
var sizes: [Int]?
var rulesDirectory = "rules"
var timeLimit: Double?
var solveWorkers = max(1, ProcessInfo.processInfo.activeProcessorCount)
var only: [String]?
var modelMoves = 10_000
var people: [Int]?
/// The value after an option, parsed, or exit 2 with `message`.
@MainActor func optionValue<T>(_ parse: (String) -> T?, _ message: String) -> T {
    guard let text = arguments.first, let value = parse(text) else {
        FileHandle.standardError.write(Data("shiftbench: \(message)\n".utf8))
        exit(2)
    }
    arguments.removeFirst()
    return value
}
func positive<N: Numeric & Comparable & LosslessStringConvertible>(_ text: String) -> N? { N(text).flatMap { $0 > 0 ? $0 : nil } }
while !arguments.isEmpty {
    let argument = arguments.removeFirst()
    switch argument {
    case "--runs": runs = optionValue(positive, "--runs needs a positive number")
    case "--quick": quick = true
    case "--time-limit":
        timeLimit = optionValue(positive, "--time-limit needs seconds (for a 4-week problem; 8 weeks get twice as long)") as Double
    case "--workers": solveWorkers = optionValue(positive, "--workers needs a positive number")
    case "--only":
        only = optionValue({ $0.split(separator: ",").map(String.init) }, "--only needs problem names or prefixes such as n030w4,n120w8_1")
    case "--moves": modelMoves = optionValue(positive, "--moves needs a positive number")
    case "--rules": rulesDirectory = optionValue({ $0 }, "--rules needs a folder")
    case "--sizes":
        sizes = optionValue({ text in
            let list = text.split(separator: ",").compactMap { Int($0) }
            return list.isEmpty ? nil : list
        }, "--sizes needs a list such as 1000,100000")
    case "--people":
        people = optionValue({ text in
            let list = text.split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 }
            return list.isEmpty ? nil : list
        }, "--people needs a list such as 200,2800")
    case "-h", "--help":
        print("usage: shiftbench [store|apply|rules|host|cli|rotate|inrc2|sqlite|postgres|peers]… [--runs N] [--sizes N,N…] [--quick] [--rules DIR]")
        print("       shiftbench postgres: the server SHIFTBENCH_POSTGRES (else SHIFT_TEST_POSTGRES) names; skipped without one")
        print("       shiftbench peers-lua --rules DIR [--sizes N] [--runs N]   (profiling aid: one cached roster, in process)")
        print("       shiftbench rules-lua [--rules DIR] [--sizes N] [--runs N]   (profiling aid: additions evaluated by the rules alone)")
        print("       shiftbench solve [--time-limit S] [--workers N] [--only n030w4,n120w8_1…]   (S for 4 weeks, 2S for 8; default 10, the goals' 60)")
        print("       shiftbench scale [--sizes SMALL,BIG] [--people FEW,MANY] [--runs N]   (every user path as a whole process; default 100k,1M shifts and 200,2800 people)")
        print("       shiftbench solve-model [--moves N] [--runs N]   (the model's speed alone: moves/s of the Lua rules and of the same rules in Swift on n120w8)")
        exit(0)
    case "store", "apply", "rules", "host", "cli", "rotate", "inrc2", "sqlite", "postgres", "peers", "scale", "peers-lua", "rules-lua", "solve", "solve-model":
        suites.append(argument)
    default:
        FileHandle.standardError.write(Data("shiftbench: unknown argument '\(argument)' (suites: store, apply, rules, host, cli, rotate, inrc2, sqlite, postgres, peers, scale, solve, solve-model, peers-lua, rules-lua)\n".utf8))
        exit(2)
    }
}
if suites.isEmpty { suites = ["store", "apply", "rules", "host", "cli", "rotate", "inrc2", "sqlite", "postgres", "peers", "scale", "solve"] }

let machine = MachineInfo.current
print("# shiftbench results\n")
print("Machine: \(machine). Build: release. Runs per figure: \(runs) (median, min–max).\n")

do {
    for suite in suites {
        switch suite {
        case "store": try StoreBenchmarks.run(runs: runs, sizes: sizes ?? (quick ? [1_000, 10_000] : [1_000, 10_000, 100_000]))
        case "apply": try await ApplyBenchmarks.run(sizes: sizes ?? (quick ? [1_000, 10_000] : [1_000, 100_000]), mutations: quick ? 2_000 : 20_000, rounds: runs)
        case "rotate":
            try await RotationBenchmarks.run(runs: quick ? 1 : 3, people: quick ? 200 : 1_000, days: 365, rulesDirectory: rulesDirectory)
        case "cli": try CLIBenchmarks.run(runs: runs, shifts: sizes?.first ?? 10_000, rulesDirectory: rulesDirectory)
        case "sqlite": try SQLiteBenchmarks.run(runs: runs, size: sizes?.first ?? (quick ? 100_000 : 1_000_000), rulesDirectory: rulesDirectory)
        case "postgres":
            try await PostgresBenchmarks.run(runs: runs, size: sizes?.first ?? (quick ? 100_000 : 1_000_000), seconds: quick ? 3 : 10,
                                             rulesDirectory: rulesDirectory)
        case "rules":
            try await RuleBenchmarks.run(
                sizes: sizes ?? (quick ? [1_000, 10_000] : [1_000, 100_000, 1_000_000]), mutations: quick ? 1_000 : 4_000, rounds: runs,
                rulesDirectory: rulesDirectory)
        case "inrc2":
            try INRC2Benchmarks.run(runs: runs, data: "benchmarks/inrc2", instances: [
                ("n005w4", "Solution_H_0-WD_1-2-3-3"), ("n120w8", "Solution_H_0-WD_0-9-9-4-5-1-0-3__Opt-f6fafa84"),
            ])
        case "peers":
            // --sizes picks rosters by shift count (10000, 100000, 1000000).
            try PeerBenchmarks.run(
                runs: runs, sizes: sizes.map(PeerBenchmarks.sizes(near:)) ?? (quick ? Array(PeerBenchmarks.sizes.prefix(2)) : PeerBenchmarks.sizes),
                data: "benchmarks/peers", rulesDirectory: "rules/examples/peers")
        case "scale":
            try ScaleBenchmarks.run(runs: quick ? 1 : min(runs, 3), sizes: sizes ?? (quick ? [10_000, 100_000] : [100_000, 1_000_000]),
                                    peopleCounts: people ?? [200, 2_800], rulesDirectory: rulesDirectory, peersData: "benchmarks/peers")
        case "host": try HostCallBenchmarks.run(runs: runs)
        case "solve", "solve-model":
            try ModelSpeedBenchmarks.run(data: "benchmarks/inrc2", moves: quick ? modelMoves / 5 : modelMoves, runs: runs, seed: 1)
            guard suite == "solve" else { break }
            let seconds = timeLimit ?? (quick ? 5 : 10)
            try SolveBenchmarks.run(data: "benchmarks/inrc2", seconds4: seconds, seconds8: 2 * seconds, workers: solveWorkers,
                                    only: only ?? (quick ? ["n030w4_1_6-2-9-1", "n120w8_1"] : nil))
        case "peers-lua":
            let size = sizes.map { PeerBenchmarks.sizes(near: $0).first ?? PeerBenchmarks.sizes[0] } ?? PeerBenchmarks.sizes[2]
            try PeerBenchmarks.profile(runs: runs, size: size, rulesDirectory: rulesDirectory)
        case "rules-lua":
            try RuleBenchmarks.profile(size: sizes?.first ?? 1_000_000, mutations: 8_000, runs: runs, rulesDirectory: rulesDirectory)
        default: break
        }
    }
} catch {
    FileHandle.standardError.write(Data("shiftbench: \(error)\n".utf8))
    exit(1)
}
