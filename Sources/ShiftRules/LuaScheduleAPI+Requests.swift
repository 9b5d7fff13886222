import Foundation
import LuaHost
import ShiftCore

extension LuaScheduleAPI {
    /// A request as rules see it (`change.before`, `change.after` of a request change): a
    /// read-only table with its kind, state, people and shifts as views of that side's schedule.
    func requestRow(_ request: Request, _ side: Side) -> LuaValue {
        let schedule = try? box(side)
        var row: [LuaValue: LuaValue] = [
            .string("id"): .string(request.id.description),
            .string("kind"): .string(request.kind.rawValue),
            .string("state"): .string(request.state.rawValue),
            .string("requester_id"): .string(request.requesterID.description),
        ]
        if schedule?.person(request.requesterID) != nil { row[.string("requester")] = view(person: request.requesterID, side) }
        if let colleague = request.colleagueID {
            row[.string("colleague_id")] = .string(colleague.description)
            if schedule?.person(colleague) != nil { row[.string("colleague")] = view(person: colleague, side) }
        }
        for (seen, name) in [(request.shift, "shift"), (request.colleagueShift, "colleague_shift")] {
            guard let seen else { continue }
            row[.string(name + "_id")] = .string(seen.shiftID.description)
            row[.string(name + "_date")] = .string(seen.date.description)
            if let shift = schedule?.shift(seen.shiftID) { row[.string(name)] = view(shift, side) }
        }
        if let from = request.from { row[.string("from")] = .string(from.description) }
        if let to = request.to { row[.string("to")] = .string(to.description) }
        if let type = request.shiftTypeID, schedule?.shiftType(type) != nil { row[.string("type")] = view(type: type, side) }
        if let reason = request.reason { row[.string("reason")] = .string(reason) }
        if let made = request.madeAt { row[.string("made_at")] = .integer(Int64((made.timeIntervalSince1970).rounded(.down))) }
        if let last = request.history.last {
            row[.string("by")] = .string(last.userId)
            if let reason = last.reason { row[.string("state_reason")] = .string(reason) }
        }
        return .table(LuaTable(hash: row))
    }

    static let requestOptions = LuaFieldNames(["person", "kind", "state", "from", "to"])

    /// `schedule:requests{ person = p, kind = "time_off", state = "pending", from = d, to = d }`:
    /// requests as `change.after` shows them, oldest first. `person` matches the requester;
    /// `from` and `to` keep the requests made on those days (in the store's time zone).
    func requests(_ schedule: borrowing Schedule, _ side: Side, _ args: LuaArguments) throws -> LuaValue {
        var person: PersonID?
        var kind: RequestKind?
        var state: RequestState?
        var from: LocalDate?
        var to: LocalDate?
        if !args.isNil(1) {
            guard args.isTable(1) else {
                throw LuaScriptError("requests: expected a table of filters, e.g. schedule:requests{ person = p, kind = \"time_off\" }")
            }
            try args.withFields(1, Self.requestOptions) { fields in
                let who = try fields.value(0)
                if !who.isNil { person = try personID(who, "requests: person") }
                if case let .string(text) = try fields.value(1) {
                    guard let parsed = RequestKind(rawValue: text) else {
                        throw LuaScriptError("requests: kind '\(text)' is not swap, offer, claim or time_off")
                    }
                    kind = parsed
                }
                if case let .string(text) = try fields.value(2) {
                    guard let parsed = RequestState(rawValue: text) else {
                        throw LuaScriptError("requests: state '\(text)' is not pending, accepted, approved, declined, cancelled or expired")
                    }
                    state = parsed
                }
                let first = try fields.value(3)
                if !first.isNil { from = try date(first, "requests: from") }
                let last = try fields.value(4)
                if !last.isNil { to = try date(last, "requests: to") }
            }
        }
        let zone = schedule.zone
        let list = schedule.requests.filter { request in
            guard person.map({ request.requesterID == $0 }) ?? true, kind.map({ request.kind == $0 }) ?? true,
                  state.map({ request.state == $0 }) ?? true else { return false }
            guard from != nil || to != nil else { return true }
            guard let made = request.madeAt else { return false }
            let day = zone.localDateTime(at: made).date
            return (from.map { day >= $0 } ?? true) && (to.map { day <= $0 } ?? true)
        }
        return .table(LuaTable(array: list.map { requestRow($0, side) }))
    }
}
