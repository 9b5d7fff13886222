import ShiftCore

/// The construction of each worker's first roster, side by side.
///
/// `@unchecked Sendable`: during `inParallel` the thread of index i reads and writes only the
/// i-th evaluator, state, move count and stop; the solving thread reads them after all joined.
final class Construction: @unchecked Sendable {
    let evaluators: [Evaluator]
    var states: [SearchState]
    var moves: [Int]
    var stops: [SolveStop?]

    let generator: MoveGenerator

    init(_ evaluators: [Evaluator], _ initial: SearchState, generator: MoveGenerator) {
        self.evaluators = evaluators
        self.generator = generator
        states = Array(repeating: initial, count: evaluators.count)
        moves = Array(repeating: 0, count: evaluators.count)
        stops = Array(repeating: nil, count: evaluators.count)
    }

    func run(_ index: Int, solver: Solver, shouldStop: () -> SolveStop?, progress: ((SolveScore, Int) -> Void)?) throws {
        var state = states[index]
        var count = 0
        stops[index] = try solver.construct(
            &state, evaluators[index], generator: generator, seed: solver.options.seed &+ UInt64(index) &* 0x51_7CC1_B727_220A, &count,
            shouldStop: shouldStop, progress: progress)
        states[index] = state
        moves[index] = count
    }
}

extension MoveGenerator {
    /// The order in which the construction fills slots: by date, and within a date the kinds
    /// (shift type and skill) that fewest people suit first, so that people who suit a rare kind
    /// are not all taken by common ones before it (a head nurse on a plain nurse's slot).
    func constructionOrder(suited: [[Int]]) -> [Int] {
        slotDay.indices.sorted {
            (slotDay[$0], suited[slotKind[$0]].count, $0) < (slotDay[$1], suited[slotKind[$1]].count, $1)
        }
    }

    /// Moves to the front of `people` those who hold a slot of `slot`'s shift type on the day
    /// before it and none on its day, and returns how many: they would make a run in one shift
    /// type longer, which rules on runs want and which random draws on a large team seldom find.
    func continuingFirst(_ people: inout [Int], for slot: Int, occupancy: (Int, Int) -> [Int]) -> Int {
        let day = slotDay[slot]
        guard day > 0 else { return 0 }
        let type = slotType[slot]
        var front = 0
        for position in people.indices {
            let person = people[position]
            if occupancy(person, day).isEmpty, occupancy(person, day - 1).contains(where: { slotType[$0] == type }) {
                people.swapAt(front, position)
                front += 1
            }
        }
        return front
    }
}

extension Solver {
    /// Gives each empty slot the best of the candidates drawn for it (or nobody, when nobody
    /// improves the roster). Slots are taken by date, the kinds that fewest people suit first
    /// (`MoveGenerator.constructionOrder`). Candidates are people who suit the slot's kind
    /// (`SlotFit`): first every one who would go on with a run in the slot's shift type
    /// (`MoveGenerator.continuingFirst`), then others drawn at random until `enough` of them
    /// leave the fewest errors seen, or `draws` have been tried: where most people fit a slot a
    /// few draws do, where few do (skills, rest) the draws go on looking for them.
    func construct(
        _ state: inout SearchState, _ evaluator: Evaluator, generator: MoveGenerator, seed: UInt64, _ moves: inout Int,
        shouldStop: () -> SolveStop?, progress: ((SolveScore, Int) -> Void)?
    ) throws -> SolveStop? {
        var random = SeededGenerator(seed: seed ^ 0xC0FF_EE00)
        // Candidates for one slot differ only in who takes it, so they are ranked by their person
        // phases alone (the day's and the rest's parts would cost the same for each and, for
        // rules that do not look at who works, say the same). The best few are then evaluated
        // whole, and the first that improves the roster without an error of its own is taken.
        let ranking = evaluator.hasDays || evaluator.hasRest
        let enough = 4, draws = 48, probe = 12, whole = 3
        var lastReport = ContinuousClock.now
        let suited = generator.fit.suitedPeople
        for index in generator.constructionOrder(suited: suited) where state.assignment[index] < 0 {
            if let stop = shouldStop() { return stop }
            var order = suited[generator.slotKind[index]]
            let continuing = generator.continuingFirst(&order, for: index, occupancy: evaluator.holdings(of: state))
            var ranked: [Candidate] = []
            // The fewest errors a candidate left so far, and how many did: fewer than the slot
            // left empty means the slot is needed and these candidates fit it.
            var fewest = Int.max, atFewest = 0
            for drawn in 0..<min(continuing + draws, order.count) {
                // The continuing people in random order, then the others.
                let pool = drawn < continuing ? continuing : order.count
                order.swapAt(drawn, drawn + random.below(pool - drawn))
                moves += 1
                // A candidate that brings an error of its own is no better than nobody: the slot
                // stays empty for the search, rather than one error traded for another. Ranked on
                // people alone, its evaluation stops at that error, and it does not count among
                // the draws that found the fewest errors: the draws go on looking for one that fits.
                let hard: Int
                if ranking {
                    guard let candidate = try evaluator.evaluateRefusingNewErrors(&state, [(index, order[drawn])], peopleOnly: true) else {
                        continue
                    }
                    ranked.append(candidate)
                    hard = candidate.score.hard
                } else {
                    let candidate = try evaluator.evaluate(&state, [(index, order[drawn])])
                    if !evaluator.addsErrors(candidate, to: state) { ranked.append(candidate) }
                    hard = candidate.score.hard
                }
                if hard < fewest {
                    (fewest, atFewest) = (hard, 1)
                } else if hard == fewest {
                    atFewest += 1
                }
                // Ranked on people alone, no candidate can do better than adding no error. Every
                // continuing person is tried, and at least one other.
                let settled = ranking ? fewest <= state.score.hard : fewest < state.score.hard
                if drawn >= continuing, atFewest >= enough, settled || (fewest == state.score.hard && drawn + 1 >= probe) { break }
            }
            ranked.sort { $0.score < $1.score }
            var chosen: Candidate?
            if ranking {
                for best in ranked.prefix(whole) {
                    let candidate = try evaluator.evaluate(&state, best.changes)
                    moves += 1
                    if !evaluator.addsErrors(candidate, to: state), candidate.score < state.score {
                        chosen = candidate
                        break
                    }
                }
            } else if let best = ranked.first, best.score < state.score {
                chosen = best
            }
            if let chosen { evaluator.commit(chosen, to: &state) }
            if let progress, ContinuousClock.now - lastReport > .milliseconds(500) {
                progress(state.score, moves)
                lastReport = ContinuousClock.now
            }
        }
        return nil
    }
}
