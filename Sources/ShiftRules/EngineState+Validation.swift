import Foundation
import LuaHost
import ShiftCore
import Synchronization

/// Checking a whole schedule: per-shift checks, person phases, day and demand phases and each
/// rule's `validate`, alone or as one part of a parallel run.
extension EngineState {
    /// Whole-schedule checks, all on this state: every shift's `check` (rules without a person
    /// phase), each person's timeline (`validate_person`), then each rule's `validate`.
    func validate(_ schedule: Schedule, only: String?) throws -> [Violation] {
        let groups = Self.personGroups(schedule)
        return try evaluating(schedule) {
            try checkEachShift(schedule, only: only, slice: nil)
            let perShift = collected.count
            try checkPeople(schedule, rules: personPhaseRules(only: only), groups: groups[...])
            let days = try planningDays(schedule)[...]
            try checkDays(schedule, rules: dayPhaseRules(only: only), days: days)
            try checkDemand(schedule, rules: demandPhaseRules(only: only), days: days)
            let scoped = collected.count
            try wholeSchedulePhase(schedule, only: only)
            let parts = Self.deduplicated([Array(collected[..<perShift]), Array(collected[scoped...])])
            return parts[0] + collected[perShift..<scoped] + parts[1]
        }
    }

    /// One part of a whole-schedule check on this state (the engine runs parts side by side).
    enum ValidationPart {
        /// `check` on these shifts, as if each had just been added.
        case shifts(ArraySlice<ScheduledShift>)
        /// `validate_person` for these groups of people.
        case people(ArraySlice<PersonGroup>)
        /// `validate_day` and `validate_demand` for every planning day.
        case days
        /// Each rule's `validate`.
        case wholeSchedule
    }

    func validate(_ schedule: Schedule, only: String?, part: ValidationPart) throws -> [Violation] {
        try evaluating(schedule) {
            switch part {
            case let .shifts(slice): try checkEachShift(schedule, only: only, slice: slice)
            case let .people(groups): try checkPeople(schedule, rules: personPhaseRules(only: only), groups: groups)
            case .days:
                let days = try planningDays(schedule)[...]
                try checkDays(schedule, rules: dayPhaseRules(only: only), days: days)
                try checkDemand(schedule, rules: demandPhaseRules(only: only), days: days)
            case .wholeSchedule: try wholeSchedulePhase(schedule, only: only)
            }
            return collected
        }
    }

    /// Runs `body` as one evaluation of `schedule`: views and timelines made in it go stale after.
    func evaluating<T>(_ schedule: Schedule, _ body: () throws -> T) throws -> T {
        api.begin(after: schedule, before: nil)
        collected = []
        defer {
            api.end()
            collected = []
        }
        return try body()
    }

    func hasPersonPhase(_ rule: LoadedRule) -> Bool {
        rule.validatePerson != nil && (configuration.personPhase || rule.check == nil)
    }

    /// The rules whose person phase runs in `validate`.
    func personPhaseRules(only: String?) -> [LoadedRule] {
        rules.filter { hasPersonPhase($0) && enabled($0, only: only) }
    }

    /// The rules whose day phase runs in `validate`.
    func dayPhaseRules(only: String?) -> [LoadedRule] {
        rules.filter { $0.validateDay != nil && enabled($0, only: only) }
    }

    /// The rules whose demand phase runs in `validate`.
    func demandPhaseRules(only: String?) -> [LoadedRule] {
        rules.filter { $0.validateDemand != nil && enabled($0, only: only) }
    }

    /// The days of a schedule's day and demand phases (`Schedule.planningDays`); none without
    /// such phases, so a bad horizon setting fails only the rules that read it.
    func planningDays(_ schedule: Schedule) throws -> [LocalDate] {
        rules.contains { $0.validateDay != nil || $0.validateDemand != nil } ? try schedule.planningDays() : []
    }

    /// The rules whose person phase can spare their checks of a batch's adds: those that check
    /// shifts at all.
    func clearingRules(only: String?) -> [LoadedRule] {
        personPhaseRules(only: only).filter { $0.check != nil && $0.triggers.contains(.shift) }
    }

    func enabled(_ rule: LoadedRule, only: String?) -> Bool {
        only.map { rule.id == $0 } ?? rule.info.enabled
    }

    /// The rules whose `check` runs on every existing shift in `validate`: those triggered by
    /// shifts that have no person phase (which covers them).
    func perShiftRules(only: String?) -> [LoadedRule] {
        rules.filter { rule in
            rule.check != nil && !hasPersonPhase(rule) && rule.triggers.contains(.shift) && enabled(rule, only: only)
        }
    }

    /// Every shift's (or the slice's) `check`, in schedule order, 128 shifts per call into Lua.
    func checkEachShift(_ schedule: Schedule, only: String?, slice: ArraySlice<ScheduledShift>?) throws {
        let checking = perShiftRules(only: only)
        guard !checking.isEmpty else { return }
        let scheduleObject = LuaValue.reference(try runtime.makeRef(api.scheduleObject()))
        var failure: Error?
        var pending: [LuaValue] = []
        func flush() throws {
            guard !pending.isEmpty else { return }
            let tables = try changeList(.table(LuaTable(array: pending)))
            pending.removeAll(keepingCapacity: true)
            for rule in checking {
                try run(rule, driver, [.function(rule.check!), tables, scheduleObject, api.reportFunction, .reference(rule.params), marker])
            }
        }
        func add(_ shift: ScheduledShift) -> Bool {
            pending.append(api.changeObject(.shift(before: nil, after: shift, reason: nil), validating: true))
            guard pending.count == Self.chunkSize else { return true }
            do { try flush() } catch {
                failure = error
                return false
            }
            return true
        }
        if let slice {
            for shift in slice where !add(shift) { break }
        } else {
            schedule.forEachShift(ShiftQuery(), add)
        }
        if let failure { throw failure }
        try flush()
    }

    /// People in schedule order (by name, then id), in groups of about `personGroupShifts`
    /// shifts: one call into Lua per rule and group. The grouping depends on the schedule alone,
    /// so results come out in the same order however many states share the work.
    static func personGroups(_ schedule: Schedule) -> [PersonGroup] {
        let people = schedule.people.map(\.id)
        return personGroups(Array(zip(people, schedule.shiftCounts(of: people))))
    }

    /// These people (with their shift counts), in this order, grouped as above.
    static func personGroups(_ people: [(PersonID, shifts: Int)]) -> [PersonGroup] {
        var groups: [PersonGroup] = []
        var group = PersonGroup()
        for (person, shifts) in people {
            group.people.append(person)
            group.shifts += shifts + 1
            if group.shifts >= personGroupShifts {
                groups.append(group)
                group = PersonGroup()
            }
        }
        if !group.people.isEmpty { groups.append(group) }
        return groups
    }

    struct PersonGroup: Sendable {
        var people: [PersonID] = []
        /// The group's shifts plus one per person: the work it stands for.
        var shifts = 0
    }

    /// Shifts (plus one per person) per person-phase call: a call's instruction budget covers a
    /// rule's sweep over this many shifts with room to spare.
    static let personGroupShifts = 4_096

    /// The people of these groups each person phase reports nothing for (on this state).
    func clearance(_ schedule: Schedule, only: String?, groups: ArraySlice<PersonGroup>) throws -> Clearance {
        var clearance = Clearance()
        try evaluating(schedule) {
            try checkPeople(schedule, rules: clearingRules(only: only), groups: groups) { rule, group in
                // A finding marks its person; one naming nobody of the group marks them all.
                var reported: Set<PersonID> = []
                let members = Set(group.people)
                for finding in self.collected {
                    guard let person = finding.personID, members.contains(person) else {
                        reported = members
                        break
                    }
                    reported.insert(person)
                }
                clearance.cleared[rule.id, default: []].formUnion(members.subtracting(reported))
                // Only whether something was found matters: the findings are dropped.
                self.collected.removeAll(keepingCapacity: true)
            }
        }
        return clearance
    }

    /// `validate_person(person, shifts, schedule, report, params, cache)` for each person of the groups;
    /// `ran` after each rule's call on a group.
    func checkPeople(
        _ schedule: Schedule, rules phased: [LoadedRule], groups: ArraySlice<PersonGroup>, ran: ((LoadedRule, PersonGroup) -> Void)? = nil
    ) throws {
        guard !phased.isEmpty else { return }
        let scheduleObject = LuaValue.reference(try runtime.makeRef(api.scheduleObject()))
        for group in groups {
            var list: [LuaValue] = []
            list.reserveCapacity(group.people.count * 3)
            for person in group.people {
                let shifts = schedule.timeline(of: person)
                let (view, handle) = api.registerTimeline(person, shifts)
                list.append(view)
                list.append(.integer(handle))
                list.append(.integer(Int64(shifts.count)))
            }
            let people = phased.count > 1 ? try changeList(.table(LuaTable(array: list))) : .table(LuaTable(array: list))
            for rule in phased {
                try run(rule, personDriver, [
                    .function(rule.validatePerson!), people, scheduleObject, api.reportFunction, .reference(rule.params),
                    timelineConstructor, marker, try cache(of: rule, for: schedule),
                ])
                ran?(rule, group)
            }
            api.dropTimelines()
        }
    }

    /// `validate_day(date, schedule, report, params, cache)` for each of the days, `dayChunk` days per
    /// call into Lua; `ran` after each rule's call on a chunk.
    func checkDays(
        _ schedule: Schedule, rules phased: [LoadedRule], days: ArraySlice<LocalDate>, ran: ((LoadedRule) -> Void)? = nil
    ) throws {
        guard !phased.isEmpty, !days.isEmpty else { return }
        let scheduleObject = LuaValue.reference(try runtime.makeRef(api.scheduleObject()))
        for start in stride(from: days.startIndex, to: days.endIndex, by: Self.dayChunk) {
            let chunk = days[start..<min(start + Self.dayChunk, days.endIndex)]
            let table = LuaValue.table(LuaTable(array: chunk.map { .string($0.description) }))
            let list = phased.count > 1 ? try changeList(table) : table
            for rule in phased {
                try run(rule, dayDriver, [
                    .function(rule.validateDay!), list, scheduleObject, api.reportFunction, .reference(rule.params), marker,
                    try cache(of: rule, for: schedule),
                ])
                ran?(rule)
            }
        }
    }

    /// Days per day-phase call: a call's budget covers a month of a rule's days with room.
    static let dayChunk = 31

    /// `validate_demand(entry, staffed, report, params)` for each demand entry on each of the
    /// days: `entry` as `schedule:demand` gives it, with `date` the day judged and `in_period`
    /// whether that day is in the planning period (`schedule:horizon()`); `staffed` is
    /// `Schedule.staffed`.
    ///
    /// The phase sees no schedule, so what it reports depends on its arguments alone and is
    /// remembered: the same rule, parameters, entry, day and count give the same findings
    /// without a call into Lua. The solver re-checks the days a move touches, and a move that
    /// only changes who works leaves every count as it was.
    /// Each rule's `validate_demand` for each demand entry of each of `days`, given how many staff
    /// it (`Schedule.staffed`, or what `staffing` knows of the day).
    func checkDemand(
        _ schedule: Schedule, rules phased: [LoadedRule], days: ArraySlice<LocalDate>, staffing: DayStaffing? = nil
    ) throws {
        guard !phased.isEmpty, !days.isEmpty else { return }
        let period = try schedule.planningPeriod()
        for day in days {
            let inPeriod = period?.contains(day) ?? false
            if let known = staffing?(day) {
                try checkDemandRemembered(rules: phased, day: day, inPeriod: inPeriod, entries: known.entries, counts: known.counts)
                continue
            }
            let entries = schedule.demand(on: day)
            let counts = schedule.staffed(entries, on: day)
            try checkDemand(rules: phased, day: day, inPeriod: inPeriod, entries: entries, counts: counts)
        }
    }

    /// One day's demand phases, its entries staffed as `counts` says; a call the day, the entry,
    /// the count and the rule make again is answered from `demandMemo`.
    private func checkDemand(rules phased: [LoadedRule], day: LocalDate, inPeriod: Bool, entries: [Demand], counts: [Int]) throws {
        for (entry, staffed) in zip(entries, counts) {
            for rule in phased {
                let key = DemandKey(
                    rule: ObjectIdentifier(rule), params: ObjectIdentifier(rule.params), demand: entry, day: day,
                    staffed: staffed, inPeriod: inPeriod)
                if let found = demandMemo[key] {
                    collected.append(contentsOf: found)
                    continue
                }
                var row = api.demandRow(entry)
                row[.string("date")] = .string(day.description)
                row[.string("in_period")] = .boolean(inPeriod)
                let start = collected.count
                try run(rule, rule.validateDemand!, [.table(LuaTable(hash: row)), .integer(Int64(staffed)), api.reportFunction, .reference(rule.params)])
                if demandMemo.count >= Self.demandMemoLimit { demandMemo.removeAll(keepingCapacity: true) }
                demandMemo[key] = Array(collected[start...])
            }
        }
    }

    /// A day whose entries and counts the caller gives (the solver, which asks about the same
    /// few count vectors of a day again and again): what the day gave with the same rules,
    /// entries and counts before is taken whole, instead of looking up each entry and rule.
    private func checkDemandRemembered(rules phased: [LoadedRule], day: LocalDate, inPeriod: Bool, entries: [Demand], counts: [Int]) throws {
        let key = DayDemandKey(
            rules: phased.map { DayDemandKey.Rule(rule: ObjectIdentifier($0), params: ObjectIdentifier($0.params)) }, day: day,
            inPeriod: inPeriod, entries: entries, counts: counts)
        if let found = dayDemandMemo[key] {
            collected.append(contentsOf: found)
            return
        }
        let start = collected.count
        try checkDemand(rules: phased, day: day, inPeriod: inPeriod, entries: entries, counts: counts)
        if dayDemandMemo.count >= Self.demandMemoLimit { dayDemandMemo.removeAll(keepingCapacity: true) }
        dayDemandMemo[key] = Array(collected[start...])
    }

    /// What a day's demand phases depend on: the rules (and their parameters), the day, whether
    /// it is in the planning period, its entries in order and how many staff each.
    struct DayDemandKey: Hashable {
        struct Rule: Hashable {
            let rule: ObjectIdentifier
            let params: ObjectIdentifier
        }
        let rules: [Rule]
        let day: LocalDate
        let inPeriod: Bool
        /// Compared whole (a caller that hands over the same array each time is compared by
        /// identity first), hashed only by their number.
        let entries: [Demand]
        let counts: [Int]

        func hash(into hasher: inout Hasher) {
            hasher.combine(day)
            hasher.combine(entries.count)
            hasher.combine(counts)
        }
    }

    /// What a demand phase call depends on.
    struct DemandKey: Hashable {
        let rule: ObjectIdentifier
        let params: ObjectIdentifier
        let demand: Demand
        let day: LocalDate
        let staffed: Int
        let inPeriod: Bool

        /// The entry by its id alone (equality still compares all of it): hashing the whole
        /// entry, its skill's string included, made the lookup a tenth of a solve's time.
        func hash(into hasher: inout Hasher) {
            hasher.combine(rule)
            hasher.combine(demand.id)
            hasher.combine(day)
            hasher.combine(staffed)
        }
    }
    static let demandMemoLimit = 100_000

    /// Each rule's `validate(schedule, report, params)`.
    func wholeSchedulePhase(_ schedule: Schedule, only: String?) throws {
        let phased = rules.filter { $0.validate != nil && enabled($0, only: only) }
        guard !phased.isEmpty else { return }
        let scheduleObject = LuaValue.reference(try runtime.makeRef(api.scheduleObject()))
        for rule in phased {
            try run(rule, rule.validate!, [scheduleObject, api.reportFunction, .reference(rule.params)])
        }
    }
}
