import Foundation

/// Which scheduled shifts to fetch. Every field narrows the result; an empty query returns all
/// shifts, oldest first.
public struct ShiftQuery: Hashable, Sendable {
    public enum Order: String, Hashable, Sendable, Codable { case oldestFirst, newestFirst }

    /// First date (inclusive).
    public var from: LocalDate?
    /// Last date (inclusive).
    public var to: LocalDate?
    /// Only this person's shifts.
    public var personID: PersonID?
    /// Only shifts without a person.
    public var unassignedOnly: Bool
    /// Only these shift types.
    public var shiftTypeIDs: Set<ShiftTypeID>?
    /// Only shifts whose type is at this location.
    public var locationID: LocationID?
    /// Only shifts whose interval overlaps this one (half-open).
    public var overlapping: InstantInterval?
    /// Leave this shift out (a rule asking about the shift it checks: "the others that…").
    public var excluding: ShiftID?
    public var order: Order
    public var limit: Int?

    public init(
        from: LocalDate? = nil, to: LocalDate? = nil, personID: PersonID? = nil, unassignedOnly: Bool = false,
        shiftTypeIDs: Set<ShiftTypeID>? = nil, locationID: LocationID? = nil, overlapping: InstantInterval? = nil,
        excluding: ShiftID? = nil, order: Order = .oldestFirst, limit: Int? = nil
    ) {
        self.from = from
        self.to = to
        self.personID = personID
        self.unassignedOnly = unassignedOnly
        self.shiftTypeIDs = shiftTypeIDs
        self.locationID = locationID
        self.overlapping = overlapping
        self.excluding = excluding
        self.order = order
        self.limit = limit
    }

    /// All shifts on one date.
    public static func on(_ date: LocalDate) -> ShiftQuery { ShiftQuery(from: date, to: date) }
}
