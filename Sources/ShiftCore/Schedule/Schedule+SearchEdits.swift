/// Shift edits made in place for a search that tries many candidate rosters (`shiftctl solve`):
/// each candidate is the schedule with a few shifts put or taken out, evaluated, and then taken
/// back. Through the mutation funnel (`applying`), a candidate is a new schedule: a path of the
/// persistent maps copied, a change recorded per shift, and the copy freed when the move is
/// refused. Here a schedule that is the only holder of its storage changes in place, and
/// `undo(_:)` restores it as it was.
///
/// Nothing is checked and nothing is recorded: the search builds its shifts from the schedule's
/// own shift types and people, and its result goes through the funnel (checked by the rules,
/// logged) when it is written. The schedule must hold its shifts in memory (no `source`:
/// `materialized()` first). The shifts a schedule shows after edits are those the funnel makes
/// of the same `scheduleShift`, `updateShift` and `unscheduleShift` mutations (SearchEditTests).
extension Schedule {
    /// One edit: a shift put in the schedule under its id (replacing the one there, or added),
    /// or the shift with an id taken out (nothing when there is none).
    public enum SearchEdit: Sendable {
        case put(ScheduledShift)
        case remove(ShiftID)
    }

    /// What a run of edits replaced, to take them back.
    public struct SearchUndo: Sendable {
        fileprivate var replaced: [(id: ShiftID, shift: ScheduledShift?)] = []
        fileprivate var dateRange: ClosedRange<LocalDate>?
    }

    /// Makes `edits` in order, in place, and returns what takes them back.
    @discardableResult
    public mutating func edit(_ edits: [SearchEdit]) -> SearchUndo {
        precondition(source == nil, "search edits need a schedule held in memory (materialized)")
        var undo = SearchUndo(dateRange: index.dateRange)
        undo.replaced.reserveCapacity(edits.count)
        for edit in edits {
            switch edit {
            case let .put(shift): undo.replaced.append((shift.id, put(shift)))
            case let .remove(id): undo.replaced.append((id, take(id)))
            }
        }
        return undo
    }

    /// Takes back the edits `undo` came from: the schedule is again what it was before them (with
    /// no other change made in between).
    public mutating func undo(_ undo: SearchUndo) {
        for (id, shift) in undo.replaced.reversed() {
            if let shift { put(shift) } else { take(id) }
        }
        index.dateRange = undo.dateRange
    }

    /// Puts `shift` under its id and returns the shift it replaced. A shift that keeps its type
    /// and date changes only the person index.
    @discardableResult
    private mutating func put(_ shift: ScheduledShift) -> ScheduledShift? {
        guard let old = shiftStore.updateValue(shift, forKey: shift.id) else {
            index.insert(shift)
            if shift.hasCustomEventIdentifier { eventIdentifierIndex[shift.eventIdentifier] = shift.id }
            return nil
        }
        if old.shiftTypeID == shift.shiftTypeID, old.date == shift.date {
            if old.personID != shift.personID { index.reassign(old, to: shift.personID) }
        } else {
            index.remove(old)
            index.insert(shift)
        }
        if old.hasCustomEventIdentifier, old.eventIdentifier != shift.eventIdentifier { eventIdentifierIndex[old.eventIdentifier] = nil }
        if shift.hasCustomEventIdentifier { eventIdentifierIndex[shift.eventIdentifier] = shift.id }
        return old
    }

    /// Takes out the shift with `id` and returns it.
    @discardableResult
    private mutating func take(_ id: ShiftID) -> ScheduledShift? {
        guard let old = shiftStore[id] else { return nil }
        shiftStore[id] = nil
        index.remove(old)
        if old.hasCustomEventIdentifier { eventIdentifierIndex[old.eventIdentifier] = nil }
        return old
    }
}
