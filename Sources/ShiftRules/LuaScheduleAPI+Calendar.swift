import Foundation
import LuaHost
import ShiftCore

extension LuaScheduleAPI {
    /// The `cal` table of calendar helpers. Dates are `YYYY-MM-DD` strings; instants are seconds
    /// since 1970 (UTC), computed in the store's time zone.
    func registerCalendar() throws {
        var functions: [LuaValue: LuaValue] = [:]
        func add(_ name: String, _ body: @escaping (LuaArguments) throws -> [LuaValue]) throws {
            functions[.string(name)] = .function(try runtime.makeFunction(name: "cal.\(name)", body))
        }
        // Most helpers return one value: these skip the list of results.
        func one(_ name: String, _ body: @escaping (LuaArguments) throws -> LuaValue) throws {
            functions[.string(name)] = .function(try runtime.makeSingleValueFunction(name: "cal.\(name)", body))
        }
        // A closure holding the API unowned, not a nested function: a function nested here would
        // hold it strongly, and the runtime keeps the closures below (a cycle that leaked the
        // whole runtime).
        let dateArgument = { [unowned self] (args: LuaArguments, index: Int, function: String) throws -> LocalDate in
            // Read from the Lua string's bytes; anything else goes the long way for its error.
            if let date = args.isoDate(index) { return date }
            return try date(try args.value(index), "cal.\(function)")
        }

        try one("today") { [unowned self] _ in
            let instant = Int64(now().timeIntervalSince1970.rounded(.down))
            return .string(currentZone.localDateTime(atUTC: instant).date.description)
        }
        try one("add_days") { args in
            .string(try dateArgument(args, 0, "add_days").adding(days: Int(try args.integer(1))).description)
        }
        try one("days_between") { args in
            .integer(Int64(try dateArgument(args, 0, "days_between").days(to: try dateArgument(args, 1, "days_between"))))
        }
        try one("weekday") { args in .integer(Int64(try dateArgument(args, 0, "weekday").weekday.rawValue)) }
        try one("weekday_name") { args in .string(try dateArgument(args, 0, "weekday_name").weekday.name) }
        try one("is_weekend") { args in
            let day = try dateArgument(args, 0, "is_weekend").weekday
            return .boolean(day == .saturday || day == .sunday)
        }
        try one("weekends") { args in
            let from = try dateArgument(args, 0, "weekends")
            let to = try dateArgument(args, 1, "weekends")
            guard from.days(to: to) <= 36_600 else { throw LuaScriptError("cal.weekends: at most 36600 days (100 years) at a time") }
            // Each Saturday–Sunday pair with a day inside the range, both days given.
            var saturday = from.adding(days: (Weekday.saturday.rawValue - from.weekday.rawValue + 7) % 7)
            if from.weekday == .sunday { saturday = from.adding(days: -1) }
            var list: [LuaValue] = []
            while saturday <= to {
                list.append(.table(LuaTable(hash: [.string("saturday"): .string(saturday.description),
                                                   .string("sunday"): .string(saturday.adding(days: 1).description)])))
                saturday = saturday.adding(days: 7)
            }
            return .table(LuaTable(array: list))
        }
        try add("iso_week") { args in
            let (year, week) = try dateArgument(args, 0, "iso_week").isoWeek
            return [.integer(Int64(year)), .integer(Int64(week))]
        }
        try one("week_start") { [unowned self] args in
            let day = try dateArgument(args, 0, "week_start")
            var start = (try? box(.after).settings.weekStart) ?? .monday
            if !args.isNil(1) {
                guard let number = try args.value(1).integerValue, let weekday = Weekday(rawValue: Int(number)) else {
                    throw LuaScriptError("cal.week_start: the week start is a weekday number, 1 (Monday) to 7 (Sunday)")
                }
                start = weekday
            }
            return .string(day.startOfWeek(weekStart: start).description)
        }
        try one("month") { args in .string(String(try dateArgument(args, 0, "month").description.prefix(7))) }
        try one("date") { args in
            guard let date = LocalDate(year: Int(try args.integer(0)), month: Int(try args.integer(1)), day: Int(try args.integer(2))) else {
                throw LuaScriptError("cal.date: \(try args.integer(0))-\(try args.integer(1))-\(try args.integer(2)) is not a date")
            }
            return .string(date.description)
        }
        try one("is_date") { args in
            guard case let .string(text) = try args.value(0) else { return .boolean(false) }
            return .boolean(LocalDate(text) != nil)
        }
        try one("instant") { [unowned self] args in
            let day = try dateArgument(args, 0, "instant")
            let minutes: Int
            switch try args.value(1) {
            case .nil: minutes = 0
            case let .string(text):
                guard let time = HourMinuteTime(text) else { throw LuaScriptError("cal.instant: '\(text)' is not a time (HH:MM)") }
                minutes = time.minutesSinceMidnight
            case let value:
                guard let number = value.integerValue else { throw LuaScriptError("cal.instant: the time is \"HH:MM\" or minutes after midnight") }
                minutes = Int(number)
            }
            return .integer(currentZone.instant(of: day, minutes: minutes))
        }
        try one("date_of") { [unowned self] args in
            .string(currentZone.localDateTime(atUTC: try args.integer(0)).date.description)
        }
        // The zone's offset is looked up again only past the span it holds for (most of a year
        // between changes of clocks): a call neither copies the zone's rules nor takes hold of
        // the API, which only the lookup needs.
        let span = clockSpan
        try one("time_of") { [unowned self] args in
            let seconds = try args.integer(0)
            if !span.holds(seconds) { span.take(currentZone.offsetSpan(atUTC: seconds)) }
            return Self.clockTimes[span.minuteOfDay(seconds)]
        }
        try one("minutes_between") { args in .integer((try args.integer(1) - args.integer(0)) / 60) }
        try one("hours_between") { args in .number(Double(try args.integer(1) - args.integer(0)) / 3600) }

        let table = try runtime.makeRef(.table(LuaTable(hash: functions)))
        try runtime.freeze(table, name: "cal")
        try runtime.setGlobal("cal", .reference(table))
    }

    /// An offset of a zone and the instants `[from, to)` it holds for.
    final class ClockSpan {
        private var from: Int64 = 1, to: Int64 = 0, offset: Int64 = 0

        func holds(_ seconds: Int64) -> Bool { from <= seconds && seconds < to }
        func take(_ span: (from: Int64, to: Int64, offset: Int64)) { (from, to, offset) = span }
        func empty() { (from, to) = (1, 0) }

        /// The local minute of the day of an instant it holds.
        func minuteOfDay(_ seconds: Int64) -> Int {
            let local = seconds &+ offset
            let day = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
            return Int((local - day * 86_400) / 60)
        }
    }

    /// "00:00" … "23:59", made once: `cal.time_of` is asked twice per finding in many messages
    /// (`util.when`), a million times in a messy roster's `validate`.
    static let clockTimes: [LuaValue] = (0..<1440).map { .string(HourMinuteTime(hour: $0 / 60, minute: $0 % 60)!.description) }
}
