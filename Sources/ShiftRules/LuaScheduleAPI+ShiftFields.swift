import Foundation
import LuaHost
import ShiftCore

/// A shift view's fields, each defined once. A view shows a shift of the schedule (on one side of
/// the change) or a timeline's shift (after the change, with its times computed); `shiftField`
/// serves every field from either, and `shiftWords` gives the runtime the fields it serves
/// without asking Swift (`starts_at`, `ends_at`, `date`, `type`, `person`: the word fields set in
/// `registerClasses`). A new field is a case of `ShiftField` and a line in `shiftField`; a new
/// word field, a line in `shiftWords` and one in `registerClasses`.
extension LuaScheduleAPI {
    /// The shift behind a shift view.
    enum ShiftSource {
        case shift(ScheduledShift, Side)
        case timed(TimedShift, PersonID)

        init?(_ target: Target) {
            switch target {
            case let .shift(shift, side): self = .shift(shift, side)
            case let .timed(shift, person): self = .timed(shift, person)
            default: return nil
            }
        }

        var id: ShiftID {
            switch self {
            case let .shift(shift, _): shift.id
            case let .timed(shift, _): shift.id
            }
        }

        var date: LocalDate {
            switch self {
            case let .shift(shift, _): shift.date
            case let .timed(shift, _): shift.date
            }
        }

        var type: ShiftTypeID {
            switch self {
            case let .shift(shift, _): shift.shiftTypeID
            case let .timed(shift, _): shift.type
            }
        }

        var person: PersonID? {
            switch self {
            case let .shift(shift, _): shift.personID
            case let .timed(_, person): person
            }
        }

        var side: Side {
            switch self {
            case let .shift(_, side): side
            case .timed: .after
            }
        }
    }

    /// Its real interval (a timeline's shift carries it), nil when its type cannot give it.
    func span(_ source: ShiftSource) -> InstantInterval? {
        switch source {
        case let .shift(shift, side): (side == .after ? afterBox : beforeBox)?.interval(of: shift)
        case let .timed(shift, _): InstantInterval(start: shift.start, end: shift.end)
        }
    }

    /// The shift in full: a timeline's is read from the schedule, for the fields it does not carry.
    func shiftInFull(_ source: ShiftSource) throws -> ScheduledShift {
        switch source {
        case let .shift(shift, _): return shift
        case let .timed(timed, person):
            guard let shift = try box(.after).shift(timed.id, of: person) else { throw LuaScriptError("the shift no longer exists") }
            return shift
        }
    }

    func shiftField(_ source: ShiftSource, _ field: ShiftField) throws -> LuaValue {
        // A view of a side no longer evaluated is stale, whatever field it is asked for.
        if case let .shift(_, side) = source { _ = try box(side) }
        func times() throws -> InstantInterval {
            guard let span = span(source) else { throw LuaScriptError("the shift's type no longer exists") }
            return span
        }
        switch field {
        case .id: return .string(source.id.description)
        case .date: return .string(source.date.description)
        case .type: return view(type: source.type, source.side)
        case .person: return source.person.map { view(person: $0, source.side) } ?? .nil
        case .person_id: return source.person.map { .string($0.description) } ?? .nil
        case .notes: return try shiftInFull(source).notes.map { .string($0) } ?? .nil
        case .attributes: return Self.attributes(try shiftInFull(source).attributes)
        case .event_id: return .string(try shiftInFull(source).eventIdentifier)
        case .starts_at: return .integer(try times().start)
        case .ends_at: return .integer(try times().end)
        case .minutes:
            let span = try times()
            return .integer((span.end - span.start) / 60)
        case .hours:
            let span = try times()
            return .number(Double(span.end - span.start) / 3600)
        }
    }

    /// The places of the word fields in a shift view's words (`LuaRuntime.setWords`).
    enum ShiftWord {
        static let start = 0, end = 1, day = 2, type = 3, person = 4
    }

    /// The words of a shift view: what `shiftField` serves for the word fields. A time the
    /// shift's type cannot give is left out (the field then asks Swift, which names the problem).
    /// `personObject`: the person's view, when the caller has it (a timeline's).
    func shiftWords(_ source: ShiftSource, personObject: Int64? = nil) -> LuaObjectWords {
        var words = LuaObjectWords()
        if let span = span(source) {
            words[ShiftWord.start] = span.start
            words[ShiftWord.end] = span.end
        }
        words[ShiftWord.day] = Int64(source.date.dayNumber)
        let side = source.side
        words[ShiftWord.type] = side == .after ? typeObject(source.type) : objectID(view(type: source.type, side))
        words[ShiftWord.person] = personObject ?? source.person.map { objectID(view(person: $0, side)) } ?? 0
        return words
    }
}
