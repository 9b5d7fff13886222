import Foundation
import ShiftCore
import ShiftRules
import Synchronization

/// How `Solver` searches.
public struct SolveOptions: Sendable {
    /// Stop after this long (seconds) and keep the best roster found.
    public var timeLimit: Double = 30
    public var seed: UInt64 = 1
    /// Independent searches side by side, sharing the best roster between rounds.
    public var workers: Int = max(1, ProcessInfo.processInfo.activeProcessorCount)
    /// Stop after this many moves per worker (with a seed: the same roster on every run).
    public var moveLimit: Int?
    /// Stop when the best roster has not improved for this many moves per worker; nil picks
    /// one from the problem's size. Only before the search anneals (`Cooling`).
    public var patience: Int?
    /// What each assignment changed from the schedule as it was costs (`--replan`).
    public var changePenalty: Double = 0
    /// Moves per worker in a round: after each, the best roster so far is kept.
    public var roundMoves = 1_000
    /// Rounds between two restarts of the worker whose roster is worst from the best one. Measured
    /// on INRC-II (two workers, n030w4_1_6-2-9-1, n060w4_1_6-1-1-5, n100w4_0_1-1-0-8 and
    /// n120w4_1_4-6-2-6): at 60 s (seeds 1–6) every 20th round costs 84,890 in all against 89,370
    /// after every round (−5.0 %), and every 5th, 60th and 100th are about even with every 20th;
    /// at 300 s (`--overstaff 2`, seeds 1–3, two solves side by side) every 100th costs 28,975
    /// against 29,910 for every 20th (−3.1 %, lower on 8 of 12): the longer the search, the
    /// longer the workers gain from searching apart before the worse one follows the best.
    public var restartRounds = 100
    /// The late acceptance list's length; nil picks one from the moves the search can expect to
    /// make (`--moves`, or the construction's pace over the time left).
    public var history: Int?
    /// Annealing abandons a move's evaluation once its penalties are sure to grow past the
    /// threshold drawn for it (`Evaluator.evaluateRefusingNewErrors(_:_:peopleOnly:growth:)`):
    /// the same search, faster. Off only to compare the two.
    public var boundedEvaluation = true

    public init() {}
}

/// Stops a running solve from another thread (Ctrl-C): the best roster so far is kept.
public final class SolveControl: Sendable {
    private let flag = Atomic<Bool>(false)
    public init() {}
    public func stop() { flag.store(true, ordering: .relaxed) }
    public var isStopped: Bool { flag.load(ordering: .relaxed) }
}

/// A look at a running solve.
public struct SolveProgress: Sendable {
    public enum Phase: String, Sendable { case construction, search }
    public let phase: Phase
    public let elapsed: Double
    public let best: SolveScore
    /// Moves evaluated so far, over all workers.
    public let moves: Int
    public let movesPerSecond: Double
}

/// Why a solve stopped.
public enum SolveStop: String, Sendable, Codable {
    case timeLimit = "time limit"
    case interrupted
    case moveLimit = "move limit"
    case converged = "no improvement"
    /// Nothing left to improve: no finding, no open shift (only fewer new shifts could be better).
    case optimal
    case nothingToSolve = "nothing to solve"
}

/// A slot the best roster leaves below its demand's minimum, or an open shift left open, and
/// the rules that refused the best candidates for it.
public struct UnfilledSlot: Sendable {
    public let slot: SolveProblem.Slot
    /// The best candidates (at most three), each with the rules whose errors or warnings their
    /// assignment would add.
    public let candidates: [(person: PersonID, rules: [String])]
}

/// What a solve found.
public struct SolveResult: Sendable {
    public let problem: SolveProblem
    /// Per slot, its person in the best roster.
    public let assignment: [PersonID?]
    /// The best roster.
    public let schedule: Schedule
    public let score: SolveScore
    /// The score of the schedule before the solve.
    public let initialScore: SolveScore
    public let stop: SolveStop
    public let moves: Int
    public let elapsed: Double
    public let workers: Int
    /// Rules evaluated whole on every move (no person or day phase): they slow the search.
    public let unscopedRules: [String]
    public let unfilled: [UnfilledSlot]
}

/// Makes a roster: fills the problem's slots so that the rules find as little as possible.
///
/// The rules are the only model. A construction gives each slot, in date order, the candidate
/// whose assignment scores best (or leaves it empty when nobody improves the roster); then a
/// local search tries random moves, each evaluated by running again only the person and day
/// phases of what it touched: late acceptance (Burke and Bykov) until it has seen what its
/// worsening moves cost on a roster without errors, then simulated annealing cooled over the
/// time or moves left (`Cooling`), its evaluations abandoned once a move is sure to be refused.
/// With several workers, each searches on its own Lua state from its own seed; after every
/// round of moves the best roster so far is kept, and after every `restartRounds` rounds the
/// worst worker restarts from it.
public struct Solver: Sendable {
    let engine: RuleEngine
    let problem: SolveProblem
    let options: SolveOptions

    public init(engine: RuleEngine, problem: SolveProblem, options: SolveOptions) {
        self.engine = engine
        self.problem = problem
        self.options = options
    }

    public func solve(control: SolveControl = SolveControl(), progress: @escaping @Sendable (SolveProgress) -> Void = { _ in }) throws -> SolveResult {
        let started = ContinuousClock.now
        @Sendable func elapsed() -> Double {
            let duration = ContinuousClock.now - started
            return Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
        }
        let primary = try Evaluator(engine: engine, problem: problem, changePenalty: options.changePenalty)
        let (initial, _) = try primary.initialState()
        guard !problem.slots.isEmpty else {
            return try result(initial, initial: initial.score, evaluator: primary, stop: .nothingToSolve, moves: 0, elapsed: elapsed(), workers: 0)
        }
        let deadline = started + .milliseconds(Int64(options.timeLimit * 1000))
        @Sendable func shouldStop() -> SolveStop? {
            if control.isStopped { return .interrupted }
            if ContinuousClock.now >= deadline { return .timeLimit }
            return nil
        }

        // Who suits which kind of slot, asked of the rules once.
        var probed = MoveGenerator(problem: problem)
        probed.fit = try SlotFit(probing: initial, primary, kinds: probed.slotKind, slotDay: probed.slotDay)
        let generator = probed

        // Each worker builds a roster of its own (its own candidate draws), side by side.
        let count = max(1, options.workers)
        var evaluators = [primary]
        for _ in 1..<count { evaluators.append(try Evaluator(engine: engine, problem: problem, changePenalty: options.changePenalty)) }
        let built = Construction(evaluators, initial, generator: generator)
        let failure = Mutex<(any Error)?>(nil)
        Self.inParallel(count) { index in
            do {
                try built.run(index, solver: self, shouldStop: shouldStop, progress: index != 0 ? nil : { best, moves in
                    progress(SolveProgress(phase: .construction, elapsed: elapsed(), best: best, moves: moves * count,
                                           movesPerSecond: Double(moves * count) / max(elapsed(), 1e-9)))
                })
            } catch {
                failure.withLock { if $0 == nil { $0 = error } }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        let constructionMoves = built.moves.reduce(0, +)
        let first = built.states.indices.min { (built.states[$0].score, $0) < (built.states[$1].score, $1) }!
        if let stop = built.stops.compactMap({ $0 }).first {
            return try result(built.states[first], initial: initial.score, evaluator: primary, stop: stop, moves: constructionMoves,
                          elapsed: elapsed(), workers: count)
        }
        // The late acceptance list's length, from the moves each worker can expect to make: a long
        // list explores more but converges later, and the search must converge within its limit.
        let expected: Double
        if let limit = options.moveLimit {
            expected = Double(limit)
        } else {
            let rate = Double(built.moves.max() ?? 0) / max(elapsed(), 1e-3)
            expected = rate * max(0, options.timeLimit - elapsed())
        }
        let history = options.history ?? Self.historyLength(expectedMoves: expected)
        var workers: [Worker] = []
        for index in 0..<count {
            let worker = Worker(evaluators[index], built.states[index], seed: options.seed &+ UInt64(index) &* 0x9E37_79B9,
                                history: history)
            worker.boundsEvaluations = options.boundedEvaluation
            workers.append(worker)
        }
        var best = built.states[first]
        var stop: SolveStop = .timeLimit
        let patience = options.patience ?? max(10_000, 50 * problem.slots.count)
        var sinceImprovement = 0
        var roundsDone = 0
        var movesPerWorker = 0
        var cooling: Cooling?
        var coolingFrom = (seconds: 0.0, moves: 0)
        let box = WorkerList(workers)
        let searchStarted = elapsed()
        while true {
            if let reason = shouldStop() {
                stop = reason
                break
            }
            var round = options.roundMoves
            if let limit = options.moveLimit { round = min(round, limit - movesPerWorker) }
            if round <= 0 {
                stop = .moveLimit
                break
            }
            let roundLength = round
            Self.inParallel(count) { index in
                do {
                    try box.workers[index].search(moves: roundLength, generator: generator, shouldStop: { shouldStop() != nil })
                } catch {
                    failure.withLock { if $0 == nil { $0 = error } }
                }
            }
            if let error = failure.withLock({ $0 }) { throw error }
            // The construction's pace is a rough guess at the search's (its evaluations stop
            // early, or are of people alone): after the first round the list's length is set
            // again from the search's own pace over the time left.
            if movesPerWorker == 0, options.history == nil, options.moveLimit == nil {
                let rate = Double(round) / max(elapsed() - searchStarted, 1e-3)
                let length = Self.historyLength(expectedMoves: rate * max(0, options.timeLimit - elapsed()))
                if length != history {
                    for worker in box.workers { worker.resetHistory(length: length) }
                }
            }
            movesPerWorker += round
            if cooling == nil, let measured = Cooling(worsenings: box.workers.flatMap(\.worsenings)) {
                cooling = measured
                coolingFrom = (elapsed(), movesPerWorker)
            }
            if let cooling {
                let done: Double
                if let limit = options.moveLimit {
                    done = Double(movesPerWorker - coolingFrom.moves) / Double(max(1, limit - coolingFrom.moves))
                } else {
                    done = (elapsed() - coolingFrom.seconds) / max(1e-3, options.timeLimit - coolingFrom.seconds)
                }
                for worker in box.workers { worker.temperature = cooling.temperature(done: done) }
            }
            let leader = box.workers.indices.min { (box.workers[$0].best.score, $0) < (box.workers[$1].best.score, $1) }!
            if box.workers[leader].best.score < best.score {
                best = box.workers[leader].best
                sinceImprovement = 0
            } else {
                sinceImprovement += round
            }
            roundsDone += 1
            if count > 1, roundsDone % max(1, options.restartRounds) == 0 {
                let worst = box.workers.indices.max { (box.workers[$0].state.score, $0) < (box.workers[$1].state.score, $1) }!
                if worst != leader { box.workers[worst].restart(from: best) }
            }
            let moves = constructionMoves + box.workers.reduce(0) { $0 + $1.moves }
            progress(SolveProgress(phase: .search, elapsed: elapsed(), best: best.score, moves: moves,
                                   movesPerSecond: Double(moves) / max(elapsed(), 1e-9)))
            if sinceImprovement >= patience, cooling == nil {
                stop = .converged
                break
            }
            if best.score.isPerfect {
                stop = .optimal
                break
            }
        }
        // A worker stopped mid-round may hold a better roster than the last round's leader.
        for worker in box.workers where worker.best.score < best.score { best = worker.best }
        let moves = constructionMoves + box.workers.reduce(0) { $0 + $1.moves }
        return try result(best, initial: initial.score, evaluator: primary, stop: stop, moves: moves, elapsed: elapsed(), workers: count)
    }

    /// The late acceptance list's length for a search of about `expectedMoves` moves per worker:
    /// one for every 2,000 moves, between 10 and 5,000. Measured on INRC-II (n030w4, n050w4, one
    /// worker, 40,000 moves): a list of 20 ends 10–45 % cheaper than 150, 500 or 1,500, which
    /// are still wandering when the moves run out.
    static func historyLength(expectedMoves: Double) -> Int {
        Int(min(5_000, max(10, expectedMoves / 2_000)))
    }

    /// Runs `body(0..<count)` side by side: index 0 on this thread, the others on threads of
    /// their own (not the shared pools, which a caller in a task may have to itself).
    static func inParallel(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let done = DispatchSemaphore(value: 0)
        for index in 1..<max(1, count) {
            let thread = Thread {
                body(index)
                done.signal()
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
        body(0)
        for _ in 1..<max(1, count) { done.wait() }
    }

    private func result(
        _ state: SearchState, initial: SolveScore, evaluator: Evaluator, stop: SolveStop, moves: Int, elapsed: Double, workers: Int
    ) throws -> SolveResult {
        let assignment = state.assignment.map { $0 >= 0 ? problem.people[$0] : nil }
        let unfilled = try explainUnfilled(state, evaluator)
        return SolveResult(
            problem: problem, assignment: assignment, schedule: state.schedule, score: state.score, initialScore: initial, stop: stop,
            moves: moves, elapsed: elapsed, workers: workers, unscopedRules: evaluator.validator.unscopedRules, unfilled: unfilled)
    }

    /// Open shifts left open, and demand slots left empty while their demand is below its
    /// minimum, each with the rules that refuse its best candidates.
    private func explainUnfilled(_ state: SearchState, _ evaluator: Evaluator) throws -> [UnfilledSlot] {
        let deadline = ContinuousClock.now + .milliseconds(Int64(1000 * min(10, max(1, options.timeLimit / 10))))
        var filled: [SolveProblem.SlotKey: Int] = [:]
        var minimum: [SolveProblem.SlotKey: Int] = [:]
        var standing: [SolveProblem.SlotKey: Int] = [:]
        for day in problem.days {
            for item in problem.schedule.demand(on: day) {
                let key = SolveProblem.SlotKey(type: item.shiftTypeID, skill: item.skill, date: day)
                minimum[key] = max(minimum[key] ?? 0, item.minimum)
            }
        }
        for shift in state.schedule.shifts(ShiftQuery(from: problem.window.lowerBound, to: problem.window.upperBound)) where shift.personID != nil {
            let skill = shift.attributes["skill"]?.stringValue
            standing[SolveProblem.SlotKey(type: shift.shiftTypeID, skill: skill, date: shift.date), default: 0] += 1
            if skill != nil { standing[SolveProblem.SlotKey(type: shift.shiftTypeID, skill: nil, date: shift.date), default: 0] += 1 }
        }
        var unfilled: [UnfilledSlot] = []
        for (index, slot) in problem.slots.enumerated() where state.assignment[index] < 0 {
            let key = SolveProblem.SlotKey(type: slot.shift.shiftTypeID, skill: slot.skill, date: slot.date)
            switch slot.origin {
            case .open, .assigned: break
            case .demand:
                // Empty slots beyond the minimum are the search's choice, not a shortfall.
                guard (standing[key] ?? 0) + filled[key, default: 0] < minimum[key] ?? 0 else { continue }
                filled[key, default: 0] += 1
            }
            // Explaining costs an evaluation or two per candidate: a sample of them per slot, and
            // slots past the budget are listed without candidates.
            guard ContinuousClock.now < deadline else {
                unfilled.append(UnfilledSlot(slot: slot, candidates: []))
                continue
            }
            var people = Array(problem.people.indices)
            if people.count > Self.explainedCandidates {
                var random = SeededGenerator(seed: options.seed &+ UInt64(index))
                for i in 0..<Self.explainedCandidates { people.swapAt(i, i + random.below(people.count - i)) }
                people.removeLast(people.count - Self.explainedCandidates)
            }
            var ranked: [(score: SolveScore, person: Int, rules: [String])] = []
            for person in people {
                let candidate = try evaluator.evaluate(state, [(index, person)], keepFindings: true)
                let before = try evaluator.validator.evaluate(
                    state.schedule, people: candidate.people.map { problem.people[$0] }, days: candidate.days.map { problem.days[$0] },
                    rest: evaluator.hasRest)
                let found = before.people.flatMap { $0 } + before.days.flatMap { $0 } + (before.rest ?? [])
                let added = Self.objections(candidate.findings).subtracting(Self.objections(found))
                ranked.append((candidate.score, person, Set(added.map(\.rule)).sorted()))
            }
            ranked.sort { ($0.score, $0.person) < ($1.score, $1.person) }
            unfilled.append(UnfilledSlot(slot: slot, candidates: ranked.prefix(3).map { (problem.people[$0.person], $0.rules) }))
        }
        return unfilled
    }

    /// Candidates tried per unfilled slot when there are more people.
    static let explainedCandidates = 16

    /// Errors and warnings as (rule, how many of that rule so far): a rule that finds one more
    /// after a change shows up as a new pair.
    private static func objections(_ findings: [Violation]) -> Set<Objection> {
        var seen: [String: Int] = [:]
        var set: Set<Objection> = []
        for finding in findings where finding.severity != .penalty {
            seen[finding.ruleID, default: 0] += 1
            set.insert(Objection(rule: finding.ruleID, number: seen[finding.ruleID]!))
        }
        return set
    }

    private struct Objection: Hashable {
        let rule: String
        let number: Int
    }
}

/// One search of a solve: its Lua state, its roster, its late acceptance list and its seed.
final class Worker {
    let evaluator: Evaluator
    var state: SearchState
    var best: SearchState
    var random: SeededGenerator
    var history: [SolveScore]
    var step = 0
    var moves = 0
    /// Simulated annealing's temperature, once the solver has set one; nil: late acceptance.
    var temperature: Double?
    /// Whether annealing abandons an evaluation once the move is sure to be refused.
    var boundsEvaluations = true
    /// What the worsening moves evaluated on a roster without errors cost (at most
    /// `Cooling.samples`), for the solver to choose the temperatures from.
    var worsenings: [Double] = []

    init(_ evaluator: Evaluator, _ state: SearchState, seed: UInt64, history: Int) {
        self.evaluator = evaluator
        self.state = state
        best = state
        random = SeededGenerator(seed: seed)
        self.history = [SolveScore](repeating: state.score, count: max(1, history))
    }

    /// A late acceptance list of `length` entries, each the roster as it is now.
    func resetHistory(length: Int) {
        history = [SolveScore](repeating: state.score, count: max(1, length))
        step = 0
    }

    func restart(from state: SearchState) {
        self.state = state
        best = state
        history = [SolveScore](repeating: state.score, count: history.count)
    }

    /// Late acceptance: a move is kept when it is no worse than the roster now or than the one
    /// `history.count` steps ago, and does not trade an error in one scope for one in another.
    /// With a temperature and a roster without errors, simulated annealing instead.
    func search(moves count: Int, generator: MoveGenerator, shouldStop: () -> Bool) throws {
        for _ in 0..<count {
            if shouldStop() { return }
            guard let changes = generator.next(state, &random, occupancy: evaluator.holdings(of: state)) else { continue }
            moves += 1
            if let temperature, state.score.hard == 0 {
                try anneal(changes, temperature: temperature)
                continue
            }
            let slot = step % history.count
            step += 1
            // Without errors now or in the list's entry, a roster with an error is refused: its
            // evaluation stops at the first person it gives one (the search goes on as if it had
            // been evaluated whole and refused).
            guard let candidate = state.score.hard == 0 && history[slot].hard == 0
                ? try evaluator.evaluateRefusingNewErrors(&state, changes) : try evaluator.evaluate(&state, changes) else {
                history[slot] = state.score
                continue
            }
            // An error moved from one scope to another (a gap filled by someone who lacks the skill)
            // is not progress, however much it saves in penalties.
            let trades = candidate.score.hard >= state.score.hard && evaluator.addsErrors(candidate, to: state)
            if worsenings.count < Cooling.samples, let cost = Cooling.worsening(candidate.score, from: state.score) { worsenings.append(cost) }
            if !trades, candidate.score <= state.score || candidate.score <= history[slot] {
                let level = (state.score.hard, state.score.warnings, state.score.openShifts)
                evaluator.commit(candidate, to: &state)
                if state.score < best.score { best = state }
                // A roster with fewer errors (or warnings, or open shifts) than before starts the
                // list afresh: its entries from the level above would accept any roster of this
                // one, and the search would wander off.
                if (state.score.hard, state.score.warnings, state.score.openShifts) < level {
                    for i in history.indices { history[i] = state.score }
                }
            }
            history[slot] = state.score
        }
    }

    /// Simulated annealing on a roster without errors: a move is kept when it has no more
    /// errors, warnings or open shifts, and its penalties grow by at most a threshold drawn
    /// from the temperature (−T·ln u: a growth of d is kept with probability e^(−d/T)). The
    /// threshold is drawn before the evaluation, which stops at the first new error as for
    /// late acceptance.
    private func anneal(_ changes: [(slot: Int, person: Int)], temperature: Double) throws {
        let threshold = -temperature * Foundation.log(max(random.unit(), .leastNormalMagnitude))
        guard let candidate = try evaluator.evaluateRefusingNewErrors(&state, changes, growth: boundsEvaluations ? threshold : nil) else { return }
        guard Cooling.accepts(candidate.score, over: state.score, threshold: threshold) else { return }
        evaluator.commit(candidate, to: &state)
        if state.score < best.score { best = state }
    }
}

/// Simulated annealing's temperatures, chosen from what worsening moves cost on the problem at
/// hand: the solver knows no rule's penalty scale, so it measures it (the moves late acceptance
/// evaluates before) and cools geometrically from `start` to `end` over the time or moves left.
///
/// `start` is the tenth percentile of the worsenings seen, `end` a fifth of the smallest, so the
/// search begins by taking a small worsening about one time in three and ends taking only the
/// smallest, and those seldom (e^−5). Measured on INRC-II (seed 1, two workers), where the
/// tenth percentile is 25–30: fixed starts of 20, 50 and 100 (about the tenth percentile, the
/// quartile and the median) at 60 s cost 4,695, 5,545 and 6,355 on n100w4 and 2,540, 2,555 and
/// 2,625 on n030w4; at 300 s, n030w4, n060w4, n100w4 and n120w4 cost 2,245, 4,035, 3,470 and
/// 4,170 against late acceptance's 2,580, 3,960, 4,195 and 4,475 (8.5 % less in all).
struct Cooling: Equatable {
    let start: Double
    let end: Double

    /// Worsenings kept per worker for the choice.
    static let samples = 1_000
    /// Fewer than this over all workers: no choice yet.
    static let fewest = 50

    init(start: Double, end: Double) {
        self.start = start
        self.end = end
    }

    /// Nil with fewer than `fewest` worsenings.
    init?(worsenings: [Double]) {
        let costs = worsenings.filter { $0 > 0 && $0.isFinite }.sorted()
        guard costs.count >= Self.fewest else { return nil }
        start = costs[costs.count / 10]
        end = costs[0] / 5
    }

    /// The temperature after `done` (0 to 1) of the time or moves the cooling has.
    func temperature(done: Double) -> Double {
        start * Foundation.pow(end / start, min(1, max(0, done)))
    }

    /// What a move from `score` to `next` adds to the penalties, when it adds something and
    /// changes nothing above them (errors, warnings, open shifts), both without errors.
    static func worsening(_ next: SolveScore, from score: SolveScore) -> Double? {
        guard score.hard == 0, next.hard == 0, next.warnings == score.warnings, next.openShifts == score.openShifts,
              next.soft > score.soft else { return nil }
        return next.soft - score.soft
    }

    /// Whether annealing keeps `next` over `score` at `threshold`: fewer errors, warnings or
    /// open shifts always, more never, else penalties grown by at most the threshold.
    static func accepts(_ next: SolveScore, over score: SolveScore, threshold: Double) -> Bool {
        let level = (next.hard, next.warnings, next.openShifts), was = (score.hard, score.warnings, score.openShifts)
        if level != was { return level < was }
        return next.soft - score.soft <= threshold
    }
}

/// The workers of a solve, handed to the threads of one round.
///
/// `@unchecked Sendable`: during `concurrentPerform` each worker is used only by the iteration
/// with its index, and between rounds only by the solving thread, so no worker is ever touched by
/// two threads at once.
final class WorkerList: @unchecked Sendable {
    let workers: [Worker]
    init(_ workers: [Worker]) { self.workers = workers }
}
