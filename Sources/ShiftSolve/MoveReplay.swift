import Foundation
import ShiftCore
import ShiftRules

/// Moves scored one after another exactly as the search scores them (`Evaluator.evaluate`: the
/// touched people's person phases, the touched days' day and demand phases, the rest when a rule
/// has no scope), each one kept. For measuring the model's speed (`shiftbench solve-model`) and
/// for tests that compare another scorer with the rules move by move.
package final class MoveReplay {
    private let evaluator: Evaluator
    private var state: SearchState

    /// The problem's schedule as it is, every scope evaluated, on a Lua state of its own. Without
    /// `remembersPersonPhases`, every person phase a move touches is run (`ScopedValidator`);
    /// without `countsStaffingFromSlots`, each touched day's staffing is counted from the schedule
    /// (`SlotStaffing`).
    package init(engine: RuleEngine, problem: SolveProblem, remembersPersonPhases: Bool = true, countsStaffingFromSlots: Bool = true) throws {
        evaluator = try Evaluator(engine: engine, problem: problem, changePenalty: 0, remembersPersonPhases: remembersPersonPhases,
                                  countsStaffingFromSlots: countsStaffingFromSlots)
        state = try evaluator.initialState().state
    }

    /// Errors the rules find in the roster as it is now (a whole `validate` would find as many).
    package var hard: Int { state.total.hard }
    /// The rules' penalties now (`validate --score`'s soft penalty).
    package var penalty: Double { state.total.penalty }
    /// Per slot of the problem: the index of its person in `problem.people`, or -1.
    package var assignment: [Int] { state.assignment }
    /// Person-phase calls answered from memory and calls made so far.
    package var personPhaseCalls: (remembered: Int, made: Int) { evaluator.validator.personPhaseCalls }
    /// The roster as it is now.
    package var schedule: Schedule { state.schedule }

    /// Gives each slot of `changes` its person (an index in `problem.people`, -1 for nobody),
    /// scores the result incrementally and keeps it.
    package func apply(_ changes: [(slot: Int, person: Int)]) throws {
        let candidate = try evaluator.evaluate(&state, changes)
        evaluator.commit(candidate, to: &state)
    }
}
