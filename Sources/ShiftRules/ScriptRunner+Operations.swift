import Foundation
import LuaHost
import ShiftCore

/// The `ops` table a script's `run` receives: each operation builds a `Mutation`, applies it to
/// the script's working schedule (core invariant errors are Lua errors naming the operation) and
/// queues it for the rules. Entities are named as in queries: a view, an id, or a name / symbol.
extension ScriptRunner {
    func makeOperations() throws -> LuaValue {
        var table: [LuaValue: LuaValue] = [:]
        func add(_ name: String, _ body: @escaping (LuaArguments) throws -> [LuaValue]) throws {
            table[.string(name)] = .function(try runtime.makeFunction(name: "ops.\(name)", body))
        }
        try add("add_location") { [unowned self] args in [try addLocation(try args.value(0))] }
        try add("update_location") { [unowned self] args in
            try updateLocation(try args.value(0), try args.value(1))
            return []
        }
        try add("remove_location") { [unowned self] args in
            let id = try api.locationID(try args.value(0), "ops.remove_location")
            try perform(.removeLocation(id), "ops.remove_location")
            return []
        }
        try add("add_shift_type") { [unowned self] args in [try addShiftType(try args.value(0))] }
        try add("update_shift_type") { [unowned self] args in
            try updateShiftType(try args.value(0), try args.value(1))
            return []
        }
        try add("remove_shift_type") { [unowned self] args in
            let id = try api.shiftTypeID(try args.value(0), "ops.remove_shift_type")
            try perform(.removeShiftType(id), "ops.remove_shift_type")
            return []
        }
        try add("add_person") { [unowned self] args in [try addPerson(try args.value(0))] }
        try add("update_person") { [unowned self] args in
            try updatePerson(try args.value(0), try args.value(1))
            return []
        }
        try add("remove_person") { [unowned self] args in
            let id = try api.personID(try args.value(0), "ops.remove_person")
            try perform(.removePerson(id), "ops.remove_person")
            return []
        }
        try add("schedule") { [unowned self] args in [try schedule(try args.value(0))] }
        try add("unschedule") { [unowned self] args in
            let id = try shift(try args.value(0), "ops.unschedule")
            try perform(.unscheduleShift(id, reason: try reason(args, 1, "ops.unschedule")), "ops.unschedule")
            return []
        }
        try add("reassign") { [unowned self] args in
            let id = try shift(try args.value(0), "ops.reassign")
            let person = args.isNil(1) ? nil : try api.personID(try args.value(1), "ops.reassign")
            try perform(.reassignShift(id, to: person, reason: try reason(args, 2, "ops.reassign")), "ops.reassign")
            return [api.view(working.shift(id)!)]
        }
        try add("switch") { [unowned self] args in
            let id = try shift(try args.value(0), "ops.switch")
            let type = try api.shiftTypeID(try args.value(1), "ops.switch")
            try perform(.switchShift(id, to: type, reason: try reason(args, 2, "ops.switch")), "ops.switch")
            return [api.view(working.shift(id)!)]
        }
        try add("rotate") { [unowned self] args in [try rotate(try args.value(0))] }
        try add("commit") { [unowned self] _ in try commit() }

        let ref = try runtime.makeRef(.table(LuaTable(hash: table)))
        try runtime.freeze(ref, name: "ops")
        return .reference(ref)
    }

    // MARK: Locations, shift types, people

    private func addLocation(_ value: LuaValue) throws -> LuaValue {
        let spec = try fields(value, "ops.add_location", ["name", "address", "attributes"], example: "{ name = \"Ward 3\" }")
        let location = Location(
            id: LocationID(makeID()), name: try requiredString(spec, "name", "ops.add_location"),
            address: try optionalString(spec, "address", "ops.add_location") ?? "",
            attributes: try attributes(spec["attributes"], "ops.add_location"))
        try perform(.addLocation(location), "ops.add_location")
        return api.view(location: location.id)
    }

    private func updateLocation(_ target: LuaValue, _ value: LuaValue) throws {
        let what = "ops.update_location"
        let id = try api.locationID(target, what)
        guard var location = working.location(id) else { throw LuaScriptError("\(what): the location no longer exists") }
        let spec = try fields(value, what, ["name", "address", "attributes", "remove_attributes"], example: "(l, { address = \"Main St 1\" })")
        if let name = try optionalString(spec, "name", what) { location.name = name }
        if let address = try optionalString(spec, "address", what) { location.address = address }
        location.attributes = try updated(location.attributes, spec, what)
        try perform(.updateLocation(location), what)
    }

    private func addShiftType(_ value: LuaValue) throws -> LuaValue {
        let what = "ops.add_shift_type"
        let spec = try fields(value, what, ["symbol", "title", "time", "location", "description", "attributes"],
                              example: "{ symbol = \"D\", title = \"Day\", time = \"07:00-19:00\" }")
        let symbol = try requiredString(spec, "symbol", what)
        let type = ShiftType(
            id: ShiftTypeID(makeID()), symbol: symbol, title: try optionalString(spec, "title", what) ?? symbol,
            description: try optionalString(spec, "description", what) ?? "", duration: try duration(spec["time"], what),
            locationID: spec["location"].isNil ? nil : try api.locationID(spec["location"], "\(what): location"),
            attributes: try attributes(spec["attributes"], what))
        try perform(.addShiftType(type), what)
        return api.view(type: type.id)
    }

    private func updateShiftType(_ target: LuaValue, _ value: LuaValue) throws {
        let what = "ops.update_shift_type"
        let id = try api.shiftTypeID(target, what)
        guard var type = working.shiftType(id) else { throw LuaScriptError("\(what): the shift type no longer exists") }
        let spec = try fields(value, what, ["symbol", "title", "time", "location", "description", "attributes", "remove_attributes"],
                              example: "(t, { time = \"06:00-18:00\" })")
        if let symbol = try optionalString(spec, "symbol", what) { type.symbol = symbol }
        if let title = try optionalString(spec, "title", what) { type.title = title }
        if let description = try optionalString(spec, "description", what) { type.description = description }
        if !spec["time"].isNil { type.duration = try duration(spec["time"], what) }
        switch spec["location"] {
        case .nil: break
        case .boolean(false): type.locationID = nil
        case let location: type.locationID = try api.locationID(location, "\(what): location")
        }
        type.attributes = try updated(type.attributes, spec, what)
        try perform(.updateShiftType(type), what)
    }

    private func addPerson(_ value: LuaValue) throws -> LuaValue {
        let what = "ops.add_person"
        let spec = try fields(value, what, ["name", "attributes"], example: "{ name = \"Ann\" }")
        let person = Person(id: PersonID(makeID()), displayName: try requiredString(spec, "name", what),
                            attributes: try attributes(spec["attributes"], what))
        try perform(.addPerson(person), what)
        return api.view(person: person.id)
    }

    private func updatePerson(_ target: LuaValue, _ value: LuaValue) throws {
        let what = "ops.update_person"
        let id = try api.personID(target, what)
        guard var person = working.person(id) else { throw LuaScriptError("\(what): the person no longer exists") }
        let spec = try fields(value, what, ["name", "attributes", "remove_attributes"], example: "(p, { attributes = { skills = { \"nurse\" } } })")
        if let name = try optionalString(spec, "name", what) { person.displayName = name }
        person.attributes = try updated(person.attributes, spec, what)
        try perform(.updatePerson(person), what)
    }

    // MARK: Shifts

    private func schedule(_ value: LuaValue) throws -> LuaValue {
        let what = "ops.schedule"
        let spec = try fields(value, what, ["type", "date", "person", "notes", "attributes"],
                              example: "{ type = \"D\", date = \"2026-03-02\", person = \"Ann\" }")
        guard !spec["type"].isNil, !spec["date"].isNil else { throw LuaScriptError("\(what): type and date are required") }
        let shift = ScheduledShift(
            id: ShiftID(makeID()), shiftTypeID: try api.shiftTypeID(spec["type"], "\(what): type"),
            date: try api.date(spec["date"], "\(what): date"),
            personID: spec["person"].isNil ? nil : try api.personID(spec["person"], "\(what): person"),
            notes: try optionalString(spec, "notes", what), attributes: try attributes(spec["attributes"], what))
        try perform(.scheduleShift(shift), what)
        return api.view(working.shift(shift.id)!)
    }

    /// `ops.rotate{ rotation = "panama", teams = { A = { "Ann", "Ben" } }, from =, to =, anchor =, shifts = { D = "Day" } }`.
    private func rotate(_ value: LuaValue) throws -> LuaValue {
        let what = "ops.rotate"
        let spec = try fields(value, what, ["rotation", "teams", "from", "to", "anchor", "shifts"],
                              example: "{ rotation = \"panama\", teams = { A = { \"Ann\" } }, from = \"2026-03-02\", to = \"2026-03-29\" }")
        let rotation = try requiredString(spec, "rotation", what)
        guard case let .table(teamTable) = spec["teams"], !teamTable.hash.isEmpty else {
            throw LuaScriptError("\(what): teams = { A = { \"Ann\", \"Ben\" }, … } is required")
        }
        var teams: [(name: String, people: [PersonID])] = []
        for (key, members) in teamTable.hash {
            guard let name = key.stringValue, case let .table(list) = members else {
                throw LuaScriptError("\(what): teams map a team name to a list of people")
            }
            teams.append((name, try list.array.map { try api.personID($0, "\(what): team \(name)") }))
        }
        teams.sort { $0.name < $1.name }
        var letters: [String: ShiftTypeID] = [:]
        for (key, type) in spec["shifts"].tableValue?.hash ?? [:] {
            guard let letter = key.stringValue else { throw LuaScriptError("\(what): shifts map a letter to a shift type") }
            letters[letter] = try api.shiftTypeID(type, "\(what): shift \(letter)")
        }
        let request = RotationRequest(
            rotation: rotation, teams: teams, from: try api.date(spec["from"], "\(what): from"), to: try api.date(spec["to"], "\(what): to"),
            anchor: spec["anchor"].isNil ? nil : try api.date(spec["anchor"], "\(what): anchor"), shiftTypes: letters)
        guard operationsEnabled else { throw LuaScriptError("operations are only available to scripts run with shiftctl run") }
        let generated: [ScheduledShift]
        do {
            generated = try engine.generateRotation(request, in: working, makeID: makeID)
        } catch let error as RotationError {
            throw LuaScriptError("\(what): \(error.description)")
        }
        try perform(.batch(generated.map { .scheduleShift($0) }), what)
        return .integer(Int64(generated.count))
    }

    private func shift(_ value: LuaValue, _ what: String) throws -> ShiftID {
        let id = try api.shiftID(value, what)
        guard working.shift(id) != nil else { throw LuaScriptError("\(what): no shift \(id) (it was removed?)") }
        return id
    }

    private func reason(_ args: LuaArguments, _ index: Int, _ what: String) throws -> String? {
        switch try args.value(index) {
        case .nil: return nil
        case let .string(text): return text
        default: throw LuaScriptError("\(what): the reason is a string")
        }
    }

    // MARK: Argument helpers

    /// The operation's table argument, with unknown keys refused (a typo fails loudly).
    private func fields(_ value: LuaValue, _ what: String, _ allowed: Set<String>, example: String) throws -> LuaTable {
        guard case let .table(table) = value else { throw LuaScriptError("\(what): expected a table, e.g. \(what)\(example)") }
        for key in table.hash.keys {
            guard let name = key.stringValue, allowed.contains(name) else {
                throw LuaScriptError("\(what): unknown field \(key.stringValue.map { "'\($0)'" } ?? "(not a name)") (\(allowed.sorted().joined(separator: ", ")))")
            }
        }
        return table
    }

    private func requiredString(_ spec: LuaTable, _ key: String, _ what: String) throws -> String {
        guard let text = try optionalString(spec, key, what) else { throw LuaScriptError("\(what): \(key) is required (a string)") }
        return text
    }

    private func optionalString(_ spec: LuaTable, _ key: String, _ what: String) throws -> String? {
        switch spec[key] {
        case .nil: return nil
        case let .string(text): return text
        default: throw LuaScriptError("\(what): \(key) must be a string")
        }
    }

    private func duration(_ value: LuaValue, _ what: String) throws -> ShiftDuration {
        guard let text = value.stringValue else { throw LuaScriptError("\(what): time is required: \"07:00-19:00\" or \"all-day\"") }
        guard let duration = ShiftDuration(text) else { throw LuaScriptError("\(what): '\(text)' is not a time range (\"07:00-19:00\" or \"all-day\")") }
        return duration
    }

    /// `attributes = { skills = { "nurse" }, max_hours = 38.5 }`.
    private func attributes(_ value: LuaValue, _ what: String) throws -> Attributes {
        guard !value.isNil else { return [:] }
        guard case let .table(table) = value, table.array.isEmpty else {
            throw LuaScriptError("\(what): attributes is a table of names to values, e.g. { skills = { \"nurse\" } }")
        }
        var result: Attributes = [:]
        for (key, item) in table.hash {
            guard let name = key.stringValue else { throw LuaScriptError("\(what): attribute names are strings") }
            result[name] = try attribute(item, "\(what): attribute \(name)")
        }
        return result
    }

    private func attribute(_ value: LuaValue, _ what: String) throws -> AttributeValue {
        switch value {
        case let .string(text): return .string(text)
        case let .boolean(flag): return .bool(flag)
        case .integer, .number: return .number(value.numberValue!)
        case let .table(list) where list.hash.isEmpty: return .list(try list.array.map { try attribute($0, what) })
        default: throw LuaScriptError("\(what): a value is a string, number, boolean or a list of them")
        }
    }

    /// `attributes` set (merged over the old ones) and `remove_attributes` removed.
    private func updated(_ old: Attributes, _ spec: LuaTable, _ what: String) throws -> Attributes {
        var result = old
        for (key, value) in try attributes(spec["attributes"], what) { result[key] = value }
        switch spec["remove_attributes"] {
        case .nil: break
        case let .table(list):
            for key in list.array {
                guard let name = key.stringValue else { throw LuaScriptError("\(what): remove_attributes is a list of names") }
                result[name] = nil
            }
        default: throw LuaScriptError("\(what): remove_attributes is a list of names")
        }
        return result
    }
}
