import Foundation
import ShiftCore
import Testing
@testable import ShiftSolve

@Suite struct CoolingTests {
    /// The temperatures come from the worsenings measured: the tenth percentile to start, a fifth
    /// of the smallest to end; too few measured, no choice yet.
    @Test func theTemperaturesComeFromTheWorseningsSeen() throws {
        let costs = (1...100).map { Double($0 * 5) }.shuffled()
        let cooling = try #require(Cooling(worsenings: costs + [0, -10, .infinity]))
        #expect(cooling == Cooling(start: 55, end: 1))
        #expect(Cooling(worsenings: Array(costs.prefix(Cooling.fewest - 1))) == nil)
        #expect(Cooling(worsenings: [Double](repeating: 2, count: 60)) == Cooling(start: 2, end: 0.4))
    }

    @Test func itCoolsGeometricallyFromStartToEnd() {
        let cooling = Cooling(start: 40, end: 0.4)
        #expect(abs(cooling.temperature(done: 0) - 40) < 1e-9)
        #expect(abs(cooling.temperature(done: 0.5) - 4) < 1e-9)
        #expect(abs(cooling.temperature(done: 1) - 0.4) < 1e-9)
        #expect(abs(cooling.temperature(done: 3) - 0.4) < 1e-9, "past its end it stays at the end")
        #expect(abs(cooling.temperature(done: -1) - 40) < 1e-9)
    }

    /// Annealing weighs penalties only among rosters with as many errors, warnings and open
    /// shifts: fewer always wins, more never does, whatever the threshold.
    @Test func onlyPenaltiesAreWeighedAgainstTheThreshold() {
        let now = SolveScore(hard: 0, warnings: 1, openShifts: 0, penalty: 100)
        #expect(Cooling.accepts(SolveScore(penalty: 500), over: now, threshold: 0), "one warning fewer")
        #expect(!Cooling.accepts(SolveScore(hard: 1, warnings: 1, penalty: 0), over: now, threshold: 1e12))
        #expect(!Cooling.accepts(SolveScore(warnings: 1, openShifts: 1, penalty: 0), over: now, threshold: 1e12))
        #expect(Cooling.accepts(SolveScore(warnings: 1, penalty: 130), over: now, threshold: 30))
        #expect(!Cooling.accepts(SolveScore(warnings: 1, penalty: 131), over: now, threshold: 30))
        #expect(Cooling.accepts(SolveScore(warnings: 1, penalty: 90), over: now, threshold: 0))
        #expect(Cooling.worsening(SolveScore(penalty: 130), from: SolveScore(penalty: 100)) == 30)
        #expect(Cooling.worsening(SolveScore(penalty: 90), from: SolveScore(penalty: 100)) == nil)
        #expect(Cooling.worsening(SolveScore(warnings: 1, penalty: 130), from: SolveScore(penalty: 100)) == nil)
        #expect(Cooling.worsening(SolveScore(hard: 1, penalty: 130), from: SolveScore(hard: 1, penalty: 100)) == nil)
    }

    /// Fractional penalties added and taken away leave a sum of none a rounding error off zero.
    @Test func aRosterWhosePenaltiesCancelOutIsPerfect() {
        let drifted = 7.8 + 2.6 - 7.8 - 2.6
        #expect(drifted != 0)
        #expect(SolveScore(penalty: drifted).isPerfect)
        #expect(!SolveScore(penalty: 0.01).isPerfect)
        #expect(!SolveScore(warnings: 1, penalty: drifted).isPerfect)
    }

    /// A worker with a temperature anneals on a roster without errors: hot, it keeps moves that
    /// cost more; cold, none; and at any temperature never one that brings an error.
    @Test func aWorkerAnnealsWithoutEverTakingAnError() throws {
        let rules = try engine()
        let ward = try RandomWard(seed: 7, people: 9)
        let solved = try solve(ward.schedule, window: ward.window, engine: rules, seed: 7, moves: 1_500)
        try #require(solved.score.hard == 0)
        let problem = try SolveProblem(schedule: solved.schedule, window: ward.window, replan: true, seed: 7)
        let evaluator = try Evaluator(engine: rules, problem: problem, changePenalty: 0)
        let generator = MoveGenerator(problem: problem)
        for (temperature, seed) in [(1e9, 1), (1e-9, 2)] as [(Double, UInt64)] {
            let (state, _) = try evaluator.initialState()
            try #require(state.score.hard == 0)
            let worker = Worker(evaluator, state, seed: seed, history: 1)
            worker.temperature = temperature
            var worse = 0
            for _ in 0..<300 {
                let before = worker.state.score
                try worker.search(moves: 1, generator: generator, shouldStop: { false })
                let after = worker.state.score
                #expect(after.hard == 0)
                if after.soft > before.soft { worse += 1 }
                #expect(worker.best.score <= after)
            }
            if temperature > 1 { #expect(worse > 0) } else { #expect(worse == 0) }
        }
    }
}
