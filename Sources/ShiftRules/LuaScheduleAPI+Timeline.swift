import LuaHost
import ShiftCore

/// The person phase of `validate` (`validate_person(person, shifts, schedule, report, params)`): one
/// person's shifts in time order, handed to Lua as a timeline (a host sequence,
/// `LuaRuntime.makeSequenceConstructor`) whose columns (`starts`, `ends`, `days`, …) are plain
/// arrays made on first read (the integer ones from a buffer filled here), and whose elements
/// (`shifts[i]`) are the usual read-only shift views, made only when a rule asks for one.
///
/// Each call gets fresh tables: a rule that writes into its arrays changes nothing another rule
/// sees. The timelines live for one evaluation, like views.
extension LuaScheduleAPI {
    /// The columns a timeline offers, in the order error messages list them.
    static let timelineColumns = ["starts", "ends", "minutes", "days", "dates", "types", "ids"]
    /// The integer columns, which C makes from a buffer the timeline fills (in this order).
    static let integerColumns = ["starts", "ends", "minutes", "days"]

    /// A person's shifts handed to a person phase: `personObject` is the id of the person's view.
    struct Timeline {
        let person: PersonID
        let personObject: Int64
        let shifts: [TimedShift]
    }

    /// Registers a person's timeline for this evaluation; returns the person's view and the
    /// handle the driver passes back.
    func registerTimeline(_ person: PersonID, _ shifts: [TimedShift]) -> (person: LuaValue, handle: Int64) {
        let view = view(person: person)
        guard case let .object(object) = view else { preconditionFailure("a view is an object") }
        timelines.append(Timeline(person: person, personObject: object.id, shifts: shifts))
        return (view, generation << 32 | Int64(timelinesDropped + timelines.count - 1))
    }

    /// Forgets the timelines handed out so far (the person phase does this after each group of
    /// people, so a whole schedule is never held twice); their handles go stale.
    func dropTimelines() {
        timelinesDropped += timelines.count
        timelines.removeAll(keepingCapacity: true)
    }

    /// The constructor of timelines, `make(handle, n)` (see `LuaRuntime.makeSequenceConstructor`):
    /// `shifts[i]` is served by C with the shift view and its words, a column by `timelineColumn`.
    func makeTimelineConstructor() throws -> LuaValue {
        let make = try runtime.makeSequenceConstructor(name: "timeline", element: { [unowned self] handle, index in
            shiftReads.other = true
            return try timelineElement(handle, index)
        }, integerColumns: Self.integerColumns, column: { [unowned self] handle, column, into in
            shiftReads.columns |= 1 << UInt8(column & 7)
            let shifts = try timeline(handle).shifts
            guard into.count == shifts.count else { throw LuaScriptError("stale timeline: it is only valid during the call that received it") }
            try shifts.withUnsafeBufferPointer { shifts in
                switch column {
                case 0: for i in shifts.indices { into[i] = shifts[i].start }
                case 1: for i in shifts.indices { into[i] = shifts[i].end }
                case 2: for i in shifts.indices { into[i] = (shifts[i].end - shifts[i].start) / 60 }
                case 3: for i in shifts.indices { into[i] = Int64(shifts[i].date.dayNumber) }
                default: throw LuaScriptError("a timeline has no integer column \(column)")
                }
            }
        }, field: { [unowned self] handle, key in
            let timeline = try timeline(handle)
            guard case let .string(name) = key else { throw LuaScriptError("timeline fields are named by strings") }
            if name == "attributes" {
                // What the shifts are, not only where they lie: a call reading it is remembered
                // with the shifts' ids (as one that reads `shifts[i]`).
                shiftReads.other = true
                return try timelineAttributes(timeline)
            }
            if let column = Self.timelineColumns.firstIndex(of: name) { shiftReads.columns |= 1 << UInt8(column) }
            return try timelineColumn(name, timeline.shifts)
        })
        return .function(make)
    }

    private func timeline(_ handle: Int64) throws -> Timeline { timelines[try timelineIndex(handle)] }

    /// `shifts[index]` of the timeline `handle` (nil outside 1…n), read where it is.
    private func timelineElement(_ handle: Int64, _ index: Int) throws -> LuaElement? {
        let position = try timelineIndex(handle)
        return timelines.withUnsafeBufferPointer { timelines in
            let timeline = timelines.baseAddress! + position
            guard index >= 1, index <= timeline.pointee.shifts.count else { return nil }
            return element(timed: timeline.pointee.shifts[index - 1], of: timeline.pointee.person,
                           personObject: timeline.pointee.personObject)
        }
    }

    /// Where the timeline of `handle` is in `timelines` (read in place: no copy of its shifts).
    private func timelineIndex(_ handle: Int64) throws -> Int {
        let index = Int(handle & 0xFFFF_FFFF) - timelinesDropped
        guard handle >> 32 == generation, index >= 0, index < timelines.count else {
            throw LuaScriptError("stale timeline: it is only valid during the call that received it")
        }
        return index
    }

    private func timelineColumn(_ name: String, _ shifts: [TimedShift]) throws -> LuaValue {
        let values: [LuaValue]
        switch name {
        case "dates":
            var last: (LocalDate, LuaValue)?
            values = shifts.map { shift in
                if let last, last.0 == shift.date { return last.1 }
                let text = LuaValue.string(shift.date.description)
                last = (shift.date, text)
                return text
            }
        case "types":
            let box = try box(.after)
            var symbols: [ShiftTypeID: LuaValue] = [:]
            values = shifts.map { shift in
                if let known = symbols[shift.type] { return known }
                let symbol = LuaValue.string(box.shiftType(shift.type)?.symbol ?? "")
                symbols[shift.type] = symbol
                return symbol
            }
        case "ids": values = shifts.map { .string($0.id.description) }
        default:
            throw LuaScriptError(
                "a timeline has no field '\(name)' (n, \(Self.timelineColumns.joined(separator: ", ")), attributes, and shifts[i] for the i-th shift)")
        }
        return .table(LuaTable(array: values))
    }

    /// `shifts.attributes`: per attribute name any of the shifts has, a column of its values
    /// (`shifts.attributes.skill[i]` is the i-th shift's `skill`, nil where it has none), as
    /// `shifts[i]:attribute(name)` reads them, without a view per shift.
    private func timelineAttributes(_ timeline: Timeline) throws -> LuaValue {
        let box = try box(.after)
        let count = timeline.shifts.count
        var columns: [String: [LuaValue]] = [:]
        for (index, timed) in timeline.shifts.enumerated() {
            guard let shift = box.shift(timed.id, of: timeline.person) else { continue }
            for (name, value) in shift.attributes {
                columns[name, default: [LuaValue](repeating: .nil, count: count)][index] = Self.luaValue(value)
            }
        }
        var table: [LuaValue: LuaValue] = [:]
        for (name, values) in columns { table[.string(name)] = .table(LuaTable(array: values)) }
        return .table(LuaTable(hash: table))
    }
}
