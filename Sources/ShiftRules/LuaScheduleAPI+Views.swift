import Foundation
import LuaHost
import ShiftCore

/// Views: the host objects a rule sees for shifts, people, shift types, locations and changes,
/// interned per evaluation, with their words.
extension LuaScheduleAPI {
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
        let objectWords = shiftWords(.timed(shift, person), personObject: personObject)
        if let index = views.index(words, tag: tag) { return LuaElement(viewObject(shiftClass, index), words: objectWords) }
        let index = targets.count
        targets.append(.timed(shift, person))
        views.insert(words, tag: tag, index: index)
        // A new index, so an id never handed to Lua.
        return LuaElement(viewObject(shiftClass, index), words: objectWords, isNew: true)
    }

    /// The id of a shift type's view (after side), from a few remembered in this evaluation: the
    /// shifts a timeline hands over have a handful of types between them.
    func typeObject(_ type: ShiftTypeID) -> Int64 {
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
    func shiftView(_ id: ShiftID, _ side: Side, _ make: () -> Target) -> LuaValue {
        let (words, tag) = (id.words, ViewKind.shift.tag(side))
        if let index = views.index(words, tag: tag) { return object(shiftClass, index) }
        let index = targets.count
        let target = make()
        targets.append(target)
        views.insert(words, tag: tag, index: index)
        let view = viewObject(shiftClass, index)
        runtime.setWords(view, ShiftSource(target).map { shiftWords($0) } ?? LuaObjectWords())
        return .object(view)
    }

    func objectID(_ value: LuaValue) -> Int64 {
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
    func entityViews(of change: Change) -> (LuaValue, LuaValue) {
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
        case let .request(before, after):
            return (before.map { requestRow($0, .before) } ?? .nil, after.map { requestRow($0, .after) } ?? .nil)
        case .changeLogPruned, .changeLogRecorded:
            return (.nil, .nil)
        }
    }

    /// The shift behind a shift view, read in full, and its side.
    func fullShift(_ target: Target) throws -> (ScheduledShift, Side)? {
        switch target {
        case let .shift(shift, side): return (shift, side)
        case let .timed(timed, person): return (try shiftInFull(.timed(timed, person)), .after)
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

    func entityView(_ words: (UInt64, UInt64), _ kind: ViewKind, _ side: Side, classID: LuaClassID,
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

    func object(_ classID: LuaClassID, _ index: Int) -> LuaValue {
        .object(viewObject(classID, index))
    }

    /// The object of the view at `index` in `targets`: its id says the generation and the index.
    func viewObject(_ classID: LuaClassID, _ index: Int) -> LuaObject {
        LuaObject(classID: classID, id: generation << 32 | Int64(index))
    }

    /// The entity behind a view, or an error for a stale or foreign object.
    func target(_ object: LuaObject) throws -> Target { targets[try targetIndex(object)] }

    /// Where the target of a view is in `targets`, or an error for a stale or foreign object.
    func targetIndex(_ object: LuaObject) throws -> Int {
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
}
