import Foundation
import LuaHost
import ShiftCore

/// Reading what rules pass to the API: dates, and entities as views or ids.
extension LuaScheduleAPI {
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
            if let id = afterBox?.withSchedule({ $0.people.first(where: { $0.displayName == text })?.id }) { return id }
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
            if let id = afterBox?.withSchedule({ $0.shiftType(symbol: text)?.id }) { return id }
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
            if let id = afterBox?.withSchedule({ $0.locations.first(where: { $0.name == text })?.id }) { return id }
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
