import ShiftCore

/// Which shifts an export covers: a date range, some people, some shift types. Every field
/// narrows; the empty selection is the whole schedule.
public struct ShiftSelection: Hashable, Sendable {
    /// First date (inclusive).
    public var from: LocalDate?
    /// Last date (inclusive).
    public var to: LocalDate?
    /// Only these people's shifts (open shifts are left out); nil: everyone's and open shifts.
    public var people: Set<PersonID>?
    /// Only these shift types; nil: every type.
    public var types: Set<ShiftTypeID>?

    public init(from: LocalDate? = nil, to: LocalDate? = nil, people: Set<PersonID>? = nil, types: Set<ShiftTypeID>? = nil) {
        self.from = from
        self.to = to
        self.people = people
        self.types = types
    }

    /// The selected shifts, by date then start time.
    public func shifts(in schedule: Schedule) -> [ScheduledShift] {
        var query = ShiftQuery(from: from, to: to, shiftTypeIDs: types)
        if let people, people.count == 1 { query.personID = people.first }
        let shifts = schedule.shifts(query)
        guard let people, people.count > 1 else { return shifts }
        return shifts.filter { $0.personID.map(people.contains) ?? false }
    }
}
