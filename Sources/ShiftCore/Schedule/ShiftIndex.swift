import Foundation
import HashTreeCollections

/// The per-person index's entries: a shift's date and id (its sort key) and its type, so that
/// totals over a person's shifts (hours in a period) need no lookup of the shift itself.
typealias DatedShiftRef = ShiftReference

struct TypeDay: Hashable, Sendable {
    var type: ShiftTypeID
    var date: LocalDate
}

/// Indexes over scheduled shifts. Each is persistent (O(1) copy); the arrays it holds are small
/// (one person's shifts, one type's shifts on one day) and kept sorted so updates are binary
/// searches. A shift mutation touches two maps: few maps is what keeps a mutation cheap.
struct ShiftIndex: Sendable {
    var byTypeDate: TreeDictionary<TypeDay, [ShiftID]> = [:]
    var byPerson: TreeDictionary<PersonID, [DatedShiftRef]> = [:]
    /// Earliest and latest date ever indexed. Only widens, so it is a bound, not an exact range.
    var dateRange: ClosedRange<LocalDate>?

    mutating func insert(_ shift: ScheduledShift) {
        ShiftIndex.insertSorted(&byTypeDate[TypeDay(type: shift.shiftTypeID, date: shift.date), default: []], shift.id)
        if let person = shift.personID {
            ShiftIndex.insertSorted(&byPerson[person, default: []], DatedShiftRef(date: shift.date, id: shift.id, type: shift.shiftTypeID))
        }
        if let range = dateRange {
            if shift.date < range.lowerBound || shift.date > range.upperBound {
                dateRange = min(range.lowerBound, shift.date)...max(range.upperBound, shift.date)
            }
        } else {
            dateRange = shift.date...shift.date
        }
    }

    mutating func remove(_ shift: ScheduledShift) {
        ShiftIndex.removeSorted(&byTypeDate, key: TypeDay(type: shift.shiftTypeID, date: shift.date), shift.id)
        if let person = shift.personID {
            ShiftIndex.removeSorted(&byPerson, key: person, DatedShiftRef(date: shift.date, id: shift.id, type: shift.shiftTypeID))
        }
    }

    private static func insertSorted<T: Comparable>(_ array: inout [T], _ element: T) {
        array.insert(element, at: lowerBound(array, element))
    }

    private static func removeSorted<K: Hashable, T: Comparable>(_ dictionary: inout TreeDictionary<K, [T]>, key: K, _ element: T) {
        // Found first, changed in place after: a copy of the array held meanwhile would make the
        // change copy the whole array even where the map holds it alone (later changes of a batch).
        let found: (position: Int, count: Int)? = dictionary[key].flatMap { array in
            let position = lowerBound(array, element)
            return position < array.count && array[position] == element ? (position, array.count) : nil
        }
        guard let found else { return }
        if found.count == 1 {
            dictionary[key] = nil
        } else {
            dictionary[key]!.remove(at: found.position)
        }
    }

    private static func lowerBound<T: Comparable>(_ array: [T], _ element: T) -> Int {
        var low = 0
        var high = array.count
        while low < high {
            let mid = (low + high) / 2
            if array[mid] < element { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Index of the first reference on or after `date`.
    static func lowerBound(_ refs: [DatedShiftRef], _ date: LocalDate) -> Int {
        var low = 0
        var high = refs.count
        while low < high {
            let mid = (low + high) / 2
            if refs[mid].date < date { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
