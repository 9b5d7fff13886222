import Foundation
import ShiftCore

// The JSON shapes `--format json` prints. Field names are part of the CLI's contract
// (docs/cli.md); they are spelled out in CodingKeys so a rename in the core cannot change them.

public struct LocationOutput: Encodable, Sendable {
    public let id: String
    public let name: String
    public let address: String
    public let attributes: Attributes
    public let shiftTypes: [String]

    enum CodingKeys: String, CodingKey { case id, name, address, attributes, shiftTypes }

    init(_ location: Location, in schedule: Schedule) {
        id = location.id.description
        name = location.name
        address = location.address
        attributes = location.attributes
        shiftTypes = schedule.shiftTypes(at: location.id).map(\.symbol)
    }
}

public struct ShiftTypeOutput: Encodable, Sendable {
    public let id: String
    public let symbol: String
    public let title: String
    public let description: String
    /// `07:00-19:00` or `all-day`.
    public let time: String
    public let overnight: Bool
    public let location: String?
    public let locationID: String?
    public let attributes: Attributes

    enum CodingKeys: String, CodingKey { case id, symbol, title, description, time, overnight, location, locationID, attributes }

    init(_ type: ShiftType, in schedule: Schedule) {
        id = type.id.description
        symbol = type.symbol
        title = type.title
        description = type.description
        time = type.duration.description
        overnight = type.duration.isOvernight
        locationID = type.locationID?.description
        location = type.locationID.flatMap { schedule.location($0)?.name }
        attributes = type.attributes
    }
}

public struct PersonOutput: Encodable, Sendable {
    public let id: String
    public let name: String
    public let attributes: Attributes

    enum CodingKeys: String, CodingKey { case id, name, attributes }

    init(_ person: Person) {
        id = person.id.description
        name = person.displayName
        attributes = person.attributes
    }
}

public struct ShiftOutput: Encodable, Sendable {
    public let id: String
    public let date: String
    public let type: String
    public let typeID: String
    public let time: String
    public let person: String?
    public let personID: String?
    public let location: String?
    public let notes: String?

    enum CodingKeys: String, CodingKey { case id, date, type, typeID, time, person, personID, location, notes }

    init(_ shift: ScheduledShift, in schedule: Schedule) {
        let type = schedule.shiftType(shift.shiftTypeID)
        id = shift.id.description
        date = shift.date.description
        self.type = type?.symbol ?? "?"
        typeID = shift.shiftTypeID.description
        time = type?.duration.description ?? ""
        personID = shift.personID?.description
        person = shift.personID.flatMap { schedule.person($0)?.displayName }
        location = type?.locationID.flatMap { schedule.location($0)?.name }
        notes = shift.notes
    }
}

public struct DemandOutput: Encodable, Sendable {
    public let id: String
    public let date: String?
    public let weekday: String?
    public let type: String
    public let typeID: String
    public let skill: String?
    public let minimum: Int
    public let optimal: Int

    enum CodingKeys: String, CodingKey { case id, date, weekday, type, typeID, skill, minimum, optimal }

    init(_ demand: Demand, in schedule: Schedule) {
        id = demand.id.description
        switch demand.day {
        case let .date(day): (date, weekday) = (day.description, nil)
        case let .weekday(day): (date, weekday) = (nil, day.name)
        }
        type = schedule.shiftType(demand.shiftTypeID)?.symbol ?? "?"
        typeID = demand.shiftTypeID.description
        skill = demand.skill
        minimum = demand.minimum
        optimal = demand.optimal
    }
}

public struct AvailabilityOutput: Encodable, Sendable {
    public let id: String
    public let person: String
    public let personID: String
    public let from: String
    public let to: String
    public let type: String?
    public let typeID: String?
    public let kind: String
    public let weight: Double?

    enum CodingKeys: String, CodingKey { case id, person, personID, from, to, type, typeID, kind, weight }

    init(_ item: Availability, in schedule: Schedule) {
        id = item.id.description
        person = schedule.person(item.personID)?.displayName ?? "?"
        personID = item.personID.description
        from = item.from.description
        to = item.to.description
        typeID = item.shiftTypeID?.description
        type = item.shiftTypeID.flatMap { schedule.shiftType($0)?.symbol }
        kind = item.kind.rawValue
        weight = item.weight
    }
}

/// The answer to a change: what was added, updated or removed, and any warnings the rules gave.
public struct MutationOutput<Item: Encodable & Sendable>: Encodable, Sendable {
    public let action: String
    public let kind: String
    public let id: String
    public let item: Item?
    public let warnings: [ViolationOutput]

    enum CodingKeys: String, CodingKey { case action, kind, id, item, warnings }
}

/// A list of items under one key (`{"people": [...]}`), so lists can grow fields later.
public struct ListOutput<Item: Encodable & Sendable>: Encodable, Sendable {
    public let key: String
    public let items: [Item]

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(items, forKey: Key(stringValue: key))
    }
}

/// Short id for text output (`4f1c2a3b`).
func shortID(_ id: some CustomStringConvertible) -> String { String(id.description.prefix(8)) }

/// `key=value, key=value` for text output.
func attributeText(_ attributes: Attributes) -> String {
    attributes.keys.sorted().map { "\($0)=\(attributes[$0]!)" }.joined(separator: ", ")
}
