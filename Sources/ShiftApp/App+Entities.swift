import Foundation
import ShiftCore

// location, type and person: add, list, show, update, remove.

extension App {
    // MARK: Locations

    public func addLocation(name: String, address: String?, attributes: [String]) async throws -> CommandResult {
        let location = Location(id: LocationID(UUID.random()), name: name, address: address ?? "", attributes: try InputParsing.attributes(attributes))
        return try await commit(.addLocation(location), action: "added", kind: "location", id: location.id.description, label: name) { schedule in
            schedule.location(location.id).map { LocationOutput($0, in: schedule) }
        }
    }

    public func listLocations() throws -> CommandResult {
        let schedule = try load()
        let items = schedule.locations.map { LocationOutput($0, in: schedule) }
        var table = TextTable("NAME", "ADDRESS", "TYPES", "ID", "ATTRIBUTES")
        for item in items {
            table.add(item.name, item.address, item.shiftTypes.joined(separator: " "), shortID(item.id), attributeText(item.attributes))
        }
        return CommandResult(text: items.isEmpty ? "no locations (add one with shiftctl location add NAME)\n" : table.rendered,
                             json: ListOutput(key: "locations", items: items))
    }

    public func showLocation(_ reference: String) throws -> CommandResult {
        let schedule = try load()
        let item = LocationOutput(try ReferenceResolver(schedule).location(reference), in: schedule)
        let text = Self.fields([("name", item.name), ("id", item.id), ("address", item.address),
                                ("shift types", item.shiftTypes.joined(separator: " ")), ("attributes", attributeText(item.attributes))])
        return CommandResult(text: text, json: item)
    }

    public func updateLocation(_ reference: String, name: String?, address: String?, attributes: [String], removeAttributes: [String]) async throws -> CommandResult {
        var location = try ReferenceResolver(try load()).location(reference)
        if let name { location.name = name }
        if let address { location.address = address }
        location.attributes = try Self.updated(location.attributes, set: attributes, remove: removeAttributes)
        return try await commit(.updateLocation(location), action: "updated", kind: "location", id: location.id.description, label: location.name) { schedule in
            schedule.location(location.id).map { LocationOutput($0, in: schedule) }
        }
    }

    public func removeLocation(_ reference: String) async throws -> CommandResult {
        let location = try ReferenceResolver(try load()).location(reference)
        return try await commit(.removeLocation(location.id), action: "removed", kind: "location", id: location.id.description, label: location.name) { _ in
            LocationOutput?.none
        }
    }

    // MARK: Shift types

    public func addShiftType(
        symbol: String, title: String?, time: String?, allDay: Bool, location: String?, description: String?, attributes: [String]
    ) async throws -> CommandResult {
        let schedule = try load()
        let duration = try InputParsing.duration(time: time, allDay: allDay, required: true)!
        let locationID = try location.map { try ReferenceResolver(schedule).location($0, option: "--location").id }
        let type = ShiftType(
            id: ShiftTypeID(UUID.random()), symbol: symbol, title: title ?? symbol, description: description ?? "",
            duration: duration, locationID: locationID, attributes: try InputParsing.attributes(attributes))
        return try await commit(.addShiftType(type), action: "added", kind: "shift type", id: type.id.description, label: "\(symbol) \(duration)") { schedule in
            schedule.shiftType(type.id).map { ShiftTypeOutput($0, in: schedule) }
        }
    }

    public func listShiftTypes() throws -> CommandResult {
        let schedule = try load()
        let items = schedule.shiftTypes.map { ShiftTypeOutput($0, in: schedule) }
        var table = TextTable("SYMBOL", "TITLE", "TIME", "LOCATION", "ID", "ATTRIBUTES")
        for item in items {
            table.add(item.symbol, item.title, item.time, item.location ?? "", shortID(item.id), attributeText(item.attributes))
        }
        return CommandResult(text: items.isEmpty ? "no shift types (add one with shiftctl type add SYMBOL --time 07:00-19:00)\n" : table.rendered,
                             json: ListOutput(key: "shiftTypes", items: items))
    }

    public func showShiftType(_ reference: String) throws -> CommandResult {
        let schedule = try load()
        let type = try ReferenceResolver(schedule).shiftType(reference)
        let item = ShiftTypeOutput(type, in: schedule)
        let text = Self.fields([("symbol", item.symbol), ("title", item.title), ("id", item.id), ("time", item.time + (item.overnight ? " (ends next day)" : "")),
                                ("location", item.location ?? "-"), ("description", item.description), ("attributes", attributeText(item.attributes)),
                                ("shifts", String(schedule.shiftCount(ofType: type.id)))])
        return CommandResult(text: text, json: item)
    }

    public func updateShiftType(
        _ reference: String, symbol: String?, title: String?, time: String?, allDay: Bool, location: String?, noLocation: Bool,
        description: String?, attributes: [String], removeAttributes: [String]
    ) async throws -> CommandResult {
        let schedule = try load()
        var type = try ReferenceResolver(schedule).shiftType(reference)
        if let symbol { type.symbol = symbol }
        if let title { type.title = title }
        if let description { type.description = description }
        if let duration = try InputParsing.duration(time: time, allDay: allDay, required: false) { type.duration = duration }
        if location != nil, noLocation { throw AppError.invalidValue(option: "--location", message: "give either --location or --no-location, not both") }
        if let location { type.locationID = try ReferenceResolver(schedule).location(location, option: "--location").id }
        if noLocation { type.locationID = nil }
        type.attributes = try Self.updated(type.attributes, set: attributes, remove: removeAttributes)
        return try await commit(.updateShiftType(type), action: "updated", kind: "shift type", id: type.id.description, label: type.symbol) { schedule in
            schedule.shiftType(type.id).map { ShiftTypeOutput($0, in: schedule) }
        }
    }

    public func removeShiftType(_ reference: String) async throws -> CommandResult {
        let type = try ReferenceResolver(try load()).shiftType(reference)
        return try await commit(.removeShiftType(type.id), action: "removed", kind: "shift type", id: type.id.description, label: type.symbol) { _ in
            ShiftTypeOutput?.none
        }
    }

    // MARK: People

    public func addPerson(name: String, attributes: [String]) async throws -> CommandResult {
        let person = Person(id: PersonID(UUID.random()), displayName: name, attributes: try InputParsing.attributes(attributes))
        return try await commit(.addPerson(person), action: "added", kind: "person", id: person.id.description, label: name) { schedule in
            schedule.person(person.id).map(PersonOutput.init)
        }
    }

    public func listPeople() throws -> CommandResult {
        let schedule = try load()
        let items = schedule.people.map(PersonOutput.init)
        var table = TextTable("NAME", "SHIFTS", "ID", "ATTRIBUTES")
        for person in schedule.people {
            table.add(person.displayName, String(schedule.shiftCount(of: person.id)), shortID(person.id), attributeText(person.attributes))
        }
        return CommandResult(text: items.isEmpty ? "no people (add someone with shiftctl person add NAME)\n" : table.rendered,
                             json: ListOutput(key: "people", items: items))
    }

    public func showPerson(_ reference: String) throws -> CommandResult {
        let schedule = try load()
        let person = try ReferenceResolver(schedule).person(reference)
        let upcoming = schedule.shifts(ShiftQuery(from: today(in: schedule), personID: person.id, limit: 5))
        let text = Self.fields([("name", person.displayName), ("id", person.id.description), ("attributes", attributeText(person.attributes)),
                                ("shifts", String(schedule.shiftCount(of: person.id))),
                                ("next", upcoming.map { "\($0.date) \(schedule.shiftType($0.shiftTypeID)?.symbol ?? "?")" }.joined(separator: ", "))])
        return CommandResult(text: text, json: PersonOutput(person))
    }

    public func updatePerson(_ reference: String, name: String?, attributes: [String], removeAttributes: [String]) async throws -> CommandResult {
        var person = try ReferenceResolver(try load()).person(reference)
        if let name { person.displayName = name }
        person.attributes = try Self.updated(person.attributes, set: attributes, remove: removeAttributes)
        return try await commit(.updatePerson(person), action: "updated", kind: "person", id: person.id.description, label: person.displayName) { schedule in
            schedule.person(person.id).map(PersonOutput.init)
        }
    }

    public func removePerson(_ reference: String) async throws -> CommandResult {
        let person = try ReferenceResolver(try load()).person(reference)
        return try await commit(.removePerson(person.id), action: "removed", kind: "person", id: person.id.description, label: person.displayName) { _ in
            PersonOutput?.none
        }
    }
}
