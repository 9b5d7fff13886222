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
    var byPerson: TreeDictionary<PersonID, PersonShifts> = [:]
    /// Earliest and latest date ever indexed. Only widens, so it is a bound, not an exact range.
    var dateRange: ClosedRange<LocalDate>?

    mutating func insert(_ shift: ScheduledShift) {
        ShiftIndex.insertSorted(&byTypeDate[TypeDay(type: shift.shiftTypeID, date: shift.date), default: []], shift.id)
        if let person = shift.personID {
            byPerson[person, default: PersonShifts()].insert(DatedShiftRef(date: shift.date, id: shift.id, type: shift.shiftTypeID))
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
            byPerson[person]?.remove(DatedShiftRef(date: shift.date, id: shift.id, type: shift.shiftTypeID))
            if byPerson[person]?.isEmpty == true { byPerson[person] = nil }
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
}

/// One person's shift references in (date, id) order, held in chunks of at most
/// `PersonShifts.chunkLimit`. A schedule is persistent: a change copies what it touches, and the
/// version before keeps the rest. Chunks make a change to a person with years of shifts copy one
/// chunk and the short list of chunks, not the whole roster (and free as little afterwards).
struct PersonShifts: RandomAccessCollection, Sendable {
    static let chunkLimit = 64

    private var chunks: [[ShiftReference]] = []
    /// The position of each chunk's first element (`starts[i]` is the count before chunk i).
    private var starts: [Int] = []
    private(set) var count = 0

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    subscript(position: Int) -> ShiftReference {
        let chunk = chunkIndex(containing: position)
        return chunks[chunk][position - starts[chunk]]
    }

    /// The chunk holding `position` (the last chunk whose start is at or before it).
    private func chunkIndex(containing position: Int) -> Int {
        var low = 0
        var high = starts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if starts[mid] <= position { low = mid } else { high = mid - 1 }
        }
        return low
    }

    func makeIterator() -> Iterator { Iterator(chunks: chunks) }

    /// Walks the chunks in order, with no lookup per element.
    struct Iterator: IteratorProtocol {
        let chunks: [[ShiftReference]]
        var chunk = 0
        var offset = 0

        init(chunks: [[ShiftReference]]) { self.chunks = chunks }

        mutating func next() -> ShiftReference? {
            while chunk < chunks.count {
                if offset < chunks[chunk].count {
                    defer { offset += 1 }
                    return chunks[chunk][offset]
                }
                chunk += 1
                offset = 0
            }
            return nil
        }
    }

    /// The references from `lower` up to (not including) `upper`, as one array.
    func references(_ range: Range<Int>) -> [ShiftReference] {
        guard !range.isEmpty else { return [] }
        var result: [ShiftReference] = []
        result.reserveCapacity(range.count)
        forEach(in: range) { result.append($0) }
        return result
    }

    /// Calls `body` with the references from `range.lowerBound` up to `range.upperBound`, in order.
    func forEach(in range: Range<Int>, _ body: (ShiftReference) throws -> Void) rethrows {
        guard !range.isEmpty else { return }
        var chunk = chunkIndex(containing: range.lowerBound)
        var position = range.lowerBound
        while position < range.upperBound {
            let local = position - starts[chunk]
            let take = Swift.min(chunks[chunk].count - local, range.upperBound - position)
            for offset in local..<(local + take) { try body(chunks[chunk][offset]) }
            position += take
            chunk += 1
        }
    }

    /// Position of the first reference dated on or after `date` (`count` if none).
    func lowerBound(_ date: LocalDate) -> Int {
        lowerBound { $0.date < date }
    }

    /// Position of the first reference not before `element` in (date, id) order.
    func lowerBound(_ element: ShiftReference) -> Int {
        lowerBound { $0 < element }
    }

    /// The first position whose reference is not `below` (references are sorted so that every
    /// one `below` comes first).
    private func lowerBound(_ below: (ShiftReference) -> Bool) -> Int {
        // The first chunk whose last reference is not below; then within it.
        var low = 0
        var high = chunks.count
        while low < high {
            let mid = (low + high) / 2
            if below(chunks[mid][chunks[mid].count - 1]) { low = mid + 1 } else { high = mid }
        }
        guard low < chunks.count else { return count }
        let chunk = chunks[low]
        var first = 0
        var last = chunk.count
        while first < last {
            let mid = (first + last) / 2
            if below(chunk[mid]) { first = mid + 1 } else { last = mid }
        }
        return starts[low] + first
    }

    mutating func insert(_ element: ShiftReference) {
        guard !chunks.isEmpty else {
            chunks = [[element]]
            starts = [0]
            count = 1
            return
        }
        // The chunk the element sorts into: the first whose last reference is not below it (or
        // the last chunk, for an element after everything).
        var low = 0
        var high = chunks.count - 1
        while low < high {
            let mid = (low + high) / 2
            if chunks[mid][chunks[mid].count - 1] < element { low = mid + 1 } else { high = mid }
        }
        let chunk = low
        var first = 0
        var last = chunks[chunk].count
        while first < last {
            let mid = (first + last) / 2
            if chunks[chunk][mid] < element { first = mid + 1 } else { last = mid }
        }
        chunks[chunk].insert(element, at: first)
        count += 1
        for later in (chunk + 1)..<starts.count { starts[later] += 1 }
        if chunks[chunk].count > Self.chunkLimit {
            // Split in two halves; the second becomes a chunk of its own.
            let half = chunks[chunk].count / 2
            let tail = Array(chunks[chunk][half...])
            chunks[chunk].removeSubrange(half...)
            chunks.insert(tail, at: chunk + 1)
            starts.insert(starts[chunk] + half, at: chunk + 1)
        }
    }

    /// Removes `element` if present; returns whether it was.
    @discardableResult
    mutating func remove(_ element: ShiftReference) -> Bool {
        let position = lowerBound(element)
        guard position < count else { return false }
        let chunk = chunkIndex(containing: position)
        let local = position - starts[chunk]
        guard chunks[chunk][local] == element else { return false }
        count -= 1
        if chunks[chunk].count == 1 {
            chunks.remove(at: chunk)
            starts.remove(at: chunk)
            for later in chunk..<starts.count { starts[later] -= 1 }
        } else {
            chunks[chunk].remove(at: local)
            for later in (chunk + 1)..<starts.count { starts[later] -= 1 }
        }
        return true
    }
}
