import LuaHost
import ShiftCore

/// The person phase of `validate` (`validate_person(person, shifts, schedule, report, params)`): one
/// person's shifts in time order, handed to Lua as a timeline whose columns (`starts`, `ends`,
/// `days`, …) are plain arrays made on first read, and whose elements (`shifts[i]`) are the
/// usual read-only shift views, made only when a rule asks for one.
///
/// Each call gets fresh tables: a rule that writes into its arrays changes nothing another rule
/// sees. The timelines live for one evaluation, like views.
extension LuaScheduleAPI {
    /// The columns a timeline offers, in the order error messages list them.
    static let timelineColumns = ["starts", "ends", "minutes", "days", "dates", "types", "ids"]

    /// Registers a person's timeline for this evaluation; returns the handle the driver passes back.
    func registerTimeline(_ person: PersonID, _ shifts: [TimedShift]) -> Int64 {
        timelines.append((person, shifts))
        return generation << 32 | Int64(timelinesDropped + timelines.count - 1)
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
            let (person, shifts) = try timeline(handle)
            guard index >= 1, index <= shifts.count else { return nil }
            return element(timed: shifts[index - 1], of: person)
        }, field: { [unowned self] handle, key in
            let shifts = try timeline(handle).shifts
            guard case let .string(name) = key else { throw LuaScriptError("timeline fields are named by strings") }
            return try timelineColumn(name, shifts)
        })
        return .function(make)
    }

    private func timeline(_ handle: Int64) throws -> (person: PersonID, shifts: [TimedShift]) {
        let index = Int(handle & 0xFFFF_FFFF) - timelinesDropped
        guard handle >> 32 == generation, index >= 0, index < timelines.count else {
            throw LuaScriptError("stale timeline: it is only valid during the call that received it")
        }
        return timelines[index]
    }

    private func timelineColumn(_ name: String, _ shifts: [TimedShift]) throws -> LuaValue {
        let values: [LuaValue]
        switch name {
        case "starts": return .integers(shifts.map(\.start))
        case "ends": return .integers(shifts.map(\.end))
        case "minutes": return .integers(shifts.map { ($0.end - $0.start) / 60 })
        case "days": return .integers(shifts.map { Int64($0.date.dayNumber) })
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
            throw LuaScriptError("a timeline has no field '\(name)' (n, \(Self.timelineColumns.joined(separator: ", ")), and shifts[i] for the i-th shift)")
        }
        return .table(LuaTable(array: values))
    }
}
