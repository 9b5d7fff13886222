import Foundation
import LuaHost
import ShiftCore

/// The classes of views: their fields, and the values each field gives.
extension LuaScheduleAPI {
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
    func registerClass<Field: RawRepresentable & CaseIterable>(
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

    func registerClasses() throws {
        changeClass = try registerClass("Change", "a change", ChangeField.self) { [unowned self] object, field in
            guard case let .change(change, validating, before, after) = try target(object) else { throw LuaScriptError("not a change") }
            switch field {
            case .after: return after
            case .before: return before
            default: return try changeField(change, validating: validating, field)
            }
        }
        shiftClass = try registerClass("Shift", "a shift", ShiftField.self, extra: { Self.viewMethods }) { [unowned self] object, field in
            guard let shift = ShiftSource(try target(object)) else { throw LuaScriptError("not a shift") }
            return try shiftField(shift, field)
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
        // given when made (`shiftWords`), without a call into Swift: a whole-schedule check reads
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
    func registerAttributeMethod() throws {
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
    func attributes(of object: LuaObject) throws -> Attributes {
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

    func changeField(_ change: Change, validating: Bool, _ field: ChangeField) throws -> LuaValue {
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

    static func demandRow(_ item: Demand) -> LuaValue {
        var row: [LuaValue: LuaValue] = [.string("id"): .string(item.id.description), .string("type_id"): .string(item.shiftTypeID.description),
                                         .string("minimum"): .integer(Int64(item.minimum)), .string("optimal"): .integer(Int64(item.optimal))]
        if case let .date(date) = item.day { row[.string("date")] = .string(date.description) }
        if case let .weekday(day) = item.day { row[.string("weekday")] = .integer(Int64(day.rawValue)) }
        if let skill = item.skill { row[.string("skill")] = .string(skill) }
        return .table(LuaTable(hash: row))
    }

    static func availabilityRow(_ item: Availability) -> LuaValue {
        var row: [LuaValue: LuaValue] = [.string("id"): .string(item.id.description), .string("person_id"): .string(item.personID.description),
                                         .string("from"): .string(item.from.description), .string("to"): .string(item.to.description),
                                         .string("kind"): .string(item.kind.rawValue)]
        if let type = item.shiftTypeID { row[.string("type_id")] = .string(type.description) }
        if let weight = item.weight { row[.string("weight")] = .number(weight) }
        return .table(LuaTable(hash: row))
    }

    static func settingsRow(_ settings: StoreSettings) -> LuaValue {
        .table(LuaTable(hash: [.string("time_zone"): .string(settings.timeZoneIdentifier),
                               .string("week_start"): .integer(Int64(settings.weekStart.rawValue))]))
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
}
