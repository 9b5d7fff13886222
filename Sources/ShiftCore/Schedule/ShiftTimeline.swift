/// A shift placed in time: its reference (date, id, type) and the real instants it occupies.
public struct TimedShift: Hashable, Sendable {
    public var id: ShiftID
    public var type: ShiftTypeID
    /// The calendar date the shift starts on.
    public var date: LocalDate
    /// Start and end, UTC seconds since 1970, computed in the store's time zone (half-open).
    public var start: Int64
    public var end: Int64

    public init(id: ShiftID, type: ShiftTypeID, date: LocalDate, start: Int64, end: Int64) {
        self.id = id
        self.type = type
        self.date = date
        self.start = start
        self.end = end
    }

    /// Timeline order: by start instant, then by id (two shifts starting together, a double
    /// booking, keep a stable order).
    public static func timelineOrder(_ a: TimedShift, _ b: TimedShift) -> Bool {
        a.start != b.start ? a.start < b.start : a.id < b.id
    }
}

extension Schedule {
    /// A person's shifts in time order (start, then id) with their real start and end instants:
    /// what a sweep over one person's roster reads (rest between consecutive shifts, overlaps,
    /// shifts per day).
    ///
    /// Cost: one walk over the person's date-sorted index; a shift type is looked up only when
    /// it changes from one shift to the next, and no shift is read.
    public func timeline(of person: PersonID) -> [TimedShift] {
        if source == nil {
            // A walk along the index's leaves (no iterator state per element).
            guard let refs = index.shifts(of: person) else { return [] }
            return timeline(count: refs.count) { add in refs.forEach(in: 0..<refs.count, add) }
        }
        // All of the person's dates, not the stored shifts' span (see `forEachMergedShift`).
        let refs = shiftReferences(of: person, from: .minimum, to: .maximum)
        return timeline(count: refs.count) { add in refs.forEach(add) }
    }

    /// The timeline of `count` references that `walk` hands to its argument in (date, id) order.
    private func timeline(count: Int, _ walk: ((ShiftReference) -> Void) -> Void) -> [TimedShift] {
        guard count > 0 else { return [] }
        var result: [TimedShift] = []
        result.reserveCapacity(count)
        var lastType: ShiftTypeID?
        var minutes = (start: 0, end: 0)
        var sorted = true
        // What the walk reads of the schedule, taken out first: a closure that reads `self`
        // may copy the whole schedule on each call (25 references retained and released).
        let types = shiftTypeStore
        var instants = ZoneRules.Cursor(zone)
        walk { ref in
            if ref.type != lastType {
                lastType = ref.type
                // A stored schedule never holds a shift of an unknown type; a proposed one is
                // checked for that before any rule runs. Such a shift would take no time.
                minutes = types[ref.type]?.duration.minuteRange ?? (0, 0)
            }
            let start = instants.instant(of: ref.date, minutes: minutes.start)
            let end = instants.instant(of: ref.date, minutes: minutes.end)
            let shift = TimedShift(id: ref.id, type: ref.type, date: ref.date, start: start, end: end)
            if sorted, let previous = result.last, !TimedShift.timelineOrder(previous, shift) { sorted = false }
            result.append(shift)
        }
        // The index is by date then id; within a date, shifts of different types can start in
        // another order (across dates the order of starts already holds).
        if !sorted { result.sort(by: TimedShift.timelineOrder) }
        return result
    }
}
