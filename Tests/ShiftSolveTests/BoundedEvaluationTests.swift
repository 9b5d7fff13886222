import Foundation
import ShiftCore
import ShiftRules
import Testing
import TestSupport
@testable import ShiftSolve

/// Annealing's bounded evaluation (`growth`) is a fast path of the whole one: it gives up only on
/// moves annealing would refuse at that threshold, scores every other move as the whole
/// evaluation does, and so leaves the search's course as it was.
@Suite struct BoundedEvaluationTests {
    /// A ward solved to no errors, re-planned whole: annealing's ground.
    private func annealingGround(_ rules: RuleEngine, seed: UInt64) throws -> (SolveProblem, RandomWard) {
        let ward = try RandomWard(seed: seed, people: 9)
        let solved = try solve(ward.schedule, window: ward.window, engine: rules, seed: seed, moves: 1_500)
        try #require(solved.score.hard == 0)
        return (try SolveProblem(schedule: solved.schedule, window: ward.window, replan: true, seed: seed), ward)
    }

    /// A random walk of `steps` moves from `state`: each move is evaluated whole and bounded at
    /// `growth(step)`, handed to `check` (the whole candidate, the bounded one or nil, whether the
    /// move adds an error, the roster before it), and kept when `keeps` says so.
    private func walk(
        _ evaluator: Evaluator, from start: SearchState, problem: SolveProblem, seed: UInt64, steps: Int,
        growth: (Int) -> Double = { _ in 0 }, keeps: (Candidate, Bool, SearchState) -> Bool,
        check: (_ step: Int, _ whole: Candidate, _ bounded: Candidate?, _ gains: Bool, _ before: SearchState) -> Void
    ) throws {
        var state = start
        let generator = MoveGenerator(problem: problem)
        var random = SeededGenerator(seed: seed)
        for step in 0..<steps {
            guard let changes = generator.next(state, &random, occupancy: evaluator.holdings(of: state)) else { continue }
            let whole = try evaluator.evaluate(state, changes)
            let gains = evaluator.addsErrors(whole, to: state)
            check(step, whole, try evaluator.evaluateRefusingNewErrors(state, changes, growth: growth(step)), gains, state)
            if keeps(whole, gains, state) { evaluator.commit(whole, to: &state) }
        }
    }

    /// Every move of a random walk, evaluated whole and bounded at thresholds from none to
    /// generous: the bounded one gives up only on moves annealing refuses, and scores the others
    /// exactly; some of those it gives up on have no new error (the bound, not the error limit).
    @Test(arguments: [7, 8] as [UInt64]) func itGivesUpOnlyOnMovesAnnealingRefuses(seed: UInt64) throws {
        let rules = try engine()
        let (problem, _) = try annealingGround(rules, seed: seed)
        let evaluator = try Evaluator(engine: rules, problem: problem, changePenalty: 0.5)
        let (state, _) = try evaluator.initialState()
        let growths: [Double] = [0, 1, 3, 10, 30]
        var (bounded, scored) = (0, 0)
        try walk(evaluator, from: state, problem: problem, seed: seed, steps: 400, growth: { growths[$0 % 5] },
                 keeps: { whole, _, _ in whole.score.hard == 0 }) { step, whole, fast, gains, state in
            let accepted = !gains && Cooling.accepts(whole.score, over: state.score, threshold: growths[step % 5])
            if let fast {
                #expect(fast.score == whole.score)
                scored += 1
            } else {
                #expect(!accepted, "a move annealing keeps was given up")
                if whole.score.hard <= state.score.hard, !gains { bounded += 1 }
            }
        }
        #expect(evaluator.validator.sawRewards == false)
        #expect(bounded > 0 && scored > 0)
    }

    /// On a roster with errors, a move that takes one away is kept whatever its penalties, so the
    /// bound cuts none of those short, even at a threshold of nothing.
    @Test func aMoveThatTakesAnErrorAwayIsNeverCutShort() throws {
        let rules = try engine()
        // The first ward whose roster as given has errors.
        var ground: (Evaluator, SearchState, SolveProblem)?
        for seed in 1...40 as ClosedRange<UInt64> where ground == nil {
            let ward = try RandomWard(seed: seed, people: 9)
            let problem = try SolveProblem(schedule: ward.schedule, window: ward.window, replan: true, seed: seed)
            let evaluator = try Evaluator(engine: rules, problem: problem, changePenalty: 0)
            let (state, _) = try evaluator.initialState()
            if state.score.hard > 0 { ground = (evaluator, state, problem) }
        }
        guard let ground else { Issue.record("no ward with errors"); return }
        let (evaluator, state, problem) = ground
        var fewer = 0
        // Wander among rosters with as many errors, so that some moves keep taking one away.
        try walk(evaluator, from: state, problem: problem, seed: 11, steps: 400,
                 keeps: { whole, gains, state in !gains && whole.score.hard == state.score.hard }) { _, whole, fast, gains, state in
            if !gains, whole.score.hard < state.score.hard { fewer += 1 }
            if let fast {
                #expect(fast.score == whole.score)
            } else {
                #expect(gains || !Cooling.accepts(whole.score, over: state.score, threshold: 0), "a move annealing keeps was given up")
            }
        }
        #expect(fewer > 0)
    }

    /// Two workers from the same roster and seed, one bounding its evaluations and one not, keep
    /// the same moves: the same roster, score and best after hundreds of moves.
    @Test func aBoundedSearchTakesTheSameCourse() throws {
        let rules = try engine()
        let (problem, _) = try annealingGround(rules, seed: 7)
        let generator = MoveGenerator(problem: problem)
        var workers: [Worker] = []
        for bounds in [true, false] {
            let evaluator = try Evaluator(engine: rules, problem: problem, changePenalty: 0)
            let (state, _) = try evaluator.initialState()
            try #require(state.score.hard == 0)
            let worker = Worker(evaluator, state, seed: 3, history: 1)
            worker.temperature = 4
            worker.boundsEvaluations = bounds
            try worker.search(moves: 600, generator: generator, shouldStop: { false })
            workers.append(worker)
        }
        #expect(workers[0].state.assignment == workers[1].state.assignment)
        #expect(workers[0].state.score == workers[1].state.score)
        #expect(workers[0].best.score == workers[1].best.score)
        #expect(workers[0].state.score != (try Evaluator(engine: rules, problem: problem, changePenalty: 0).initialState().state.score),
                "the search moved")
    }

    /// A rule that rewards (a negative penalty) could take back more than the touched scopes
    /// held: once the validator has seen a reward, the penalties bound no evaluation.
    @Test func aRewardSwitchesTheBoundOff() throws {
        let folder = try RuleFolder(["monday_bonus.lua": """
            return rule {
              id = "monday_bonus",
              summary = "A Monday worked earns a bonus.",
              severity = "penalty",
              validate_person = function(person, shifts, schedule, report)
                for i = 1, shifts.n do
                  if cal.weekday(shifts.dates[i]) == 1 then
                    report{ message = "Monday bonus", penalty = -7, shift = shifts[i] }
                  end
                end
              end,
            }
            """])
        let rules = try engine([stockRules, folder.path])
        let (problem, _) = try annealingGround(rules, seed: 7)
        let evaluator = try Evaluator(engine: rules, problem: problem, changePenalty: 0)
        let (state, _) = try evaluator.initialState()
        try #require(evaluator.validator.sawRewards, "the ward's solved roster has someone on a Monday")
        var checked = 0
        try walk(evaluator, from: state, problem: problem, seed: 5, steps: 300,
                 keeps: { whole, _, _ in whole.score.hard == 0 }) { _, whole, fast, gains, state in
            if fast == nil {
                #expect(gains || whole.score.warnings > state.score.warnings)
            } else {
                #expect(fast?.score == whole.score)
            }
            checked += 1
        }
        #expect(checked > 100)
    }
}
