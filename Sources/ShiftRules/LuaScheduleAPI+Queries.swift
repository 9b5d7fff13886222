import Foundation
import LuaHost
import ShiftCore

extension LuaScheduleAPI {
    /// The schedule's methods (`schedule:shifts{…}`); each receives the schedule object first.
    func registerMethods() throws {
        func method(_ name: String, _ body: @escaping (borrowing Schedule, Side, LuaArguments) throws -> LuaValue) throws {
            let readsShifts = !Self.methodsNotReadingShifts.contains(name)
            let function = try runtime.makeSingleValueFunction(name: "schedule:\(name)") { [unowned self] args in
                guard case let .object(object) = try args.value(0), object.classID == scheduleClass else {
                    throw LuaScriptError("call it as schedule:\(name)(…) (with a colon)")
                }
                if readsShifts { shiftReads.other = true }
                let side = try side(ofSchedule: object)
                return try box(side).withSchedule { try body($0, side, args) }
            }
            try setMethod(name, .function(function))
        }

        try method("shifts") { [unowned self] schedule, side, args in
            var (query, filter) = try shiftQuery(args, schedule)
            // The limit counts the shifts that pass the filter, so it is applied here.
            let limit = query.limit
            query.limit = nil
            var list: [LuaValue] = []
            schedule.forEachShift(query) { shift in
                if filter.admits(shift) { list.append(view(shift, side)) }
                return limit.map { list.count < $0 } ?? true
            }
            return .table(LuaTable(array: list))
        }
        try method("count") { [unowned self] schedule, _, args in
            let (query, filter) = try shiftQuery(args, schedule)
            return .integer(Int64(schedule.count(query, attributes: filter.attributes, stopAt: query.limit)))
        }
        try method("minutes") { [unowned self] schedule, side, args in
            var (query, filter) = try shiftQuery(args, schedule)
            // The common question — a person's hours in a period — has a fast path in the index.
            if filter.isEmpty, let person = query.personID, let from = query.from, let to = query.to,
               query.shiftTypeIDs == nil, query.locationID == nil, query.overlapping == nil, query.excluding == nil,
               !query.unassignedOnly {
                let key = MinutesKey(side: side, person: person, from: from, to: to)
                if let cached = minutesCache[key] { return .integer(Int64(cached)) }
                let minutes = schedule.minutesWorked(by: person, from: from, to: to)
                minutesCache[key] = minutes
                return .integer(Int64(minutes))
            }
            query.limit = nil
            var total: Int64 = 0
            schedule.forEachShiftUnordered(query) { shift in
                if filter.admits(shift), let span = schedule.interval(of: shift) { total += (span.end - span.start) / 60 }
                return true
            }
            return .integer(total)
        }
        try method("work_days") { [unowned self] schedule, _, args in
            var (query, filter) = try shiftQuery(args, schedule)
            query.limit = nil
            var days: [LuaValue] = []
            var last: LocalDate?
            schedule.forEachShift(query) { shift in
                if filter.admits(shift), shift.date != last {
                    days.append(.string(shift.date.description))
                    last = shift.date
                }
                return true
            }
            return .table(LuaTable(array: days))
        }
        try method("work_run") { [unowned self] schedule, _, args in
            let usage = "work_run: expected { person = p, date = d [, limit = n] }"
            guard args.isTable(1) else { throw LuaScriptError(usage) }
            let table = try options(args, 1, Self.workRunOptions, usage)
            let person = try personID(table.person, "work_run: person")
            let day = try table.day ?? date(table.date, "work_run: date")
            let limit = table.limit.integerValue.map { Int($0) } ?? 3650
            guard let run = schedule.workRun(of: person, containing: day, limit: max(0, limit)) else { return .nil }
            return .table(LuaTable(hash: [
                .string("first"): .string(run.lowerBound.description), .string("last"): .string(run.upperBound.description),
                .string("days"): .integer(Int64(run.lowerBound.days(to: run.upperBound) + 1)),
            ]))
        }
        try method("shift") { [unowned self] schedule, side, args in
            let id = try shiftID(try args.value(1), "schedule:shift")
            return schedule.shift(id).map { view($0, side) } ?? .nil
        }
        try method("person") { [unowned self] schedule, side, args in
            guard let id = try? personID(try args.value(1), "schedule:person"), schedule.person(id) != nil else { return .nil }
            return view(person: id, side)
        }
        try method("people") { [unowned self] schedule, side, _ in
            .table(LuaTable(array: schedule.people.map { view(person: $0.id, side) }))
        }
        try method("shift_type") { [unowned self] schedule, side, args in
            guard let id = try? shiftTypeID(try args.value(1), "schedule:shift_type"), schedule.shiftType(id) != nil else { return .nil }
            return view(type: id, side)
        }
        try method("shift_types") { [unowned self] schedule, side, args in
            let filter = try args.value(1)
            var types = schedule.shiftTypes
            if case let .table(table) = filter, !table["location"].isNil {
                let location = try locationID(table["location"], "shift_types: location")
                types = types.filter { $0.locationID == location }
            }
            return .table(LuaTable(array: types.map { view(type: $0.id, side) }))
        }
        try method("location") { [unowned self] schedule, side, args in
            guard let id = try? locationID(try args.value(1), "schedule:location"), schedule.location(id) != nil else { return .nil }
            return view(location: id, side)
        }
        try method("locations") { [unowned self] schedule, side, _ in
            .table(LuaTable(array: schedule.locations.map { view(location: $0.id, side) }))
        }
        try method("demand") { [unowned self] schedule, side, args in
            try demand(schedule, side, try args.value(1))
        }
        try method("availability") { [unowned self] schedule, side, args in
            try availability(schedule, side, try options(args, 1, Self.availabilityOptions, "availability: expected a table of filters, e.g. schedule:availability{ person = p, date = d }"))
        }
        try method("requests") { [unowned self] schedule, side, args in
            try requests(schedule, side, args)
        }
        try method("runs") { [unowned self] schedule, side, args in
            try runs(schedule, side, try args.value(1))
        }
        try method("setting") { schedule, _, args in
            guard case let .string(name) = try args.value(1) else {
                throw LuaScriptError("setting: expected a name, e.g. schedule:setting(\"horizon.first\")")
            }
            return schedule.settings.extra[name].map(Self.luaValue) ?? .nil
        }
        try method("horizon") { [unowned self] schedule, side, _ in
            let period: ClosedRange<LocalDate>?
            do {
                period = try box(side).settingsHorizon() ?? {
                    // Without the settings, the horizon is the span of everyone's shifts.
                    shiftReads.everyone = true
                    return schedule.shiftDateRange
                }()
            } catch {
                throw LuaScriptError("horizon: the store's \(Self.horizonFirst) and \(Self.horizonLast) settings must be dates (YYYY-MM-DD), first <= last")
            }
            guard let range = period else { return .nil }
            return .table(LuaTable(hash: [.string("first"): .string(range.lowerBound.description),
                                          .string("last"): .string(range.upperBound.description),
                                          .string("days"): .integer(Int64(range.lowerBound.days(to: range.upperBound) + 1))]))
        }
        try method("date_range") { [unowned self] schedule, _, _ in
            shiftReads.everyone = true
            guard let range = schedule.shiftDateRange else { return .nil }
            return .table(LuaTable(hash: [.string("first"): .string(range.lowerBound.description),
                                          .string("last"): .string(range.upperBound.description)]))
        }
    }

    /// The schedule methods whose answer does not depend on the scheduled shifts (`horizon`
    /// does only when the settings do not set it; it says so itself).
    static let methodsNotReadingShifts: Set<String> = [
        "person", "people", "shift_type", "shift_types", "location", "locations", "demand", "availability", "requests",
        "setting", "horizon",
    ]

    /// A query table (`{ person = p, from = "2026-03-01", overlapping = s, … }`, the method's
    /// first argument) as a `ShiftQuery`, plus the attribute values asked for. Read entry by
    /// entry, without copying the table.
    /// The filters of `schedule:shifts{…}` and the other shift queries, read in one pass in C
    /// (numbered in this order, the one `shiftQuery` applies them in and its error lists).
    private static let queryFields = LuaFieldNames([
        "person", "from", "to", "date", "type", "location", "unassigned", "limit", "order", "exclude", "overlapping", "attributes",
    ])
    private static let spanFields = LuaFieldNames(["starts_at", "ends_at"])

    private func shiftQuery(_ args: LuaArguments, _ schedule: Schedule) throws -> (ShiftQuery, ShiftFilter) {
        var query = ShiftQuery()
        var filter = ShiftFilter()
        if args.isNil(1) { return (query, filter) }
        guard args.isTable(1) else {
            throw LuaScriptError("shifts: expected a table of filters, e.g. schedule:shifts{ person = p, from = d }")
        }
        try args.withFields(1, Self.queryFields) { fields in
            if fields.strayCount > 0 {
                guard case let .string(name) = try fields.strayKey() else { throw LuaScriptError("shifts: query keys are names") }
                throw LuaScriptError("shifts: unknown filter '\(name)' (\(Self.queryFields.names.joined(separator: ", ")))")
            }
            // In the order of `queryFields`: `date` wins over `from` and `to`.
            for k in 0..<Self.queryFields.count where !fields.isNil(k) {
                if k == 10 {
                    query.overlapping = try interval(fields, k, schedule)
                    continue
                }
                // Dates are read from the Lua string's bytes (no Swift string is made for them).
                if (1...3).contains(k), let day = fields.isoDate(k) {
                    if k != 2 { query.from = day }
                    if k != 1 { query.to = day }
                    continue
                }
                let field = try fields.value(k)
                switch k {
                case 0: query.personID = try personID(field, "shifts: person")
                case 1: query.from = try date(field, "shifts: from")
                case 2: query.to = try date(field, "shifts: to")
                case 3:
                    let day = try date(field, "shifts: date")
                    query.from = day
                    query.to = day
                case 4:
                    if case let .table(list) = field {
                        query.shiftTypeIDs = Set(try list.array.map { try shiftTypeID($0, "shifts: type") })
                    } else {
                        query.shiftTypeIDs = [try shiftTypeID(field, "shifts: type")]
                    }
                case 5: query.locationID = try locationID(field, "shifts: location")
                case 6: query.unassignedOnly = field.isTruthy
                case 7:
                    guard let limit = field.integerValue, limit >= 0 else { throw LuaScriptError("shifts: limit must be a whole number") }
                    query.limit = Int(limit)
                case 8:
                    switch field.stringValue {
                    case "oldest": query.order = .oldestFirst
                    case "newest": query.order = .newestFirst
                    default: throw LuaScriptError("shifts: order is \"oldest\" or \"newest\"")
                    }
                case 9: query.excluding = try shiftID(field, "shifts: exclude")
                default:
                    guard case let .table(table) = field, table.array.isEmpty else {
                        throw LuaScriptError("shifts: attributes expects a table of names and values, e.g. attributes = { skill = \"nurse\" }")
                    }
                    for (key, value) in table.hash {
                        guard case let .string(attribute) = key, let wanted = RuleSpec.attributeValue(value) else {
                            throw LuaScriptError("shifts: attributes: each entry is a name and a string, number, boolean or list")
                        }
                        filter.attributes.append((attribute, wanted))
                    }
                }
            }
        }
        return (query, filter)
    }

    /// An options table argument (`{ person = p, date = d }`) read in one pass in C, only the
    /// names given (a rule's check passes one on every query). Other keys are ignored, as a
    /// `LuaTable` lookup by name would. The names are `person`, `date` and (for `work_run`)
    /// `limit`, in that order.
    struct Options {
        var person: LuaValue = .nil
        /// The date when it is one (read from the Lua string's bytes); else `date` holds the
        /// value given, for the error.
        var day: LocalDate?
        var date: LuaValue = .nil
        var limit: LuaValue = .nil

        var hasDate: Bool { day != nil || !date.isNil }
    }

    private static let workRunOptions = LuaFieldNames(["person", "date", "limit"])
    private static let availabilityOptions = LuaFieldNames(["person", "date"])

    /// Argument `index` as options (none when it is nil); `problem` is the error when it is
    /// something other than a table.
    private func options(
        _ args: LuaArguments, _ index: Int, _ names: LuaFieldNames, _ problem: @autoclosure () -> String
    ) throws -> Options {
        var options = Options()
        if args.isNil(index) { return options }
        guard args.isTable(index) else { throw LuaScriptError(problem()) }
        try args.withFields(index, names) { fields in
            options.person = try fields.value(0)
            if let day = fields.isoDate(1) { options.day = day } else { options.date = try fields.value(1) }
            if names.count > 2 { options.limit = try fields.value(2) }
        }
        return options
    }

    /// What a query asks beyond the store's indexes: attribute values the shifts must have.
    struct ShiftFilter {
        var attributes: [(String, AttributeValue)] = []

        var isEmpty: Bool { attributes.isEmpty }

        func admits(_ shift: ScheduledShift) -> Bool {
            if attributes.isEmpty { return true }
            let have = shift.attributes
            for (name, value) in attributes where have[name] != value { return false }
            return true
        }
    }

    /// Settings keys of the planning horizon (`schedule:horizon()`).
    static let horizonFirst = Schedule.horizonFirstKey
    static let horizonLast = Schedule.horizonLastKey

    /// `schedule:runs{ person = p, from = d1, to = d2 [, by = "work" | "type"] }`: the days from
    /// d1 to d2 cut into runs of consecutive days alike — worked or off (`by = "work"`), or the
    /// same shift type, days off being runs without a type (`by = "type"`).
    private func runs(_ schedule: Schedule, _ side: Side, _ filter: LuaValue) throws -> LuaValue {
        guard case let .table(table) = filter else {
            throw LuaScriptError("runs: expected { person = p, from = d1, to = d2 [, by = \"work\" | \"type\"] }")
        }
        let person = try personID(table["person"], "runs: person")
        let from = try date(table["from"], "runs: from")
        let to = try date(table["to"], "runs: to")
        let byType: Bool
        switch table["by"] {
        case .nil, .string("work"): byType = false
        case .string("type"): byType = true
        default: throw LuaScriptError("runs: by is \"work\" or \"type\"")
        }
        let count = from.days(to: to) + 1
        guard count >= 1 else { throw LuaScriptError("runs: from (\(from)) is after to (\(to))") }
        guard count <= 36_600 else { throw LuaScriptError("runs: at most 36600 days (100 years) at a time") }
        // The shift type worked each day: the first shift of the day (by start time), nil when off.
        var worked = [ShiftTypeID?](repeating: nil, count: count)
        var working = [Bool](repeating: false, count: count)
        schedule.forEachShift(ShiftQuery(from: from, to: to, personID: person)) { shift in
            let day = from.days(to: shift.date)
            if !working[day] {
                working[day] = true
                worked[day] = shift.shiftTypeID
            }
            return true
        }
        var list: [LuaValue] = []
        var start = 0
        for day in 1...count {
            let ended = day == count || working[day] != working[start] || (byType && worked[day] != worked[start])
            guard ended else { continue }
            var row: [LuaValue: LuaValue] = [
                .string("first"): .string(from.adding(days: start).description),
                .string("last"): .string(from.adding(days: day - 1).description),
                .string("days"): .integer(Int64(day - start)),
                .string("working"): .boolean(working[start]),
            ]
            if byType, let type = worked[start] { row[.string("type")] = view(type: type, side) }
            list.append(.table(LuaTable(hash: row)))
            start = day
        }
        return .table(LuaTable(array: list))
    }

    /// `overlapping = shift` or `overlapping = { starts_at = t1, ends_at = t2 }` (field `k`; the
    /// table's two fields are read where they are, without copying it).
    private func interval(_ fields: LuaFields, _ k: Int, _ schedule: Schedule) throws -> InstantInterval {
        let problem = "shifts: overlapping expects a shift or { starts_at = …, ends_at = … }"
        guard fields.isTable(k) else {
            // (Not `(side == .after ? schedule : …).interval`: choosing between two schedules copies one.)
            guard case let .object(object) = try fields.value(k), let (shift, side) = try fullShift(try target(object)),
                  let span = side == .after ? schedule.interval(of: shift) : try box(side).interval(of: shift) else {
                throw LuaScriptError(problem)
            }
            return span
        }
        var span: InstantInterval?
        try fields.withFields(of: k, Self.spanFields) { table in
            guard let start = try table.value(0).integerValue, let end = try table.value(1).integerValue else {
                throw LuaScriptError("shifts: overlapping needs starts_at and ends_at (seconds since 1970)")
            }
            span = InstantInterval(start: start, end: end)
        }
        return span!
    }

    /// `schedule:demand{ date = d, type = t }`: demand entries as plain tables.
    private func demand(_ schedule: Schedule, _ side: Side, _ filter: LuaValue) throws -> LuaValue {
        var items: [Demand]
        var table = LuaTable()
        if case let .table(given) = filter { table = given } else if !filter.isNil {
            throw LuaScriptError("demand: expected a table of filters, e.g. schedule:demand{ date = d }")
        }
        if !table["date"].isNil {
            items = schedule.demand(on: try date(table["date"], "demand: date"))
        } else {
            items = schedule.demand
        }
        if !table["type"].isNil {
            let type = try shiftTypeID(table["type"], "demand: type")
            items = items.filter { $0.shiftTypeID == type }
        }
        return .table(LuaTable(array: items.map { .table(LuaTable(hash: demandRow($0, side))) }))
    }

    /// A demand entry as `schedule:demand` gives it: id, type (a view), minimum, optimal, skill,
    /// and its date or weekday.
    func demandRow(_ item: Demand, _ side: Side = .after) -> [LuaValue: LuaValue] {
        var row: [LuaValue: LuaValue] = [
            .string("id"): .string(item.id.description), .string("type"): view(type: item.shiftTypeID, side),
            .string("minimum"): .integer(Int64(item.minimum)), .string("optimal"): .integer(Int64(item.optimal)),
        ]
        switch item.day {
        case let .date(date): row[.string("date")] = .string(date.description)
        case let .weekday(day): row[.string("weekday")] = .integer(Int64(day.rawValue))
        }
        if let skill = item.skill { row[.string("skill")] = .string(skill) }
        return row
    }

    /// `schedule:availability{ person = p, date = d }`: entries as plain tables.
    private func availability(_ schedule: Schedule, _ side: Side, _ table: Options) throws -> LuaValue {
        let person = table.person.isNil ? nil : try personID(table.person, "availability: person")
        var items: [Availability]
        if table.hasDate {
            items = schedule.availability(on: try table.day ?? date(table.date, "availability: date"), personID: person)
        } else if let person {
            items = schedule.availability(of: person)
        } else {
            items = schedule.availability
        }
        return .table(LuaTable(array: items.map { item in
            var row: [LuaValue: LuaValue] = [
                .string("id"): .string(item.id.description), .string("person"): view(person: item.personID, side),
                .string("from"): .string(item.from.description), .string("to"): .string(item.to.description),
                .string("kind"): .string(item.kind.rawValue),
            ]
            if let type = item.shiftTypeID { row[.string("type")] = view(type: type, side) }
            if let weight = item.weight { row[.string("weight")] = .number(weight) }
            return .table(LuaTable(hash: row))
        }))
    }
}

// A date argument or field read from the Lua string's bytes, with no Swift string made for it
// (nil when it is not a `YYYY-MM-DD` string: the caller then reads the value for its error).
extension LuaArguments {
    func isoDate(_ i: Int) -> LocalDate? { withBytes(i, LocalDate.init(isoBytes:)) ?? nil }
}

extension LuaFields {
    func isoDate(_ k: Int) -> LocalDate? { withBytes(k, LocalDate.init(isoBytes:)) ?? nil }
}
