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
            ShiftIndex.remove(DatedShiftRef(date: shift.date, id: shift.id, type: shift.shiftTypeID), from: &byPerson[person])
        }
    }

    private static func insertSorted<T: Comparable>(_ array: inout [T], _ element: T) {
        array.insert(element, at: lowerBound(array, element))
    }

    /// One access to the person's entry: the reference goes, and the entry too once empty.
    private static func remove(_ ref: DatedShiftRef, from shifts: inout PersonShifts?) {
        shifts?.remove(ref)
        if shifts?.isEmpty == true { shifts = nil }
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
/// chunk and the short lists of chunks, not the whole roster (and free as little afterwards).
struct PersonShifts: RandomAccessCollection, Sendable {
    static let chunkLimit = 64

    private var chunks: [[ShiftReference]] = []
    /// Where each chunk starts and what it ends with: searches read this one array, not every
    /// chunk they pass.
    private var summaries: [Summary] = []
    private(set) var count = 0

    private struct Summary {
        /// The position of the chunk's first element (the count of the chunks before it).
        var start: Int
        var last: ShiftReference
    }

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    /// A binary search over the chunks' starts, then the element (walks use `forEach(in:)` or
    /// the iterator, which look up nothing per element).
    subscript(position: Int) -> ShiftReference {
        let chunk = chunkIndex(containing: position)
        return chunks[chunk][position - summaries[chunk].start]
    }

    /// The chunk holding `position` (the last chunk whose start is at or before it).
    private func chunkIndex(containing position: Int) -> Int {
        var low = 0
        var high = summaries.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if summaries[mid].start <= position { low = mid } else { high = mid - 1 }
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

    /// Calls `body` with the references from `range.lowerBound` up to `range.upperBound`, in order.
    func forEach(in range: Range<Int>, _ body: (ShiftReference) throws -> Void) rethrows {
        guard !range.isEmpty else { return }
        var chunk = chunkIndex(containing: range.lowerBound)
        var position = range.lowerBound
        while position < range.upperBound {
            let local = position - summaries[chunk].start
            let take = Swift.min(chunks[chunk].count - local, range.upperBound - position)
            for offset in local..<(local + take) { try body(chunks[chunk][offset]) }
            position += take
            chunk += 1
        }
    }

    /// The references from `range.lowerBound` up to `range.upperBound`, as one array.
    func references(_ range: Range<Int>) -> [ShiftReference] {
        guard !range.isEmpty else { return [] }
        var result: [ShiftReference] = []
        result.reserveCapacity(range.count)
        forEach(in: range) { result.append($0) }
        return result
    }

    /// Position of the first reference dated on or after `date` (`count` if none).
    func lowerBound(_ date: LocalDate) -> Int {
        let (chunk, offset) = locate { $0.date < date }
        return chunk < chunks.count ? summaries[chunk].start + offset : count
    }

    /// Position of the first reference not before `element` in (date, id) order.
    func lowerBound(_ element: ShiftReference) -> Int {
        let (chunk, offset) = locate { $0 < element }
        return chunk < chunks.count ? summaries[chunk].start + offset : count
    }

    /// The chunk and offset of the first reference that is not `below` (references are sorted
    /// so that every one `below` comes first); the chunk is `chunks.count` when there is none.
    private func locate(_ below: (ShiftReference) -> Bool) -> (chunk: Int, offset: Int) {
        var low = 0
        var high = summaries.count
        while low < high {
            let mid = (low + high) / 2
            if below(summaries[mid].last) { low = mid + 1 } else { high = mid }
        }
        guard low < chunks.count else { return (low, 0) }
        let chunk = chunks[low]
        var first = 0
        var last = chunk.count
        while first < last {
            let mid = (first + last) / 2
            if below(chunk[mid]) { first = mid + 1 } else { last = mid }
        }
        return (low, first)
    }

    mutating func insert(_ element: ShiftReference) {
        guard !chunks.isEmpty else {
            chunks = [[element]]
            summaries = [Summary(start: 0, last: element)]
            count = 1
            return
        }
        // Into the chunk it sorts into, or at the end of the last one when it follows everything.
        var (chunk, offset) = locate { $0 < element }
        if chunk == chunks.count {
            chunk -= 1
            offset = chunks[chunk].count
        }
        if chunks[chunk].count == Self.chunkLimit {
            // A full chunk splits in two new halves first (a grown array would keep twice the room).
            let half = Self.chunkLimit / 2
            let full = chunks[chunk]
            chunks[chunk] = Array(full[..<half])
            chunks.insert(Array(full[half...]), at: chunk + 1)
            summaries.insert(Summary(start: summaries[chunk].start + half, last: summaries[chunk].last), at: chunk + 1)
            summaries[chunk].last = full[half - 1]
            if offset > half {
                chunk += 1
                offset -= half
            }
        }
        chunks[chunk].insert(element, at: offset)
        if offset == chunks[chunk].count - 1 { summaries[chunk].last = element }
        count += 1
        shiftStarts(after: chunk, by: 1)
    }

    /// Removes `element` if present; returns whether it was.
    @discardableResult
    mutating func remove(_ element: ShiftReference) -> Bool {
        let (chunk, offset) = locate { $0 < element }
        guard chunk < chunks.count, chunks[chunk][offset] == element else { return false }
        count -= 1
        if chunks[chunk].count == 1 {
            chunks.remove(at: chunk)
            summaries.remove(at: chunk)
            shiftStarts(after: chunk - 1, by: -1)
        } else {
            chunks[chunk].remove(at: offset)
            if offset == chunks[chunk].count { summaries[chunk].last = chunks[chunk][offset - 1] }
            shiftStarts(after: chunk, by: -1)
        }
        return true
    }

    /// Moves the start of every chunk after `chunk` by `delta` (one uniqueness check, not one
    /// per chunk).
    private mutating func shiftStarts(after chunk: Int, by delta: Int) {
        summaries.withUnsafeMutableBufferPointer { summaries in
            for later in (chunk + 1)..<summaries.count { summaries[later].start += delta }
        }
    }
}
