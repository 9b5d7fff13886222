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
    private let clock: @Sendable () -> Date
    /// Replaces the clock for one evaluation (rule examples set `today`).
    var clockOverride: Date?

    func now() -> Date { clockOverride ?? clock() }

    private(set) var scheduleClass: LuaClassID!
    private(set) var shiftClass: LuaClassID!
    private(set) var personClass: LuaClassID!
    private(set) var typeClass: LuaClassID!
    private(set) var locationClass: LuaClassID!
    private(set) var changeClass: LuaClassID!
    /// The schedule's method names (for the message naming what a schedule has).
    private var methods: Set<String> = []

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
        func interval(of shift: ScheduledShift) -> InstantInterval? { schedule.interval(of: shift) }
        var settings: StoreSettings { schedule.settings }
        var zone: ZoneRules { schedule.zone }
        /// Lends the schedule to `body` without copying it.
        func withSchedule<T>(_ body: (borrowing Schedule) throws -> T) rethrows -> T { try body(schedule) }
    }

    @exclusivity(unchecked) private var afterBox: ScheduleBox?
    @exclusivity(unchecked) private var beforeBox: ScheduleBox?
    private var after: Schedule? { afterBox?.schedule }
    @exclusivity(unchecked) private var targets: [Target] = []
    /// Shift views by shift and side, and views of people, shift types and locations by id and
    /// side: one view per entity per evaluation, however it was reached.
    @exclusivity(unchecked) private var views = ViewTable()
    /// The views of the shift types timeline elements had last in this evaluation (`typeObject`).
    @exclusivity(unchecked) private var recentTypes: [(words: (UInt64, UInt64), object: Int64)] = []

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
    private func newGeneration(after: ScheduleBox?, before: ScheduleBox?) {
        generation += 1
        runtime.invalidateFieldCaches()
        afterBox = after
        beforeBox = before
        // Each evaluation starts and ends with this, so the second time finds them empty.
        if !minutesCache.isEmpty { minutesCache.removeAll(keepingCapacity: true) }
        if !targets.isEmpty { targets.removeAll(keepingCapacity: true) }
        views.removeAll()
        if !recentTypes.isEmpty { recentTypes.removeAll(keepingCapacity: true) }
        if !timelines.isEmpty { timelines.removeAll(keepingCapacity: true) }
        timelinesDropped = 0
    }

    /// Scripts: moves the evaluation on to the script's newer working schedule without making
    /// views stale; views of the given shifts show their state in it.
    func advance(to schedule: Schedule, refreshing shifts: some Sequence<ShiftID>) {
        afterBox = ScheduleBox(schedule)
        runtime.invalidateFieldCaches()
        minutesCache.removeAll(keepingCapacity: true)
        for id in shifts {
            if let index = views.index(id.words, tag: ViewKind.shift.tag(.after)), let shift = schedule.shift(id) {
                targets[index] = .shift(shift, .after)
                runtime.setWords(viewObject(shiftClass, index), shiftWords(targets[index]))
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

    // MARK: Views

    func view(_ shift: ScheduledShift, _ side: Side = .after) -> LuaValue {
        shiftView(shift.id, side) { .shift(shift, side) }
    }

    /// The view of a timeline's shift (see `Target.timed`), with its words: a timeline's element (`LuaRuntime.makeSequenceConstructor`). `personObject` is the id of the
    /// person's view, which the timeline keeps.
    func element(timed shift: TimedShift, of person: PersonID, personObject: Int64) -> LuaElement {
        let (words, tag) = (shift.id.words, ViewKind.shift.tag(.after))
        // In the places ShiftWord gives them: start, end, day, type, person. A view made before
        // gets them too: if Lua let go of it, it is made again, and with them its fields are
        // still served in C.
        let objectWords = LuaObjectWords(shift.start, shift.end, Int64(shift.date.dayNumber), typeObject(shift.type), personObject)
        if let index = views.index(words, tag: tag) { return LuaElement(viewObject(shiftClass, index), words: objectWords) }
        let index = targets.count
        targets.append(.timed(shift, person))
        views.insert(words, tag: tag, index: index)
        // A new index, so an id never handed to Lua.
        return LuaElement(viewObject(shiftClass, index), words: objectWords, isNew: true)
    }

    /// The id of a shift type's view (after side), from a few remembered in this evaluation: the
    /// shifts a timeline hands over have a handful of types between them.
    private func typeObject(_ type: ShiftTypeID) -> Int64 {
        let words = type.words
        for entry in recentTypes where entry.words == words { return entry.object }
        let object = objectID(view(type: type, .after))
        if recentTypes.count == 4 { recentTypes.removeFirst() }
        recentTypes.append((words, object))
        return object
    }

    /// One view per shift and side in an evaluation, whichever way it was asked for. A view made
    /// now gets its words (one made before has them, or had them: an object Lua let go of is made
    /// again without, and its fields ask Swift).
    private func shiftView(_ id: ShiftID, _ side: Side, _ make: () -> Target) -> LuaValue {
        let (words, tag) = (id.words, ViewKind.shift.tag(side))
        if let index = views.index(words, tag: tag) { return object(shiftClass, index) }
        let index = targets.count
        let target = make()
        targets.append(target)
        views.insert(words, tag: tag, index: index)
        let view = viewObject(shiftClass, index)
        runtime.setWords(view, shiftWords(target))
        return .object(view)
    }

    /// The words of a shift view (`LuaRuntime.setWords`), in the places `registerClasses`
    /// gives its fields: what `shiftField` and `timedField` would serve. A time the shift's
    /// type cannot give is left out (the field then asks Swift, which names the problem).
    enum ShiftWord {
        static let start = 0, end = 1, day = 2, type = 3, person = 4
    }

    /// (A timeline's shift gets its words from `element(timed:of:personObject:)`.)
    private func shiftWords(_ target: Target) -> LuaObjectWords {
        var words = LuaObjectWords()
        switch target {
        case let .shift(shift, side):
            if let span = (side == .after ? afterBox : beforeBox)?.interval(of: shift) {
                words[ShiftWord.start] = span.start
                words[ShiftWord.end] = span.end
            }
            words[ShiftWord.day] = Int64(shift.date.dayNumber)
            words[ShiftWord.type] = objectID(view(type: shift.shiftTypeID, side))
            words[ShiftWord.person] = shift.personID.map { objectID(view(person: $0, side)) } ?? 0
        default: break
        }
        return words
    }

    private func objectID(_ value: LuaValue) -> Int64 {
        guard case let .object(object) = value else { preconditionFailure("a view is an object") }
        return object.id
    }

    /// A read-only change object (`change.entity`, `change.after`, …) for a rule's check.
    func changeObject(_ change: Change, validating: Bool) -> LuaValue {
        let (before, after) = entityViews(of: change)
        let index = targets.count
        targets.append(.change(change, validating: validating, before: before, after: after))
        return object(changeClass, index)
    }

    /// The values `change.before` and `change.after` read.
    private func entityViews(of change: Change) -> (LuaValue, LuaValue) {
        switch change {
        case let .shift(before, after, _):
            return (before.map { view($0, .before) } ?? .nil, after.map { view($0, .after) } ?? .nil)
        case let .person(before, after):
            return (before.map { view(person: $0.id, .before) } ?? .nil, after.map { view(person: $0.id, .after) } ?? .nil)
        case let .shiftType(before, after):
            return (before.map { view(type: $0.id, .before) } ?? .nil, after.map { view(type: $0.id, .after) } ?? .nil)
        case let .location(before, after):
            return (before.map { view(location: $0.id, .before) } ?? .nil, after.map { view(location: $0.id, .after) } ?? .nil)
        case let .demand(before, after):
            return (before.map(Self.demandRow) ?? .nil, after.map(Self.demandRow) ?? .nil)
        case let .availability(before, after):
            return (before.map(Self.availabilityRow) ?? .nil, after.map(Self.availabilityRow) ?? .nil)
        case let .settings(before, after):
            return (Self.settingsRow(before), Self.settingsRow(after))
        case .changeLogPruned, .changeLogRecorded:
            return (.nil, .nil)
        }
    }

    /// The shift behind a shift view, read in full, and its side.
    func fullShift(_ target: Target) throws -> (ScheduledShift, Side)? {
        switch target {
        case let .shift(shift, side): return (shift, side)
        case let .timed(timed, _):
            guard let shift = try box(.after).shift(timed.id) else { throw LuaScriptError("the shift no longer exists") }
            return (shift, .after)
        default: return nil
        }
    }

    /// `shiftSummary` of the view `object` (nil for any other view), its target read where it is.
    func shiftSummary(of object: LuaObject) throws -> (id: ShiftID, person: PersonID?, date: LocalDate)? {
        shiftSummary(targets[try targetIndex(object)])
    }

    /// Id, person and date of a shift view, without reading the shift.
    func shiftSummary(_ target: Target) -> (id: ShiftID, person: PersonID?, date: LocalDate)? {
        switch target {
        case let .shift(shift, _): (shift.id, shift.personID, shift.date)
        case let .timed(timed, person): (timed.id, person, timed.date)
        default: nil
        }
    }

    func view(person id: PersonID, _ side: Side = .after) -> LuaValue {
        entityView(id.words, .person, side, classID: personClass) { .person(id, side) }
    }

    func view(type id: ShiftTypeID, _ side: Side = .after) -> LuaValue {
        entityView(id.words, .shiftType, side, classID: typeClass) { .shiftType(id, side) }
    }

    func view(location id: LocationID, _ side: Side = .after) -> LuaValue {
        entityView(id.words, .location, side, classID: locationClass) { .location(id, side) }
    }

    private func entityView(_ words: (UInt64, UInt64), _ kind: ViewKind, _ side: Side, classID: LuaClassID,
                            _ make: () -> Target) -> LuaValue {
        let tag = kind.tag(side)
        if let index = views.index(words, tag: tag) { return object(classID, index) }
        let index = targets.count
        targets.append(make())
        views.insert(words, tag: tag, index: index)
        return object(classID, index)
    }

    /// What a view shows, for its key in `views` (with the side).
    enum ViewKind: UInt32 {
        case shift, person, shiftType, location
        func tag(_ side: Side) -> UInt32 { rawValue << 1 | UInt32(side.rawValue) }
    }

    private func object(_ classID: LuaClassID, _ index: Int) -> LuaValue {
        .object(viewObject(classID, index))
    }

    /// The object of the view at `index` in `targets`: its id says the generation and the index.
    private func viewObject(_ classID: LuaClassID, _ index: Int) -> LuaObject {
        LuaObject(classID: classID, id: generation << 32 | Int64(index))
    }

    /// The entity behind a view, or an error for a stale or foreign object.
    func target(_ object: LuaObject) throws -> Target { targets[try targetIndex(object)] }

    /// Where the target of a view is in `targets`, or an error for a stale or foreign object.
    private func targetIndex(_ object: LuaObject) throws -> Int {
        guard object.id >> 32 == generation, object.classID != scheduleClass else {
            throw LuaScriptError("stale view: schedule views are only valid during the check that received them")
        }
        let index = Int(object.id & 0xFFFF_FFFF)
        guard index < targets.count else { throw LuaScriptError("stale view") }
        return index
    }

    func side(ofSchedule object: LuaObject) throws -> Side {
        guard object.classID == scheduleClass, object.id >> 32 == generation,
              let side = Side(rawValue: object.id & 0xFFFF_FFFF) else {
            throw LuaScriptError("stale schedule: it is only valid during the check that received it")
        }
        return side
    }

    // MARK: Classes

    /// The fields of each view class, in the order the classes declare them to the runtime (a
    /// field read arrives as its position: no name to compare).
    enum ChangeField: String, CaseIterable { case entity, action, before, after, reason, validating, schedule_before, count }
    enum ShiftField: String, CaseIterable {
        case id, date, type, person, person_id, notes, attributes, event_id, starts_at, ends_at, minutes, hours
    }
    enum PersonField: String, CaseIterable { case id, name, attributes }
    enum ShiftTypeField: String, CaseIterable {
        case id, symbol, title, description, duration, all_day, start_minute, end_minute, minutes, location, attributes
    }
    enum LocationField: String, CaseIterable { case id, name, address, attributes }
    enum ScheduleField: String, CaseIterable { case time_zone, week_start, is_before }

    /// The methods of shift, person, shift type and location views, for error messages.
    private static let viewMethods = "methods: attribute; fields: "

    /// Registers a view class whose fields are the cases of `Field`; `index` gets the case read.
    /// Any other key is an error naming the fields (`what` is the view's name in it).
    private func registerClass<Field: RawRepresentable & CaseIterable>(
        _ name: String, _ what: String, _: Field.Type, extra: @escaping () -> String = { "" },
        _ index: @escaping (LuaObject, Field) throws -> LuaValue
    ) throws -> LuaClassID where Field.RawValue == String, Field.AllCases == [Field] {
        let fields = Field.allCases
        return try runtime.registerClass(name: name, fields: fields.map(\.rawValue)) { object, key in
            switch key {
            case let .field(k): return try index(object, fields[k])
            case .other(.string(let unknown)):
                throw LuaScriptError("\(what) has no field '\(unknown)' (\(extra())\(fields.map(\.rawValue).joined(separator: ", ")))")
            case .other: throw LuaScriptError("\(what.split(separator: " ").dropFirst().joined(separator: " ")) fields are named by strings")
            }
        }
    }

    private func registerClasses() throws {
        changeClass = try registerClass("Change", "a change", ChangeField.self) { [unowned self] object, field in
            guard case let .change(change, validating, before, after) = try target(object) else { throw LuaScriptError("not a change") }
            switch field {
            case .after: return after
            case .before: return before
            default: return try changeField(change, validating: validating, field)
            }
        }
        shiftClass = try registerClass("Shift", "a shift", ShiftField.self, extra: { Self.viewMethods }) { [unowned self] object, field in
            switch try target(object) {
            case let .shift(shift, side): return try shiftField(shift, side, field)
            case let .timed(timed, person): return try timedField(timed, person, field)
            default: throw LuaScriptError("not a shift")
            }
        }
        personClass = try registerClass("Person", "a person", PersonField.self, extra: { Self.viewMethods }) { [unowned self] object, field in
            guard case let .person(id, side) = try target(object), let person = try box(side).person(id) else {
                throw LuaScriptError("person no longer exists")
            }
            switch field {
            case .id: return .string(id.description)
            case .name: return .string(person.displayName)
            case .attributes: return Self.attributes(person.attributes)
            }
        }
        typeClass = try registerClass("ShiftType", "a shift type", ShiftTypeField.self, extra: { Self.viewMethods }) { [unowned self] object, field in
            guard case let .shiftType(id, side) = try target(object), let type = try box(side).shiftType(id) else {
                throw LuaScriptError("shift type no longer exists")
            }
            let (start, end) = type.duration.minuteRange
            switch field {
            case .id: return .string(id.description)
            case .symbol: return .string(type.symbol)
            case .title: return .string(type.title)
            case .description: return .string(type.description)
            case .duration: return .string(type.duration.description)
            case .all_day: return .boolean(type.duration == .allDay)
            case .start_minute: return .integer(Int64(start))
            case .end_minute: return .integer(Int64(end))
            case .minutes: return .integer(Int64(end - start))
            case .location: return type.locationID.map { view(location: $0, side) } ?? .nil
            case .attributes: return Self.attributes(type.attributes)
            }
        }
        locationClass = try registerClass("Location", "a location", LocationField.self, extra: { Self.viewMethods }) { [unowned self] object, field in
            guard case let .location(id, side) = try target(object), let location = try box(side).location(id) else {
                throw LuaScriptError("location no longer exists")
            }
            switch field {
            case .id: return .string(id.description)
            case .name: return .string(location.name)
            case .address: return .string(location.address)
            case .attributes: return Self.attributes(location.attributes)
            }
        }
        // A shift view's common fields are served by the runtime from the words its view was
        // given when made (`shiftWords`, `element(timed:…)`), without a call into Swift: a whole-schedule check reads
        // the date and type of each shift it reports, a change's check the times and person.
        func position(_ field: ShiftField) -> Int { ShiftField.allCases.firstIndex(of: field)! }
        try runtime.setWordFields(shiftClass, [
            position(.starts_at): .integer(word: ShiftWord.start), position(.ends_at): .integer(word: ShiftWord.end),
            position(.date): .date(word: ShiftWord.day), position(.type): .object(word: ShiftWord.type, of: typeClass),
            position(.person): .object(word: ShiftWord.person, of: personClass),
        ])
        try registerAttributeMethod()
        // Methods are static fields of the class, read after the declared fields.
        scheduleClass = try registerClass("Schedule", "the schedule", ScheduleField.self,
                                          extra: { [unowned self] in "methods: \(methods.sorted().joined(separator: ", ")); fields: " }) { [unowned self] object, field in
            let side = try side(ofSchedule: object)
            let settings = try box(side).settings
            switch field {
            case .time_zone: return .string(settings.timeZoneIdentifier)
            case .week_start: return .integer(Int64(settings.weekStart.rawValue))
            case .is_before: return .boolean(side == .before)
            }
        }
        // A schedule has few shift types and locations, read for every shift that names them: kept
        // for the evaluation, their views keep the fields they read (`s.type.symbol` asks Swift
        // once, not once per view Lua let go of).
        try runtime.keepObjects(of: typeClass)
        try runtime.keepObjects(of: locationClass)
        try runtime.keepObjects(of: scheduleClass)
    }

    /// `entity:attribute(name)` on a shift, person, shift type or location view: the one value
    /// (nil when absent), as `entity.attributes[name]` gives it, without making the table of
    /// all of them (which a rule reading one limit pays for on every read).
    private func registerAttributeMethod() throws {
        let function = try runtime.makeSingleValueFunction(name: "attribute") { [unowned self] args in
            guard case let .object(object) = try args.value(0), object.classID != changeClass, object.classID != scheduleClass else {
                throw LuaScriptError("call it as entity:attribute(name) (with a colon) on a shift, person, shift type or location")
            }
            guard case let .string(name) = try args.value(1) else {
                throw LuaScriptError("attribute: the name must be a string, e.g. person:attribute(\"max_hours_per_week\")")
            }
            return try attributes(of: object)[name].map(Self.luaValue) ?? .nil
        }
        for classID in [shiftClass, personClass, typeClass, locationClass] {
            try runtime.setStatic(classID!, "attribute", .function(function))
        }
    }

    /// The attributes of the entity a view shows.
    private func attributes(of object: LuaObject) throws -> Attributes {
        let target = try target(object)
        switch target {
        case .shift, .timed: return try fullShift(target)!.0.attributes
        case let .person(id, side):
            guard let person = try box(side).person(id) else { throw LuaScriptError("person no longer exists") }
            return person.attributes
        case let .shiftType(id, side):
            guard let type = try box(side).shiftType(id) else { throw LuaScriptError("shift type no longer exists") }
            return type.attributes
        case let .location(id, side):
            guard let location = try box(side).location(id) else { throw LuaScriptError("location no longer exists") }
            return location.attributes
        case .change: throw LuaScriptError("a change has no attributes")
        }
    }

    private func changeField(_ change: Change, validating: Bool, _ field: ChangeField) throws -> LuaValue {
        switch field {
        case .entity: return .string(change.entity.rawValue)
        case .action: return .string(change.action.rawValue)
        case .validating: return .boolean(validating)
        case .schedule_before: return scheduleObject(.before)
        case .reason:
            if case let .shift(_, _, reason) = change, let reason { return .string(reason) }
            return .nil
        case .count:
            if case let .changeLogPruned(removed) = change { return .integer(Int64(removed)) }
            return .nil
        case .after, .before: return .nil // served by the class (the views made up front)
        }
    }

    private static func demandRow(_ item: Demand) -> LuaValue {
        var row: [LuaValue: LuaValue] = [.string("id"): .string(item.id.description), .string("type_id"): .string(item.shiftTypeID.description),
                                         .string("minimum"): .integer(Int64(item.minimum)), .string("optimal"): .integer(Int64(item.optimal))]
        if case let .date(date) = item.day { row[.string("date")] = .string(date.description) }
        if case let .weekday(day) = item.day { row[.string("weekday")] = .integer(Int64(day.rawValue)) }
        if let skill = item.skill { row[.string("skill")] = .string(skill) }
        return .table(LuaTable(hash: row))
    }

    private static func availabilityRow(_ item: Availability) -> LuaValue {
        var row: [LuaValue: LuaValue] = [.string("id"): .string(item.id.description), .string("person_id"): .string(item.personID.description),
                                         .string("from"): .string(item.from.description), .string("to"): .string(item.to.description),
                                         .string("kind"): .string(item.kind.rawValue)]
        if let type = item.shiftTypeID { row[.string("type_id")] = .string(type.description) }
        if let weight = item.weight { row[.string("weight")] = .number(weight) }
        return .table(LuaTable(hash: row))
    }

    private static func settingsRow(_ settings: StoreSettings) -> LuaValue {
        .table(LuaTable(hash: [.string("time_zone"): .string(settings.timeZoneIdentifier),
                               .string("week_start"): .integer(Int64(settings.weekStart.rawValue))]))
    }

    private func shiftField(_ shift: ScheduledShift, _ side: Side, _ field: ShiftField) throws -> LuaValue {
        let box = try box(side)
        switch field {
        case .id: return .string(shift.id.description)
        case .date: return .string(shift.date.description)
        case .type: return view(type: shift.shiftTypeID, side)
        case .person: return shift.personID.map { view(person: $0, side) } ?? .nil
        case .person_id: return shift.personID.map { .string($0.description) } ?? .nil
        case .notes: return shift.notes.map { .string($0) } ?? .nil
        case .attributes: return Self.attributes(shift.attributes)
        case .event_id: return .string(shift.eventIdentifier)
        case .starts_at: return .integer(try interval(shift, box).start)
        case .ends_at: return .integer(try interval(shift, box).end)
        case .minutes:
            let span = try interval(shift, box)
            return .integer((span.end - span.start) / 60)
        case .hours:
            let span = try interval(shift, box)
            return .number(Double(span.end - span.start) / 3600)
        }
    }

    /// A timeline shift's field: most come from the timeline; the rest read the shift.
    private func timedField(_ shift: TimedShift, _ person: PersonID, _ field: ShiftField) throws -> LuaValue {
        switch field {
        case .id: return .string(shift.id.description)
        case .date: return .string(shift.date.description)
        case .type: return view(type: shift.type, .after)
        case .person: return view(person: person, .after)
        case .person_id: return .string(person.description)
        case .starts_at: return .integer(shift.start)
        case .ends_at: return .integer(shift.end)
        case .minutes: return .integer((shift.end - shift.start) / 60)
        case .hours: return .number(Double(shift.end - shift.start) / 3600)
        case .notes, .attributes, .event_id:
            guard let (full, side) = try fullShift(.timed(shift, person)) else { throw LuaScriptError("not a shift") }
            return try shiftField(full, side, field)
        }
    }

    private func interval(_ shift: ScheduledShift, _ box: ScheduleBox) throws -> InstantInterval {
        guard let span = box.interval(of: shift) else { throw LuaScriptError("the shift's type no longer exists") }
        return span
    }

    static func attributes(_ attributes: Attributes) -> LuaValue {
        var table = LuaTable()
        for (key, value) in attributes { table.hash[.string(key)] = luaValue(value) }
        return .table(table)
    }

    static func luaValue(_ value: AttributeValue) -> LuaValue {
        switch value {
        case let .string(text): .string(text)
        case let .number(number): number.rounded() == number && abs(number) < 9e15 ? .integer(Int64(number)) : .number(number)
        case let .bool(flag): .boolean(flag)
        case let .list(items): .table(LuaTable(array: items.map(luaValue)))
        }
    }

    // MARK: Argument helpers

    // `what` names the argument in error messages; it is only built when one is thrown.

    func date(_ value: LuaValue, _ what: @autoclosure () -> String) throws -> LocalDate {
        guard case let .string(text) = value else { throw LuaScriptError("\(what()): expected a date string (YYYY-MM-DD)") }
        guard let date = LocalDate(text) else { throw LuaScriptError("\(what()): '\(text)' is not a date (YYYY-MM-DD)") }
        return date
    }

    func personID(_ value: LuaValue, _ what: @autoclosure () -> String) throws -> PersonID {
        switch value {
        case let .object(object):
            guard case let .person(id, _) = try target(object) else { throw LuaScriptError("\(what()): expected a person") }
            return id
        case let .string(text):
            if let id = PersonID(text) { return id }
            if let person = after?.people.first(where: { $0.displayName == text }) { return person.id }
            throw LuaScriptError("\(what()): no person '\(text)'")
        default: throw LuaScriptError("\(what()): expected a person view, id or name")
        }
    }

    func shiftTypeID(_ value: LuaValue, _ what: @autoclosure () -> String) throws -> ShiftTypeID {
        switch value {
        case let .object(object):
            guard case let .shiftType(id, _) = try target(object) else { throw LuaScriptError("\(what()): expected a shift type") }
            return id
        case let .string(text):
            if let id = ShiftTypeID(text) { return id }
            if let type = after?.shiftType(symbol: text) { return type.id }
            throw LuaScriptError("\(what()): no shift type '\(text)'")
        default: throw LuaScriptError("\(what()): expected a shift type view, id or symbol")
        }
    }

    func locationID(_ value: LuaValue, _ what: @autoclosure () -> String) throws -> LocationID {
        switch value {
        case let .object(object):
            guard case let .location(id, _) = try target(object) else { throw LuaScriptError("\(what()): expected a location") }
            return id
        case let .string(text):
            if let id = LocationID(text) { return id }
            if let location = after?.locations.first(where: { $0.name == text }) { return location.id }
            throw LuaScriptError("\(what()): no location '\(text)'")
        default: throw LuaScriptError("\(what()): expected a location view, id or name")
        }
    }

    func shiftID(_ value: LuaValue, _ what: @autoclosure () -> String) throws -> ShiftID {
        switch value {
        case let .object(object):
            guard let shift = shiftSummary(try target(object)) else { throw LuaScriptError("\(what()): expected a shift") }
            return shift.id
        case let .string(text):
            guard let id = ShiftID(text) else { throw LuaScriptError("\(what()): '\(text)' is not a shift id") }
            return id
        default: throw LuaScriptError("\(what()): expected a shift view or id")
        }
    }
}
