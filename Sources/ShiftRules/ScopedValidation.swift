import Foundation
import ShiftCore

/// The parts of `validate` one scope at a time, for a search that changes a few people's shifts
/// on a few days and must know what the whole-schedule check would say after each change.
///
/// `validate` is, finding for finding, the union of:
/// - each person's person phases (`validate_person`), which depend on that person's shifts only;
/// - each planning day's day phases (`validate_day`) and demand phases (`validate_demand`), which
///   depend on the shifts of that day only;
/// - the rest: `check` over every shift for rules without a person phase, and every `validate`.
/// A change to some people's shifts on some days therefore needs only those people, those days
/// and the rest evaluated again. The rest has no scope, so it is evaluated whole every time:
/// `unscopedRules` names the rules that put something in it.
///
/// Each validator owns a Lua state of its own (made with the engine's configuration): use one per
/// thread.
package final class ScopedValidator {
    private let state: EngineState

    package init(_ engine: RuleEngine) throws {
        state = try EngineState(engine.configuration)
    }

    /// The enabled rules evaluated whole on every call that asks for the rest: those with a
    /// `validate` function, or a shift `check` and no person phase.
    package var unscopedRules: [String] {
        let perShift = Set(state.perShiftRules(only: nil).map(\.id))
        return state.rules.filter { rule in
            rule.info.enabled && (perShift.contains(rule.id) || rule.validate != nil)
        }.map(\.id)
    }

    /// Whether any enabled rule has a day or demand phase.
    package var hasDayPhases: Bool { !state.dayPhaseRules(only: nil).isEmpty || !state.demandPhaseRules(only: nil).isEmpty }

    /// What a scoped evaluation found: per person and per day in the order asked, and the rest.
    package struct Findings {
        package var people: [[Violation]]
        package var days: [[Violation]]
        package var rest: [Violation]?
    }

    /// The findings of `people`'s person phases, of `days`' day phases and, with `rest`, of the
    /// unscoped part, all on `schedule`.
    package func evaluate(_ schedule: Schedule, people: [PersonID], days: [LocalDate], rest: Bool) throws -> Findings {
        try state.scoped(schedule, people: people, days: days, rest: rest)
    }
}

extension EngineState {
    func scoped(_ schedule: Schedule, people: [PersonID], days: [LocalDate], rest: Bool) throws -> ScopedValidator.Findings {
        try evaluating(schedule) {
            var findings = ScopedValidator.Findings(people: [], days: [], rest: nil)
            let personRules = personPhaseRules(only: nil)
            for person in people {
                let start = collectedCount
                let group = PersonGroup(people: [person], shifts: schedule.shiftCount(of: person) + 1)
                try checkPeople(schedule, rules: personRules, groups: [group][...])
                findings.people.append(collected(since: start))
            }
            let dayRules = dayPhaseRules(only: nil)
            let demandRules = demandPhaseRules(only: nil)
            for day in days {
                let start = collectedCount
                try checkDays(schedule, rules: dayRules, days: [day][...])
                try checkDemand(schedule, rules: demandRules, days: [day][...])
                findings.days.append(collected(since: start))
            }
            if rest {
                let start = collectedCount
                try checkEachShift(schedule, only: nil, slice: nil)
                let perShift = collectedCount
                try wholeSchedulePhase(schedule, only: nil)
                let all = collected(since: start)
                let parts = Self.deduplicated([Array(all[..<(perShift - start)]), Array(all[(perShift - start)...])])
                findings.rest = parts[0] + parts[1]
            }
            return findings
        }
    }
}
