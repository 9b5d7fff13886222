import Foundation
import ShiftCore
import ShiftRules

/// One roster during the search: who holds each slot, the schedule that makes, and the score of
/// every scope (person, day, the rest) so that a move re-evaluates only what it touched.
struct SearchState: Sendable {
    var schedule: Schedule
    /// Per slot: the index of its person in `problem.people`, or -1.
    var assignment: [Int]
    /// The slots each person holds on each window day (at person × days + day): an array, not a
    /// dictionary, since moves look up many people's days (measured: a dictionary's look-ups were
    /// most of the time moves took to draw).
    var occupancy: [[Int]]
    var personParts: [ScorePart]
    /// Per person, the window days their person phases' findings are dated on, with what each
    /// costs (`Spot`): where a move about that person is most likely to help.
    var personSpots: [[Spot]]
    /// The day phases' findings per window day.
    var dayParts: [ScorePart]
    /// The unscoped rules' findings (see `ScopedValidator`).
    var rest: ScorePart
    /// All the findings together, and the solver's own counts.
    var total: ScorePart
    var openShifts: Int
    var changed: Int
    var newShifts: Int
    var score: SolveScore
}

/// A window day one of a person's findings is dated on, and its weight: the finding's penalty,
/// or `Spot.errorWeight` for an error or a warning.
struct Spot: Sendable {
    let day: Int
    let weight: Double

    /// An error's or a warning's weight: more than any penalty a rule is likely to give, so a
    /// person's errors draw the moves before their penalties.
    static let errorWeight = 1_000.0

    /// The spots of `findings` inside a window of `days` days from `first`.
    static func of(_ findings: [Violation], first: LocalDate, days: Int) -> [Spot] {
        var spots: [Spot] = []
        for finding in findings {
            guard let date = finding.date else { continue }
            let day = first.days(to: date)
            guard day >= 0, day < days else { continue }
            spots.append(Spot(day: day, weight: finding.severity == .penalty ? max(0, finding.penalty ?? 1) : errorWeight))
        }
        return spots
    }
}

/// A change to some slots and what the rules say of the roster after it.
struct Candidate {
    var changes: [(slot: Int, person: Int)]
    /// The change as edits to the state's schedule (`commit` makes them).
    var edits: [Schedule.SearchEdit]
    var people: [Int]
    var personParts: [ScorePart]
    var personSpots: [[Spot]]
    var days: [Int]
    var dayParts: [ScorePart]
    var rest: ScorePart?
    var total: ScorePart
    var openShifts: Int
    var changed: Int
    var newShifts: Int
    var score: SolveScore
    /// The findings of the touched scopes, for explaining a refusal.
    var findings: [Violation]
}

/// Evaluates changes to a search state with one Lua state of its own.
final class Evaluator {
    let problem: SolveProblem
    let validator: ScopedValidator
    let changePenalty: Double
    let hasRest: Bool
    let hasDays: Bool
    /// Whether any rule has a day phase (`validate_day`), not only demand phases.
    let hasDayRules: Bool
    private let personIndex: [PersonID: Int]
    /// The touched days' staffing, counted from the slots (nil without day phases, or when
    /// `countsStaffingFromSlots` is off: then counted from each roster's schedule).
    private let staffing: SlotStaffing?

    init(
        engine: RuleEngine, problem: SolveProblem, changePenalty: Double, remembersPersonPhases: Bool = true,
        countsStaffingFromSlots: Bool = true
    ) throws {
        self.problem = problem
        validator = try ScopedValidator(engine, remembersPersonPhases: remembersPersonPhases)
        self.changePenalty = changePenalty
        hasRest = !validator.unscopedRules.isEmpty
        hasDays = validator.hasDayPhases
        hasDayRules = validator.hasDayRules
        personIndex = Dictionary(uniqueKeysWithValues: problem.people.enumerated().map { ($1, $0) })
        staffing = hasDays && countsStaffingFromSlots ? SlotStaffing(problem: problem) : nil
    }

    /// The state of the problem's schedule as it is: every scope evaluated.
    func initialState() throws -> (state: SearchState, fixed: ScorePart) {
        let schedule = problem.schedule
        var assignment = [Int](repeating: -1, count: problem.slots.count)
        var occupancy = [[Int]](repeating: [], count: problem.people.count * problem.days.count)
        var openShifts = 0
        for (index, slot) in problem.slots.enumerated() {
            if let person = slot.initial, let p = personIndex[person] {
                assignment[index] = p
                occupancy[key(p, dayIndex(slot.date))].append(index)
            } else if !slot.origin.isDemand {
                openShifts += 1
            }
        }
        let allDays = hasDays ? try schedule.planningDays() : []
        let findings = try validator.evaluate(schedule, people: problem.people, days: allDays, rest: hasRest)
        let personParts = findings.people.map(ScorePart.init)
        let personSpots = findings.people.map { Spot.of($0, first: problem.window.lowerBound, days: problem.days.count) }
        var dayParts = [ScorePart](repeating: ScorePart(), count: problem.days.count)
        var fixed = ScorePart()
        for (day, found) in zip(allDays, findings.days) {
            let offset = problem.window.lowerBound.days(to: day)
            if offset >= 0, offset < problem.days.count { dayParts[offset] = ScorePart(found) } else { fixed = fixed + ScorePart(found) }
        }
        let rest = ScorePart(findings.rest ?? [])
        let total = personParts.reduce(ScorePart(), +) + dayParts.reduce(ScorePart(), +) + rest + fixed
        var state = SearchState(
            schedule: schedule, assignment: assignment, occupancy: occupancy, personParts: personParts, personSpots: personSpots,
            dayParts: dayParts,
            rest: rest, total: total, openShifts: openShifts, changed: 0, newShifts: 0, score: SolveScore())
        state.score = score(total, openShifts: openShifts, changed: 0, newShifts: 0)
        return (state, fixed)
    }

    func key(_ person: Int, _ day: Int) -> Int { person * problem.days.count + day }

    /// The slots each person holds on each window day of `state`, as the moves ask for them:
    /// `holdings(person, day)`, empty when none.
    func holdings(of state: SearchState) -> (Int, Int) -> [Int] {
        let occupancy = state.occupancy
        return { [self] in occupancy[key($0, $1)] }
    }

    func dayIndex(_ date: LocalDate) -> Int { problem.window.lowerBound.days(to: date) }

    private func score(_ total: ScorePart, openShifts: Int, changed: Int, newShifts: Int) -> SolveScore {
        SolveScore(hard: total.hard, warnings: total.warnings, openShifts: openShifts, penalty: total.penalty,
                   changePenalty: Double(changed) * changePenalty, newShifts: newShifts)
    }

    /// The roster after giving each slot of `changes` its person (-1: nobody), evaluated.
    ///
    /// With `peopleOnly`, only the touched people's person phases run: the days' and the rest's
    /// parts are taken as they were, so the score is an estimate for ranking candidates of one
    /// slot against each other (they differ only in who takes it), never one to commit.
    ///
    /// The roster is evaluated on `state`'s own schedule, edited in place and restored before this
    /// returns (`Schedule.edit`): a state that is the only holder of its schedule is neither
    /// copied nor changed.
    func evaluate(
        _ state: inout SearchState, _ changes: [(slot: Int, person: Int)], keepFindings: Bool = false, peopleOnly: Bool = false
    ) throws -> Candidate {
        try evaluate(&state, changes, keepFindings: keepFindings, peopleOnly: peopleOnly, refusingNewErrors: false)!
    }

    /// `evaluate(_:_:keepFindings:peopleOnly:)` of a state that stays as it is (its schedule
    /// shared, so the edits are made on a copy).
    func evaluate(
        _ state: SearchState, _ changes: [(slot: Int, person: Int)], keepFindings: Bool = false, peopleOnly: Bool = false
    ) throws -> Candidate {
        var scratch = state
        return try evaluate(&scratch, changes, keepFindings: keepFindings, peopleOnly: peopleOnly)
    }

    /// The roster after `changes`, or nil as soon as a touched day's or person's phases find more
    /// errors than they do now: for a search that refuses such a roster anyway, the rest of the
    /// evaluation (the other rules, people and days, the rest) is not needed.
    ///
    /// With `growth`, also nil as soon as the roster is sure to be one annealing refuses at that
    /// threshold (`Cooling.accepts`): with no fewer errors, warnings and open shifts, it has more
    /// warnings, or penalties grown by more than `growth`. The penalties found so far, less all
    /// that the touched scopes held before (what the phases not run yet could at best take away),
    /// already pass it. Until a rule has given a reward (a negative penalty,
    /// `ScopedValidator.sawRewards`), a phase not run yet is taken to add penalties only. Annealing,
    /// which draws its threshold before the evaluation, goes on exactly as if it had evaluated the
    /// move whole; only faster.
    ///
    /// Evaluated in place, as `evaluate(_:_:keepFindings:peopleOnly:)`.
    func evaluateRefusingNewErrors(
        _ state: inout SearchState, _ changes: [(slot: Int, person: Int)], peopleOnly: Bool = false, growth: Double? = nil
    ) throws -> Candidate? {
        try evaluate(&state, changes, keepFindings: false, peopleOnly: peopleOnly, refusingNewErrors: true, growth: growth)
    }

    /// `evaluateRefusingNewErrors(_:_:peopleOnly:growth:)` of a state that stays as it is.
    func evaluateRefusingNewErrors(
        _ state: SearchState, _ changes: [(slot: Int, person: Int)], peopleOnly: Bool = false, growth: Double? = nil
    ) throws -> Candidate? {
        var scratch = state
        return try evaluateRefusingNewErrors(&scratch, changes, peopleOnly: peopleOnly, growth: growth)
    }

    private func evaluate(
        _ state: inout SearchState, _ changes: [(slot: Int, person: Int)], keepFindings: Bool, peopleOnly: Bool,
        refusingNewErrors: Bool, growth: Double? = nil
    ) throws -> Candidate? {
        var edits: [Schedule.SearchEdit] = []
        edits.reserveCapacity(changes.count)
        var people: [Int] = []
        var days: [Int] = []
        var openShifts = state.openShifts, changed = state.changed, newShifts = state.newShifts
        for (index, person) in changes {
            let slot = problem.slots[index]
            let old = state.assignment[index]
            let id = slot.shift.id
            let to = person >= 0 ? problem.people[person] : nil
            // The slot's shift with its new person: the schedule holds it (with whatever else it
            // carries) unless it is a demand slot nobody held.
            func reassigned() -> Schedule.SearchEdit {
                var shift = state.schedule.shift(id) ?? slot.shift
                shift.personID = to
                return .put(shift)
            }
            switch slot.origin {
            case .demand:
                if old < 0 {
                    var shift = slot.shift
                    shift.personID = to
                    edits.append(.put(shift))
                    newShifts += 1
                } else if person < 0 {
                    edits.append(.remove(id))
                    newShifts -= 1
                } else {
                    edits.append(reassigned())
                }
            case .open:
                edits.append(reassigned())
                openShifts += (old < 0 ? -1 : 0) + (person < 0 ? 1 : 0)
            case .assigned:
                // Left without a person, it stays in the schedule as an open shift.
                edits.append(reassigned())
                openShifts += (old < 0 ? -1 : 0) + (person < 0 ? 1 : 0)
                let initial = slot.initial.flatMap { personIndex[$0] } ?? -1
                changed += (old == initial ? 1 : 0) - (person == initial ? 1 : 0)
            }
            if old >= 0, !people.contains(old) { people.append(old) }
            if person >= 0, !people.contains(person) { people.append(person) }
            // Without day phases a day's findings follow from its staffing counts alone, so a day
            // none of whose counts the change moves keeps them (SlotStaffingTests).
            if hasDays, !peopleOnly, hasDayRules || staffing?.changesCounts(slot: index, from: old, to: person) ?? true {
                let day = dayIndex(slot.date)
                if !days.contains(day) { days.append(day) }
            }
        }
        let ids = people.map { problem.people[$0] }, dates = days.map { problem.days[$0] }, withRest = hasRest && !peopleOnly
        let dayStaffing = days.isEmpty ? nil : staffing.map { staffing in
            { [first = problem.window.lowerBound, assignment = state.assignment] (date: LocalDate) -> (entries: [Demand], counts: [Int])? in
                let day = first.days(to: date)
                guard day >= 0, day < staffing.entries.count else { return nil }
                let counts = staffing.counts(day: day) { slot in changes.last { $0.slot == slot }?.person ?? assignment[slot] }
                return (staffing.entries[day], counts)
            }
        }
        var limits: ScopedValidator.ErrorLimits?
        if refusingNewErrors {
            var bounds = ScopedValidator.ErrorLimits(people: people.map { state.personParts[$0].hard }, days: days.map { state.dayParts[$0].hard })
            // A roster with fewer errors, warnings or open shifts is better whatever its
            // penalties: the warnings are held to what the touched scopes had only when no error
            // can go, and the penalties to `growth` only when no error or warning can go either.
            if let growth, !peopleOnly, openShifts >= state.openShifts {
                var before = people.reduce(ScorePart()) { $0 + state.personParts[$1] } + days.reduce(ScorePart()) { $0 + state.dayParts[$1] }
                if withRest { before = before + state.rest }
                if before.hard == 0 { bounds.warnings = before.warnings }
                if before.hard == 0, before.warnings == 0 {
                    bounds.penalties = before.penalty + growth - Double(changed - state.changed) * changePenalty
                }
            }
            limits = bounds
        }
        // The edits are taken back before anything else: the state's schedule is again the only
        // holder of its storage for the next move's edits.
        let undo = state.schedule.edit(edits)
        let found: ScopedValidator.Findings?
        do {
            defer { state.schedule.undo(undo) }
            if let limits {
                found = try validator.evaluate(
                    state.schedule, people: ids, days: dates, rest: withRest, errorLimits: limits, staffing: dayStaffing)
            } else {
                found = try validator.evaluate(state.schedule, people: ids, days: dates, rest: withRest, staffing: dayStaffing)
            }
        }
        guard let findings = found else { return nil }
        let personParts = findings.people.map(ScorePart.init)
        let personSpots = findings.people.map { Spot.of($0, first: problem.window.lowerBound, days: problem.days.count) }
        let dayParts = findings.days.map(ScorePart.init)
        let rest = findings.rest.map(ScorePart.init)
        var total = state.total
        for (person, part) in zip(people, personParts) { total = total - state.personParts[person] + part }
        for (day, part) in zip(days, dayParts) { total = total - state.dayParts[day] + part }
        if let rest { total = total - state.rest + rest }
        var all: [Violation] = []
        if keepFindings { all = findings.people.flatMap { $0 } + findings.days.flatMap { $0 } + (findings.rest ?? []) }
        return Candidate(
            changes: changes, edits: edits, people: people, personParts: personParts, personSpots: personSpots, days: days,
            dayParts: dayParts,
            rest: rest, total: total, openShifts: openShifts, changed: changed, newShifts: newShifts,
            score: score(total, openShifts: openShifts, changed: changed, newShifts: newShifts), findings: all)
    }

    /// Whether a candidate makes any scope it touched find more errors than before (a person's or
    /// a day's, or the rest): trading one error for another keeps the count but adds one.
    func addsErrors(_ candidate: Candidate, to state: SearchState) -> Bool {
        for (person, part) in zip(candidate.people, candidate.personParts) where part.hard > state.personParts[person].hard { return true }
        for (day, part) in zip(candidate.days, candidate.dayParts) where part.hard > state.dayParts[day].hard { return true }
        if let rest = candidate.rest, rest.hard > state.rest.hard { return true }
        return false
    }

    /// Makes `candidate` the state.
    func commit(_ candidate: Candidate, to state: inout SearchState) {
        for (index, person) in candidate.changes {
            let old = state.assignment[index]
            let day = dayIndex(problem.slots[index].date)
            if old >= 0 {
                let k = key(old, day)
                state.occupancy[k].removeAll { $0 == index }
            }
            if person >= 0 { state.occupancy[key(person, day)].append(index) }
            state.assignment[index] = person
        }
        state.schedule.edit(candidate.edits)
        for (person, part) in zip(candidate.people, candidate.personParts) { state.personParts[person] = part }
        for (person, spots) in zip(candidate.people, candidate.personSpots) { state.personSpots[person] = spots }
        for (day, part) in zip(candidate.days, candidate.dayParts) { state.dayParts[day] = part }
        if let rest = candidate.rest { state.rest = rest }
        state.total = candidate.total
        state.openShifts = candidate.openShifts
        state.changed = candidate.changed
        state.newShifts = candidate.newShifts
        state.score = candidate.score
    }
}
