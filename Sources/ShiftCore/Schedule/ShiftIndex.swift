import Foundation
import HashTreeCollections

/// A shift's date and id: the sort key of the per-person index.
struct DatedShiftRef: Hashable, Sendable, Comparable {
    var date: LocalDate
    var id: ShiftID

    static func < (lhs: Self, rhs: Self) -> Bool { lhs.date != rhs.date ? lhs.date < rhs.date : lhs.id < rhs.id }
}

struct TypeDay: Hashable, Sendable {
    var type: ShiftTypeID
    var date: LocalDate
}

/// Indexes over scheduled shifts. Each is persistent (O(1) copy); the arrays it holds are small
/// (one person's shifts, one day's shifts) and kept sorted so updates are binary searches.
struct ShiftIndex: Sendable {
    var byDate: TreeDictionary<LocalDate, [ShiftID]> = [:]
    var byPerson: TreeDictionary<PersonID, [DatedShiftRef]> = [:]
    var byTypeDate: TreeDictionary<TypeDay, [ShiftID]> = [:]
    var countByType: TreeDictionary<ShiftTypeID, Int> = [:]
    /// Earliest and latest date ever indexed. Only widens, so it is a bound, not an exact range.
    var dateRange: ClosedRange<LocalDate>?

    mutating func insert(_ shift: ScheduledShift) {
        ShiftIndex.insertSorted(&byDate[shift.date, default: []], shift.id)
        ShiftIndex.insertSorted(&byTypeDate[TypeDay(type: shift.shiftTypeID, date: shift.date), default: []], shift.id)
        if let person = shift.personID {
            ShiftIndex.insertSorted(&byPerson[person, default: []], DatedShiftRef(date: shift.date, id: shift.id))
        }
        countByType[shift.shiftTypeID, default: 0] += 1
        if let range = dateRange {
            dateRange = min(range.lowerBound, shift.date)...max(range.upperBound, shift.date)
        } else {
            dateRange = shift.date...shift.date
        }
    }

    mutating func remove(_ shift: ScheduledShift) {
        ShiftIndex.removeSorted(&byDate, key: shift.date, shift.id)
        ShiftIndex.removeSorted(&byTypeDate, key: TypeDay(type: shift.shiftTypeID, date: shift.date), shift.id)
        if let person = shift.personID {
            ShiftIndex.removeSorted(&byPerson, key: person, DatedShiftRef(date: shift.date, id: shift.id))
        }
        let remaining = (countByType[shift.shiftTypeID] ?? 1) - 1
        countByType[shift.shiftTypeID] = remaining > 0 ? remaining : nil
    }

    private static func insertSorted<T: Comparable>(_ array: inout [T], _ element: T) {
        var low = 0
        var high = array.count
        while low < high {
            let mid = (low + high) / 2
            if array[mid] < element { low = mid + 1 } else { high = mid }
        }
        array.insert(element, at: low)
    }

    private static func removeSorted<K: Hashable, T: Comparable>(_ dictionary: inout TreeDictionary<K, [T]>, key: K, _ element: T) {
        guard var array = dictionary[key] else { return }
        dictionary[key] = nil // drop the dictionary's reference so the array is edited in place
        var low = 0
        var high = array.count
        while low < high {
            let mid = (low + high) / 2
            if array[mid] < element { low = mid + 1 } else { high = mid }
        }
        if low < array.count, array[low] == element { array.remove(at: low) }
        if !array.isEmpty { dictionary[key] = array }
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
