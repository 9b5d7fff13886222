import Foundation
import LuaHost
import ShiftCore

/// A day's demand entries and how many staff each (in order), as `Schedule.demand(on:)` and
/// `Schedule.staffed(_:on:)` would give them on the schedule being evaluated, from a caller that
/// keeps them as it changes the schedule (the solver counts them from its slots); nil for a day
/// it does not know, which is then counted from the schedule.
package typealias DayStaffing = (LocalDate) -> (entries: [Demand], counts: [Int])?

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
///
/// During a solve only shifts change hands, so a person phase given the same timeline gives the
/// same findings. With `remembersPersonPhases` (the default) each rule's findings per person are
/// kept with what the call read of the timeline (`PersonPhaseMemo`), and a later call that
/// would read the same is answered from memory: a move that only changes a nurse's shift types
/// leaves her working days as they were, and the rules that read only `shifts.days` are not
/// asked again. Use it only where shifts change as the solver changes them.
package final class ScopedValidator {
    private let state: EngineState
    private let memo: PersonPhaseMemo?
    /// The person-phase rules, those whose findings are errors first (so that an error limit
    /// stops a person's phases early), made once.
    private let personRules: [LoadedRule]

    package init(_ engine: RuleEngine, remembersPersonPhases: Bool = true) throws {
        state = try EngineState(engine.configuration)
        personRules = state.personPhaseRules(only: nil).enumerated()
            .sorted { ($0.element.info.severity == .error ? 0 : 1, $0.offset) < ($1.element.info.severity == .error ? 0 : 1, $1.offset) }
            .map(\.element)
        memo = remembersPersonPhases ? PersonPhaseMemo(rules: personRules.count) : nil
    }

    /// Person-phase calls answered from memory, and calls made, so far.
    package var personPhaseCalls: (remembered: Int, made: Int) { (memo?.hits ?? 0, memo?.misses ?? 0) }

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

    /// Whether any enabled rule has a day phase (`validate_day`). Without one, what a day's
    /// scoped evaluation finds depends only on how many people staff each of its demand entries.
    package var hasDayRules: Bool { !state.dayPhaseRules(only: nil).isEmpty }

    /// What a scoped evaluation found: per person and per day in the order asked, and the rest.
    package struct Findings {
        package var people: [[Violation]]
        package var days: [[Violation]]
        package var rest: [Violation]?
    }

    /// The findings of `people`'s person phases, of `days`' day phases and, with `rest`, of the
    /// unscoped part, all on `schedule`. A day `staffing` knows is given its demand entries and
    /// their counts from it instead of from the schedule.
    package func evaluate(
        _ schedule: Schedule, people: [PersonID], days: [LocalDate], rest: Bool, staffing: DayStaffing? = nil
    ) throws -> Findings {
        let found = try state.scoped(schedule, people: people, personRules: personRules, days: days, rest: rest, memo: memo,
                                     errorLimits: nil, staffing: staffing)!
        noteRewards(found)
        return found
    }

    /// How many errors each person and each day (in the order asked) may have, and how much
    /// penalty and how many warnings the whole evaluation may find.
    package struct ErrorLimits {
        package var people: [Int]
        package var days: [Int]
        /// The most the penalties of all the evaluation's findings may add up to (`penalty`
        /// findings only, as `validate --score` adds them).
        package var penalties: Double
        /// The most warnings all the evaluation's findings may hold.
        package var warnings: Int

        package init(people: [Int], days: [Int], penalties: Double = .infinity, warnings: Int = .max) {
            self.people = people
            self.days = days
            self.penalties = penalties
            self.warnings = warnings
        }
    }

    /// Whether a finding of this validator has had a negative penalty (a reward). Until one has,
    /// the penalty limit of `evaluate(_:people:days:rest:errorLimits:staffing:)` assumes that the
    /// phases it has not run yet can only add penalties; after, that limit is not applied.
    package private(set) var sawRewards = false

    /// The same, abandoned (nil) as soon as a day's or a person's phases find more errors than
    /// their limit, or all the findings so far more warnings or penalties than the limits allow,
    /// before the rest is evaluated: a search that would refuse any roster with more errors, or
    /// with penalties above a threshold, need not know more. The days go first, then the people:
    /// what the memo answers for any of them, then the calls, those of the rules that report
    /// errors first (with a penalty or warning limit, last). The findings are the same, in the
    /// same order, whatever the order of the calls.
    package func evaluate(
        _ schedule: Schedule, people: [PersonID], days: [LocalDate], rest: Bool, errorLimits: ErrorLimits, staffing: DayStaffing? = nil
    ) throws -> Findings? {
        var limits = errorLimits
        if sawRewards { limits.penalties = .infinity }
        let found = try state.scoped(schedule, people: people, personRules: personRules, days: days, rest: rest, memo: memo,
                                     errorLimits: limits, staffing: staffing)
        if let found { noteRewards(found) }
        return found
    }

    private func noteRewards(_ found: Findings) {
        guard !sawRewards else { return }
        func rewards(_ findings: [Violation]) -> Bool { findings.contains { $0.severity == .penalty && ($0.penalty ?? 1) < 0 } }
        sawRewards = found.people.contains(where: rewards) || found.days.contains(where: rewards) || rewards(found.rest ?? [])
    }
}

extension EngineState {
    /// The errors among the findings collected since `start`.
    func errors(since start: Int) -> Int { collected[start...].count { $0.severity == .error } }

    func scoped(
        _ schedule: Schedule, people: [PersonID], personRules: [LoadedRule], days: [LocalDate], rest: Bool, memo: PersonPhaseMemo?,
        errorLimits: ScopedValidator.ErrorLimits?, staffing: DayStaffing?
    ) throws -> ScopedValidator.Findings? {
        try evaluating(schedule) {
            var findings = ScopedValidator.Findings(people: [], days: [], rest: nil)
            // Whether the findings so far pass the evaluation's penalty or warning limit.
            let first = collectedCount
            let budgeted = errorLimits.map { $0.penalties < .infinity || $0.warnings < .max } ?? false
            func overBudget() -> Bool {
                guard budgeted, let limits = errorLimits else { return false }
                var penalties = 0.0, warnings = 0
                for finding in collected[first...] {
                    switch finding.severity {
                    case .penalty: penalties += finding.penalty ?? 1
                    case .warning: warnings += 1
                    case .error: break
                    }
                }
                return warnings > limits.warnings || penalties > limits.penalties
            }
            // The days go first: their demand phases are mostly remembered, so they are cheap to
            // hold against a limit before the people's phases run.
            let dayRules = dayPhaseRules(only: nil)
            let demandRules = demandPhaseRules(only: nil)
            for (index, day) in days.enumerated() {
                let start = collectedCount
                try checkDays(schedule, rules: dayRules, days: [day][...])
                try checkDemand(schedule, rules: demandRules, days: [day][...], staffing: staffing)
                if let limit = errorLimits?.days[index], errors(since: start) > limit || overBudget() { return nil }
                findings.days.append(collected(since: start))
            }
            if let memo {
                let limits = errorLimits?.people ?? people.map { _ in .max }
                guard let found = try checkPeopleRemembered(schedule, people, rules: personRules, memo: memo, errorLimits: limits,
                                                            penaltiesFirst: budgeted, overBudget: overBudget) else { return nil }
                findings.people = found
            } else {
                for (index, person) in people.enumerated() {
                    let start = collectedCount
                    let group = PersonGroup(people: [person], shifts: schedule.shiftCount(of: person) + 1)
                    try checkPeople(schedule, rules: personRules, groups: [group][...])
                    if let limit = errorLimits?.people[index], errors(since: start) > limit || overBudget() { return nil }
                    findings.people.append(collected(since: start))
                }
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

extension EngineState {
    /// The person phases of `people`, each person's findings in rule order, or nil as soon as a
    /// person's errors pass their limit in `errorLimits` or `overBudget` says the findings so far
    /// pass the evaluation's limits.
    ///
    /// What `memo` remembers comes first, for everyone: it costs no call and tells exactly what
    /// those rules find, so a limit is passed as early as it can be. Then the calls: every
    /// person's error rules, then everyone's other rules, since a move is refused as soon as
    /// anyone's errors pass their limit, and the person who gives up a shift (first in the list,
    /// seldom the one with a new error) would otherwise have all her rules run before the one
    /// who takes it is found out. With `penaltiesFirst` (a penalty or warning limit) the other
    /// rules go first instead: a move that annealing refuses is mostly refused for its penalties
    /// (on INRC-II about nine in ten), and its error rules then need not run.
    func checkPeopleRemembered(
        _ schedule: Schedule, _ people: [PersonID], rules: [LoadedRule], memo: PersonPhaseMemo, errorLimits: [Int],
        penaltiesFirst: Bool, overBudget: () -> Bool
    ) throws -> [[Violation]]? {
        guard !rules.isEmpty else { return people.map { _ in [] } }
        let timelines = people.map { schedule.timeline(of: $0) }
        var keys = timelines.map { PersonPhaseMemo.Keys($0) }
        precondition(rules.count <= memo.rules, "the memo was made for fewer rules")
        let bases = people.map { memo.base(of: $0) }
        var found = [[[Violation]?]](repeating: [[Violation]?](repeating: nil, count: rules.count), count: people.count)
        var errors = [Int](repeating: 0, count: people.count)
        func within(_ index: Int, adding new: [Violation]) -> Bool {
            errors[index] += new.count { $0.severity == .error }
            return errors[index] <= errorLimits[index] && !overBudget()
        }
        // A rule is remembered by its index among all the person-phase rules.
        for index in people.indices {
            for rule in rules.indices {
                guard let remembered = memo.findings(slot: bases[index] + rule, keys: &keys[index]) else { continue }
                found[index][rule] = remembered
                collected.append(contentsOf: remembered)
                if !within(index, adding: remembered) { return nil }
            }
        }
        var arguments = [LuaValue?](repeating: nil, count: people.count)
        var scheduleObject: LuaValue?
        defer { if scheduleObject != nil { api.dropTimelines() } }
        let hard = rules.prefix { $0.info.severity == .error }.count
        let groups = penaltiesFirst ? [hard..<rules.count, 0..<hard] : [0..<hard, hard..<rules.count]
        for group in groups {
            for index in people.indices {
                for rule in group where found[index][rule] == nil {
                    if scheduleObject == nil { scheduleObject = .reference(try runtime.makeRef(api.scheduleObject())) }
                    if arguments[index] == nil {
                        let (view, handle) = api.registerTimeline(people[index], timelines[index])
                        let list = LuaValue.table(LuaTable(array: [view, .integer(handle), .integer(Int64(timelines[index].count))]))
                        arguments[index] = rules.count > 1 ? try changeList(list) : list
                    }
                    let start = collected.count
                    try runPersonPhase(rules[rule], (arguments[index]!, scheduleObject!), schedule)
                    let new = Array(collected[start...])
                    rememberPersonPhase(slot: bases[index] + rule, keys: &keys[index], memo: memo, findings: new)
                    found[index][rule] = new
                    if !within(index, adding: new) { return nil }
                }
            }
        }
        return found.map { $0.flatMap { $0! } }
    }

    /// One call of `rule`'s person phase on a registered timeline; its findings are collected.
    private func runPersonPhase(_ rule: LoadedRule, _ arguments: (people: LuaValue, schedule: LuaValue), _ schedule: Schedule) throws {
        api.shiftReads = LuaScheduleAPI.ShiftReads()
        try run(rule, personDriver, [
            .function(rule.validatePerson!), arguments.people, arguments.schedule, api.reportFunction, .reference(rule.params),
            timelineConstructor, marker, try cache(of: rule, for: schedule),
        ])
    }

    /// Remembers what the call just made found. A call that read more than columns is keyed by
    /// the ids of the person's shifts; one that read the span of everyone's shifts is not
    /// remembered.
    private func rememberPersonPhase(slot: Int, keys: inout PersonPhaseMemo.Keys, memo: PersonPhaseMemo, findings: [Violation]) {
        let reads = api.shiftReads
        guard !reads.everyone else { return }
        let columns = reads.other ? reads.columns | PersonPhaseMemo.idsColumn : reads.columns
        memo.remember(slot: slot, columns: columns, keys: &keys, findings: findings)
    }
}

/// Person-phase findings remembered by rule, person and what the call read of the person's
/// timeline (see `ScopedValidator`). Each entry keeps the columns the call read and their
/// values, compared exactly (no hash stands in for them); a few entries per rule and person,
/// the oldest replaced first.
///
/// A call that read only columns (`shifts.days`, `shifts.types`, …) and what does not change
/// during a solve (people, shift types, settings, demand) gives the same findings for the same
/// column values. A call that read more (an element `shifts[i]`, a query such as
/// `schedule:count{ person = p }`) is keyed by the ids of the person's shifts too: a person
/// phase depends on that person's shifts only (the solver relies on it anyway), and during a
/// solve a shift id always stands for the same shift, since moves only give shifts to other
/// people and add or remove whole shifts.
final class PersonPhaseMemo {
    /// The bit of `timelineColumns`' `ids`.
    static let idsColumn: UInt8 = 1 << 6

    struct Entry {
        let columns: UInt8
        /// A hash of `key`, compared first: only an entry whose hash matches has its key compared.
        let hash: Int
        let key: [Int64]
        let findings: [Violation]
    }

    /// One rule and person's entries, and the one to replace next once there are
    /// `entriesPerSlot`.
    struct Slot {
        var list: [Entry] = []
        var next = 0
    }

    static let entriesPerSlot = 8
    /// How many person-phase rules there are: each person has that many slots in a row.
    let rules: Int
    /// Where each person's slots begin in `slots` (rule r's slot is `base + r`).
    private var bases: [PersonID: Int] = [:]
    private var slots: [Slot] = []
    private(set) var hits = 0
    private(set) var misses = 0

    init(rules: Int) { self.rules = rules }

    /// A timeline's keys per set of columns, each made once.
    struct Keys {
        let shifts: [TimedShift]
        private var made: [(columns: UInt8, hash: Int, key: [Int64])] = []

        init(_ shifts: [TimedShift]) { self.shifts = shifts }

        /// The values of the columns in `columns` (bits as `LuaScheduleAPI.timelineColumns`),
        /// after the shift count: what a call that read those columns saw; and their hash.
        mutating func key(_ columns: UInt8) -> (hash: Int, key: [Int64]) {
            if let found = made.first(where: { $0.columns == columns }) { return (found.hash, found.key) }
            var key: [Int64] = [Int64(shifts.count)]
            key.reserveCapacity(1 + shifts.count * 4)
            for shift in shifts {
                if columns & 0b0001 != 0 { key.append(shift.start) }
                if columns & 0b0010 != 0 { key.append(shift.end) }
                if columns & 0b0100 != 0 { key.append(shift.end - shift.start) }
                if columns & 0b1_1000 != 0 { key.append(Int64(shift.date.dayNumber)) }
                if columns & 0b10_0000 != 0 {
                    let (a, b) = shift.type.words
                    key.append(Int64(bitPattern: a))
                    key.append(Int64(bitPattern: b))
                }
                if columns & 0b100_0000 != 0 {
                    let (a, b) = shift.id.words
                    key.append(Int64(bitPattern: a))
                    key.append(Int64(bitPattern: b))
                }
            }
            // FNV-1a over the words: a hash needs to be quick and deterministic here, not
            // resistant to chosen keys (a match is confirmed on the whole key).
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for value in key { hash = (hash ^ UInt64(bitPattern: value)) &* 0x100_0000_01b3 }
            made.append((columns, Int(truncatingIfNeeded: hash), key))
            return (Int(truncatingIfNeeded: hash), key)
        }
    }

    /// Where `person`'s slots begin (made empty on first use): pass `base + rule` as `slot`.
    func base(of person: PersonID) -> Int {
        if let base = bases[person] { return base }
        let base = slots.count
        bases[person] = base
        slots.append(contentsOf: repeatElement(Slot(), count: rules))
        return base
    }

    func findings(slot: Int, keys: inout Keys) -> [Violation]? {
        for index in slots[slot].list.indices {
            let (hash, key) = keys.key(slots[slot].list[index].columns)
            if slots[slot].list[index].hash == hash, slots[slot].list[index].key == key {
                hits += 1
                return slots[slot].list[index].findings
            }
        }
        misses += 1
        return nil
    }

    func remember(slot: Int, columns: UInt8, keys: inout Keys, findings: [Violation]) {
        let (hash, key) = keys.key(columns)
        let entry = Entry(columns: columns, hash: hash, key: key, findings: findings)
        if slots[slot].list.count < Self.entriesPerSlot {
            slots[slot].list.append(entry)
        } else {
            slots[slot].list[slots[slot].next] = entry
            slots[slot].next = (slots[slot].next + 1) % Self.entriesPerSlot
        }
    }
}
