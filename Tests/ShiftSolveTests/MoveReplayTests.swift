import Foundation
import TestSupport
import ShiftCore
import ShiftRules
import Testing
@testable import ShiftSolve

@Suite struct MoveReplayTests {
    /// `MoveReplay` keeps every move and scores it as the search does: its totals are a whole
    /// validation's after each one.
    @Test func replayedMovesScoreAsAWholeValidation() throws {
        let ward = try RandomWard(seed: 7)
        let rules = try engine()
        let problem = try SolveProblem(schedule: ward.schedule, window: ward.window, replan: true, recordPeriod: true, seed: 7)
        let replay = try MoveReplay(engine: rules, problem: problem)
        var rng = SeededGenerator(seed: 7)
        for step in 0..<40 {
            let slot = Int.random(in: 0..<problem.slots.count, using: &rng)
            try replay.apply([(slot, Int.random(in: -1..<problem.people.count, using: &rng))])
            let summary = ScoreSummary(try rules.validate(replay.schedule), rules: rules.rules)
            #expect(replay.hard == summary.hardViolations, "after move \(step + 1)")
            #expect(abs(replay.penalty - summary.softPenalty) < 1e-6, "after move \(step + 1)")
        }
    }

    /// `shiftbench solve-model` fails unless its Swift yardstick of the INRC-II rules agrees with
    /// the Lua rules after every move and with `validate --score` at the start and the end; a
    /// short run of it.
    @Test func theSwiftYardstickAgreesWithTheINRC2Rules() throws {
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let shiftbench = folder.appendingPathComponent("shiftbench").path
        try #require(FileManager.default.isExecutableFile(atPath: shiftbench), "build shiftbench first (swift build --build-tests builds it)")
        let result = try runProgram("/usr/bin/env", ["-C", repositoryRoot, shiftbench, "solve-model", "--moves", "300", "--runs", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("| Swift |"))
    }
}
