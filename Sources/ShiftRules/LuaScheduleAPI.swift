import Foundation
import LuaHost
import ShiftCore

/// The schedule as Lua sees it: read-only views of entities (userdata whose fields are served
/// from the Swift schedule on access, so nothing is copied up front), indexed queries, the
/// calendar helpers and `report`.
///
/// Views live for one evaluation. Each evaluation bumps a generation; a view kept past its
/// evaluation (in a global, say) fails with "stale view" instead of showing other data.
///
/// The properties every call from Lua touches are `@exclusivity(unchecked)`: the API belongs to
/// one runtime, used by one thread at a time, whose host functions never re-enter it, so no
/// access overlaps another and Swift's dynamic exclusivity checks would find nothing.
final class LuaScheduleAPI {
    enum Side: Int64 { case after = 0, before = 1 }

    enum Target {
        /// A change, with the views of its entity before and after made up front (every rule
        /// reads `change.after`; this way the read is a lookup, not a hash per read).
        /// (Boxed: a change is big, and every view pays for the largest case.)
        indirect case change(Change, validating: Bool, before: LuaValue, after: LuaValue)
        case shift(ScheduledShift, Side)
        /// A shift of a person's timeline (after side): date, type and times are at hand; the
        /// shift itself is read only for the fields the timeline lacks (notes, attributes…).
        case timed(TimedShift, PersonID)
        case person(PersonID, Side)
        case shiftType(ShiftTypeID, Side)
        case location(LocationID, Side)
    }

    let runtime: LuaRuntime
    let clock: @Sendable () -> Date
    /// Replaces the clock for one evaluation (rule examples set `today`).
    var clockOverride: Date?

    func now() -> Date { clockOverride ?? clock() }

    var scheduleClass: LuaClassID!
    var shiftClass: LuaClassID!
    var personClass: LuaClassID!
    var typeClass: LuaClassID!
    var locationClass: LuaClassID!
    var changeClass: LuaClassID!
    /// The schedule's method names (for the message naming what a schedule has).
    var methods: Set<String> = []

    /// A schedule method: a static field of the schedule class (no call into Swift to find it).
    func setMethod(_ name: String, _ function: LuaValue) throws {
        methods.insert(name)
        try runtime.setStatic(scheduleClass, name, function)
    }
    private(set) var reportFunction: LuaValue = .nil

    // Per-evaluation state.
    @exclusivity(unchecked) private(set) var generation: Int64 = 0
    /// The person timelines handed out in this evaluation (see LuaScheduleAPI+Timeline).
    @exclusivity(unchecked) var timelines: [Timeline] = []
    /// Timelines dropped earlier in this evaluation (handles keep counting, so an old one is stale).
    @exclusivity(unchecked) var timelinesDropped = 0
    /// The schedules being evaluated, boxed so that field reads borrow them instead of copying
    /// a `Schedule` (a dozen reference counts) on every access.
    final class ScheduleBox {
        let schedule: Schedule
        init(_ schedule: Schedule) { self.schedule = schedule }
        // Lookups made here read the schedule in place; `box.schedule.person(id)` at a call
        // site copies the whole value (a dozen reference counts) for every field read.
        func person(_ id: PersonID) -> Person? { schedule.person(id) }
        func shiftType(_ id: ShiftTypeID) -> ShiftType? { schedule.shiftType(id) }
        func location(_ id: LocationID) -> Location? { schedule.location(id) }
        func shift(_ id: ShiftID) -> ScheduledShift? { schedule.shift(id) }
        /// A person's shift (a timeline's) read in full. Over a store that reads on demand
        /// (SQLite, PostgreSQL), the first such read of a person fetches all of that person's
        /// shifts in one query and keeps them until another person's is asked for: a person
        /// phase that reads every shift's attributes (`required_skill`) costs a query per
        /// person, not one per shift (a million shifts: 4 s instead of 34 s).
        func shift(_ id: ShiftID, of person: PersonID) -> ScheduledShift? {
            guard let source = schedule.source, !source.answersFromMemory else { return schedule.shift(id) }
            if personShifts?.person != person {
                var byID: [ShiftID: ScheduledShift] = [:]
                for shift in schedule.shifts(ShiftQuery(personID: person)) { byID[shift.id] = shift }
                personShifts = (person, byID)
            }
            return personShifts?.shifts[id] ?? schedule.shift(id)
        }
        private var personShifts: (person: PersonID, shifts: [ShiftID: ScheduledShift])?
        func interval(of shift: ScheduledShift) -> InstantInterval? { schedule.interval(of: shift) }
        var settings: StoreSettings { schedule.settings }
        var zone: ZoneRules { schedule.zone }
        /// Lends the schedule to `body` without copying it.
        func withSchedule<T>(_ body: (borrowing Schedule) throws -> T) rethrows -> T { try body(schedule) }
        /// The settings' horizon (`Schedule.settingsHorizon`), read once per evaluation: rules
        /// ask for it in every person phase.
        func settingsHorizon() throws(ScheduleError) -> ClosedRange<LocalDate>? {
            if let horizon { return try horizon.get() }
            let read = Result { () throws(ScheduleError) in try schedule.settingsHorizon() }
            horizon = read
            return try read.get()
        }
        private var horizon: Result<ClosedRange<LocalDate>?, ScheduleError>?
    }

    @exclusivity(unchecked) var afterBox: ScheduleBox?
    @exclusivity(unchecked) var beforeBox: ScheduleBox?
    var after: Schedule? { afterBox?.schedule }
    @exclusivity(unchecked) var targets: [Target] = []
    /// Shift views by shift and side, and views of people, shift types and locations by id and
    /// side: one view per entity per evaluation, however it was reached.
    @exclusivity(unchecked) var views = ViewTable()
    /// The views of the shift types timeline elements had last in this evaluation (`typeObject`).
    @exclusivity(unchecked) var recentTypes: [(words: (UInt64, UInt64), object: Int64)] = []
    /// `cal.time_of`'s offset of the store's zone and the instants it holds for (emptied
    /// whenever the schedule, and so perhaps the zone, changes).
    let clockSpan = ClockSpan()

    /// Hours worked per person and period during one evaluation: the schedule does not change
    /// while it is evaluated, and a batch (an import, a rotation, `validate`) asks the same
    /// question for every shift of a person.
    @exclusivity(unchecked) var minutesCache: [MinutesKey: Int] = [:]

    struct MinutesKey: Hashable {
        let side: Side
        let person: PersonID
        let from: LocalDate
        let to: LocalDate
    }

    /// What rules read of the shifts since `shiftReads` was last reset: which columns of a
    /// person's timeline, and whether anything else that depends on shifts (an element
    /// `shifts[i]`, a shift query). The solver's person-phase memo (`PersonPhaseMemo`) keys a
    /// call's findings by what it read.
    @exclusivity(unchecked) var shiftReads = ShiftReads()

    struct ShiftReads: Equatable {
        /// Bit k: the timeline column `timelineColumns[k]` was read.
        var columns: UInt8 = 0
        /// Something else that depends on the shifts was read.
        var other = false
        /// Something that depends on everyone's shifts was read (the span of all shifts).
        var everyone = false
    }

    /// Receives `report{…}`; nil outside a rule's check (reporting then is an error).
    @exclusivity(unchecked) var reportSink: ((Report) throws -> Void)?
    /// The chunk the last `report` was called from, and its name as a string: a rule's findings
    /// come from one file, so each cites it without making the string again.
    @exclusivity(unchecked) var reportChunk: (bytes: [UInt8], name: String) = ([], "")

    init(runtime: LuaRuntime, now: @escaping @Sendable () -> Date) throws {
        self.runtime = runtime
        self.clock = now
        try registerClasses()
        try registerMethods()
        try registerCalendar()
        reportFunction = try makeReportFunction()
    }

    // MARK: Evaluation lifecycle

    /// Starts an evaluation over a proposed schedule (and the one before it).
    func begin(after: Schedule, before: Schedule?) {
        newGeneration(after: ScheduleBox(after), before: before.map(ScheduleBox.init))
    }

    /// Ends the evaluation: views made during it go stale, schedules are released.
    func end() {
        newGeneration(after: nil, before: nil)
        reportSink = nil
    }

    /// Views, timelines and cached answers of the previous generation are dropped (their handles
    /// go stale); these schedules are the ones evaluated from now on.
    func newGeneration(after: ScheduleBox?, before: ScheduleBox?) {
        generation += 1
        runtime.invalidateFieldCaches()
        afterBox = after
        beforeBox = before
        // Each evaluation starts and ends with this, so the second time finds them empty.
        if !minutesCache.isEmpty { minutesCache.removeAll(keepingCapacity: true) }
        if !targets.isEmpty { targets.removeAll(keepingCapacity: true) }
        views.removeAll()
        if !recentTypes.isEmpty { recentTypes.removeAll(keepingCapacity: true) }
        clockSpan.empty()
        if !timelines.isEmpty { timelines.removeAll(keepingCapacity: true) }
        timelinesDropped = 0
    }

    /// Scripts: moves the evaluation on to the script's newer working schedule without making
    /// views stale; views of the given shifts show their state in it.
    func advance(to schedule: Schedule, refreshing shifts: some Sequence<ShiftID>) {
        afterBox = ScheduleBox(schedule)
        clockSpan.empty()
        runtime.invalidateFieldCaches()
        minutesCache.removeAll(keepingCapacity: true)
        for id in shifts {
            if let index = views.index(id.words, tag: ViewKind.shift.tag(.after)), let shift = schedule.shift(id) {
                targets[index] = .shift(shift, .after)
                runtime.setWords(viewObject(shiftClass, index), ShiftSource(targets[index]).map { shiftWords($0) } ?? LuaObjectWords())
            }
        }
    }

    var currentZone: ZoneRules { afterBox?.zone ?? .utc }

    func scheduleObject(_ side: Side = .after) -> LuaValue {
        .object(LuaObject(classID: scheduleClass, id: generation << 32 | side.rawValue))
    }

    func schedule(_ side: Side) throws -> Schedule { try box(side).schedule }

    /// The schedule of one side, borrowed through its box.
    func box(_ side: Side) throws -> ScheduleBox {
        guard let box = side == .after ? afterBox : beforeBox else { throw LuaScriptError("the schedule is not available here") }
        return box
    }
}
