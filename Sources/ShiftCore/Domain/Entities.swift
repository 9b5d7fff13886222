import Foundation

/// A place where shifts happen (a ward, a shop, a site).
public struct Location: Identifiable, Codable, Hashable, Sendable {
    public var id: LocationID
    public var name: String
    public var address: String
    public var attributes: Attributes

    public init(id: LocationID, name: String, address: String = "", attributes: Attributes = [:]) {
        self.id = id
        self.name = name
        self.address = address
        self.attributes = attributes
    }

    private enum CodingKeys: String, CodingKey { case id, name, address, attributes }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(LocationID.self, forKey: .id)
        name = try c.decode(String.self, forKey: .name)
        address = try c.decodeIfPresent(String.self, forKey: .address) ?? ""
        attributes = try c.decodeIfPresent(Attributes.self, forKey: .attributes) ?? [:]
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(name, forKey: .name)
        if !address.isEmpty { try c.encode(address, forKey: .address) }
        if !attributes.isEmpty { try c.encode(attributes, forKey: .attributes) }
    }
}

/// A kind of shift (`D` Day 07:00-19:00 at Ward 3) that scheduled shifts refer to.
public struct ShiftType: Identifiable, Codable, Hashable, Sendable {
    public var id: ShiftTypeID
    /// A short unique code shown in roster grids (`D`, `N`, `E1`).
    public var symbol: String
    public var title: String
    public var description: String
    public var duration: ShiftDuration
    public var locationID: LocationID?
    public var attributes: Attributes

    public init(
        id: ShiftTypeID, symbol: String, title: String, description: String = "",
        duration: ShiftDuration, locationID: LocationID? = nil, attributes: Attributes = [:]
    ) {
        self.id = id
        self.symbol = symbol
        self.title = title
        self.description = description
        self.duration = duration
        self.locationID = locationID
        self.attributes = attributes
    }

    private enum CodingKeys: String, CodingKey { case id, symbol, title, description, duration, locationID, attributes }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(ShiftTypeID.self, forKey: .id)
        symbol = try c.decode(String.self, forKey: .symbol)
        title = try c.decodeIfPresent(String.self, forKey: .title) ?? ""
        description = try c.decodeIfPresent(String.self, forKey: .description) ?? ""
        duration = try c.decode(ShiftDuration.self, forKey: .duration)
        locationID = try c.decodeIfPresent(LocationID.self, forKey: .locationID)
        attributes = try c.decodeIfPresent(Attributes.self, forKey: .attributes) ?? [:]
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(symbol, forKey: .symbol)
        try c.encode(title, forKey: .title)
        if !description.isEmpty { try c.encode(description, forKey: .description) }
        try c.encode(duration, forKey: .duration)
        try c.encodeIfPresent(locationID, forKey: .locationID)
        if !attributes.isEmpty { try c.encode(attributes, forKey: .attributes) }
    }
}

/// Someone who can be scheduled.
public struct Person: Identifiable, Codable, Hashable, Sendable {
    public var id: PersonID
    public var displayName: String
    public var attributes: Attributes

    public init(id: PersonID, displayName: String, attributes: Attributes = [:]) {
        self.id = id
        self.displayName = displayName
        self.attributes = attributes
    }

    private enum CodingKeys: String, CodingKey { case id, displayName, attributes }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(PersonID.self, forKey: .id)
        displayName = try c.decode(String.self, forKey: .displayName)
        attributes = try c.decodeIfPresent(Attributes.self, forKey: .attributes) ?? [:]
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(displayName, forKey: .displayName)
        if !attributes.isEmpty { try c.encode(attributes, forKey: .attributes) }
    }
}

/// One shift of a type on a date, assigned to a person or still open.
public struct ScheduledShift: Identifiable, Codable, Hashable, Sendable {
    public var id: ShiftID
    public var shiftTypeID: ShiftTypeID
    /// The calendar date the shift starts on (a night shift belongs to the evening it starts).
    public var date: LocalDate
    public var personID: PersonID?
    /// Rarely-set fields live in an immutable box, so the common shift is small. The store keeps
    /// the boxes in a map of their own (`ShiftTable`): its million-entry map holds plain values.
    private(set) var extras: Extras?

    /// Notes, attributes and a custom calendar UID, which few shifts have. Immutable and shared.
    final class Extras: Hashable, Sendable {
        let notes: String?
        let attributes: Attributes
        let customEventIdentifier: String?

        init(notes: String?, attributes: Attributes, customEventIdentifier: String?) {
            self.notes = notes
            self.attributes = attributes
            self.customEventIdentifier = customEventIdentifier
        }

        /// nil when every field is empty, so plain shifts carry no box.
        static func make(notes: String?, attributes: Attributes, customEventIdentifier: String?) -> Extras? {
            notes == nil && attributes.isEmpty && customEventIdentifier == nil
                ? nil : Extras(notes: notes, attributes: attributes, customEventIdentifier: customEventIdentifier)
        }

        static func == (lhs: Extras, rhs: Extras) -> Bool {
            lhs === rhs || (lhs.notes == rhs.notes && lhs.attributes == rhs.attributes
                && lhs.customEventIdentifier == rhs.customEventIdentifier)
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(notes)
            hasher.combine(attributes)
            hasher.combine(customEventIdentifier)
        }
    }

    public init(
        id: ShiftID, shiftTypeID: ShiftTypeID, date: LocalDate, personID: PersonID? = nil,
        notes: String? = nil, attributes: Attributes = [:], eventIdentifier: String? = nil
    ) {
        self.id = id
        self.shiftTypeID = shiftTypeID
        self.date = date
        self.personID = personID
        // Only a given UID is compared with the default (which is made as text).
        let custom = eventIdentifier.flatMap { $0 == ScheduledShift.defaultEventIdentifier(for: id) ? nil : $0 }
        self.extras = Extras.make(notes: notes, attributes: attributes, customEventIdentifier: custom)
    }

    /// A shift rebuilt from the parts the store keeps apart (`ShiftTable`).
    init(id: ShiftID, shiftTypeID: ShiftTypeID, date: LocalDate, personID: PersonID?, extras: Extras?) {
        self.id = id
        self.shiftTypeID = shiftTypeID
        self.date = date
        self.personID = personID
        self.extras = extras
    }

    public var notes: String? {
        get { extras?.notes }
        set { extras = Extras.make(notes: newValue, attributes: attributes, customEventIdentifier: customEventIdentifier) }
    }

    /// Custom values, e.g. the `skill` a person covers on this shift.
    public var attributes: Attributes {
        get { extras?.attributes ?? [:] }
        set { extras = Extras.make(notes: notes, attributes: newValue, customEventIdentifier: customEventIdentifier) }
    }

    private var customEventIdentifier: String? { extras?.customEventIdentifier }

    /// The stable calendar UID of this shift (`<id>@shiftscheduler` unless imported with its own).
    public var eventIdentifier: String {
        get { customEventIdentifier ?? ScheduledShift.defaultEventIdentifier(for: id) }
        set {
            let custom = newValue == ScheduledShift.defaultEventIdentifier(for: id) ? nil : newValue
            extras = Extras.make(notes: notes, attributes: attributes, customEventIdentifier: custom)
        }
    }

    /// True when the event identifier came from elsewhere (an imported calendar).
    public var hasCustomEventIdentifier: Bool { customEventIdentifier != nil }

    public static func defaultEventIdentifier(for id: ShiftID) -> String { "\(id)@shiftscheduler" }

    private enum CodingKeys: String, CodingKey {
        case id, shiftTypeID, date, personID, notes, attributes, eventIdentifier
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(ShiftID.self, forKey: .id)
        shiftTypeID = try c.decode(ShiftTypeID.self, forKey: .shiftTypeID)
        date = try c.decode(LocalDate.self, forKey: .date)
        personID = try c.decodeIfPresent(PersonID.self, forKey: .personID)
        let notes = try c.decodeIfPresent(String.self, forKey: .notes)
        let attributes = try c.decodeIfPresent(Attributes.self, forKey: .attributes) ?? [:]
        let uid = try c.decodeIfPresent(String.self, forKey: .eventIdentifier)
        let custom = uid == ScheduledShift.defaultEventIdentifier(for: id) ? nil : uid
        extras = Extras.make(notes: notes, attributes: attributes, customEventIdentifier: custom)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(shiftTypeID, forKey: .shiftTypeID)
        try c.encode(date, forKey: .date)
        try c.encodeIfPresent(personID, forKey: .personID)
        try c.encodeIfPresent(notes, forKey: .notes)
        if !attributes.isEmpty { try c.encode(attributes, forKey: .attributes) }
        try c.encodeIfPresent(customEventIdentifier, forKey: .eventIdentifier)
    }
}

/// The day a staffing requirement applies to: one date, or every given weekday.
public enum DemandDay: Hashable, Sendable, CustomStringConvertible {
    case date(LocalDate)
    case weekday(Weekday)

    public func applies(to date: LocalDate) -> Bool {
        switch self {
        case let .date(day): day == date
        case let .weekday(weekday): date.weekday == weekday
        }
    }

    public var description: String {
        switch self {
        case let .date(date): date.description
        case let .weekday(weekday): weekday.name
        }
    }
}

/// How many people a shift type needs on a day, optionally with a skill.
public struct Demand: Identifiable, Codable, Hashable, Sendable {
    public var id: DemandID
    public var day: DemandDay
    public var shiftTypeID: ShiftTypeID
    public var skill: String?
    /// Fewer than this is under-staffing (hard).
    public var minimum: Int
    /// Fewer than this costs a penalty (soft).
    public var optimal: Int

    public init(id: DemandID, day: DemandDay, shiftTypeID: ShiftTypeID, skill: String? = nil, minimum: Int, optimal: Int) {
        self.id = id
        self.day = day
        self.shiftTypeID = shiftTypeID
        self.skill = skill
        self.minimum = minimum
        self.optimal = optimal
    }

    private enum CodingKeys: String, CodingKey { case id, date, weekday, shiftTypeID, skill, minimum, optimal }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(DemandID.self, forKey: .id)
        if let date = try c.decodeIfPresent(LocalDate.self, forKey: .date) {
            day = .date(date)
        } else if let weekday = try c.decodeIfPresent(Weekday.self, forKey: .weekday) {
            day = .weekday(weekday)
        } else {
            throw DecodingError.keyNotFound(
                CodingKeys.date, .init(codingPath: c.codingPath, debugDescription: "a demand needs a date or a weekday"))
        }
        shiftTypeID = try c.decode(ShiftTypeID.self, forKey: .shiftTypeID)
        skill = try c.decodeIfPresent(String.self, forKey: .skill)
        minimum = try c.decode(Int.self, forKey: .minimum)
        optimal = try c.decodeIfPresent(Int.self, forKey: .optimal) ?? minimum
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        switch day {
        case let .date(date): try c.encode(date, forKey: .date)
        case let .weekday(weekday): try c.encode(weekday, forKey: .weekday)
        }
        try c.encode(shiftTypeID, forKey: .shiftTypeID)
        try c.encodeIfPresent(skill, forKey: .skill)
        try c.encode(minimum, forKey: .minimum)
        try c.encode(optimal, forKey: .optimal)
    }
}

/// Whether a person can, would rather not, or would like to work.
public enum AvailabilityKind: String, Codable, Hashable, Sendable, CaseIterable {
    case unavailable, undesired, desired
}

/// A request or day off: a person on a date range, for every shift or one shift type.
public struct Availability: Identifiable, Codable, Hashable, Sendable {
    public var id: AvailabilityID
    public var personID: PersonID
    /// First day (inclusive).
    public var from: LocalDate
    /// Last day (inclusive).
    public var to: LocalDate
    public var shiftTypeID: ShiftTypeID?
    public var kind: AvailabilityKind
    /// How much the request weighs when it is not met (soft rules).
    public var weight: Double?

    public init(
        id: AvailabilityID, personID: PersonID, from: LocalDate, to: LocalDate? = nil,
        shiftTypeID: ShiftTypeID? = nil, kind: AvailabilityKind, weight: Double? = nil
    ) {
        self.id = id
        self.personID = personID
        self.from = from
        self.to = to ?? from
        self.shiftTypeID = shiftTypeID
        self.kind = kind
        self.weight = weight
    }

    public func covers(_ date: LocalDate) -> Bool { from <= date && date <= to }

    private enum CodingKeys: String, CodingKey { case id, personID, from, to, shiftTypeID, kind, weight }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(AvailabilityID.self, forKey: .id)
        personID = try c.decode(PersonID.self, forKey: .personID)
        from = try c.decode(LocalDate.self, forKey: .from)
        to = try c.decodeIfPresent(LocalDate.self, forKey: .to) ?? from
        shiftTypeID = try c.decodeIfPresent(ShiftTypeID.self, forKey: .shiftTypeID)
        kind = try c.decode(AvailabilityKind.self, forKey: .kind)
        weight = try c.decodeIfPresent(Double.self, forKey: .weight)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(personID, forKey: .personID)
        try c.encode(from, forKey: .from)
        try c.encode(to, forKey: .to)
        try c.encodeIfPresent(shiftTypeID, forKey: .shiftTypeID)
        try c.encode(kind, forKey: .kind)
        try c.encodeIfPresent(weight, forKey: .weight)
    }
}
