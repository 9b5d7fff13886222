import Foundation
import ShiftCore

extension StoreIndex {
    /// The shift in a row, with its notes, attributes and calendar UID when it has any.
    /// - Throws: when those extras do not decode (a damaged index that passed its hash).
    func shift(atRow row: Int) throws(StorageError) -> ScheduledShift {
        if !columns.extraRows.isEmpty, let extra = extraPosition(ofRow: row) {
            return try extraShift(extra)
        }
        return columnShift(atRow: row)
    }

    /// A row's shift from the columns alone: without notes, attributes and calendar UID.
    func columnShift(atRow row: Int) -> ScheduledShift {
        let person = columns.persons[row]
        return ScheduledShift(
            id: ShiftID(Self.uuid(words(ofRow: row))), shiftTypeID: typeIDs[Int(columns.types[row])], date: LocalDate(dayNumber: columns.dates[row]),
            personID: person == Self.noPerson ? nil : personIDs[Int(person)])
    }

    /// The row of the shift with this id: a probe of the table of ids.
    func row(of id: ShiftID) -> Int? {
        let key = Self.orderWords(id)
        let mask = columns.idTable.count - 1
        var slot = Self.slot(of: key, mask: mask)
        while columns.idTable[slot] != 0 {
            let row = Int(columns.idTable[slot]) - 1
            if words(ofRow: row) == key { return row }
            slot = (slot + 1) & mask
        }
        return nil
    }

    /// The rows dated `from`…`to`, which lie together (rows are in date order).
    func rows(from: LocalDate, to: LocalDate) -> Range<Int> {
        guard from <= to else { return 0..<0 }
        let lower = Self.firstPosition(in: 0..<shiftCount, of: columns.dates, notBefore: from.dayNumber)
        let upper = Self.firstPosition(in: lower..<shiftCount, of: columns.dates, notBefore: to.dayNumber + 1)
        return lower..<upper
    }

    /// Where a person's rows dated `from`…`to` lie in `byPerson` (and in `personDates`…).
    func personRun(_ person: Int, from: LocalDate, to: LocalDate) -> Range<Int> {
        let run = Int(columns.personStarts[person])..<Int(columns.personStarts[person + 1])
        guard from <= to else { return run.lowerBound..<run.lowerBound }
        let lower = Self.firstPosition(in: run, of: columns.personDates, notBefore: from.dayNumber)
        let upper = Self.firstPosition(in: lower..<run.upperBound, of: columns.personDates, notBefore: to.dayNumber + 1)
        return lower..<upper
    }

    /// The date, id and type at a position of the people's order.
    func personReference(at position: Int) -> ShiftReference {
        ShiftReference(
            date: LocalDate(dayNumber: columns.personDates[position]),
            id: ShiftID(Self.uuid((columns.personIDWords[2 * position], columns.personIDWords[2 * position + 1]))),
            type: typeIDs[Int(columns.personTypes[position])])
    }

    /// The first position in `range` of ascending `dates` that holds `day` or a later one.
    private static func firstPosition(in range: Range<Int>, of dates: UnsafeBufferPointer<Int32>, notBefore day: Int32) -> Int {
        var (low, high) = (range.lowerBound, range.upperBound)
        while low < high {
            let middle = (low + high) / 2
            if dates[middle] < day { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The row of the shift whose custom calendar UID is `uid`.
    func row(customEventIdentifier uid: String) throws(StorageError) -> Int? {
        if columns.extraRows.isEmpty { return nil }
        if let found = customUIDs.withLock({ $0 }) { return found[uid] }
        var found: [String: Int] = [:]
        for extra in columns.extraRows.indices {
            let shift = try extraShift(extra)
            if shift.hasCustomEventIdentifier { found[shift.eventIdentifier] = Int(columns.extraRows[extra]) }
        }
        customUIDs.withLock { $0 = found }
        return found[uid]
    }

    /// The rows whose id, as lowercase text, starts with `prefix`, in id order, at most `limit`.
    func rows(idPrefix prefix: String, limit: Int) -> [Int] {
        let wanted = Array(prefix.utf8)
        guard limit > 0, wanted.count <= 36 else { return [] }
        // Lowercase text sorts as the ids do (hex digits in order, dashes in fixed places), so
        // the ids with the prefix are one run of the rows by id.
        func textPrefix(_ position: Int) -> [UInt8] {
            var text = [UInt8](repeating: 0, count: 36)
            text.withUnsafeMutableBufferPointer { Self.uuid(words(ofRow: Int(columns.byID[position]))).writeLowercased(into: $0.baseAddress!) }
            return Array(text[0..<wanted.count])
        }
        var (low, high) = (0, columns.byID.count)
        while low < high {
            let middle = (low + high) / 2
            if textPrefix(middle).lexicographicallyPrecedes(wanted) { low = middle + 1 } else { high = middle }
        }
        var result: [Int] = []
        while low < columns.byID.count, result.count < limit, textPrefix(low) == wanted {
            result.append(Int(columns.byID[low]))
            low += 1
        }
        return result
    }

    // MARK: Extras

    private func extraPosition(ofRow row: Int) -> Int? {
        var (low, high) = (0, columns.extraRows.count)
        let target = UInt32(row)
        while low < high {
            let middle = (low + high) / 2
            if columns.extraRows[middle] < target { low = middle + 1 } else { high = middle }
        }
        return low < columns.extraRows.count && columns.extraRows[low] == target ? low : nil
    }

    /// The shift written whole (as in the store file) for the `position`-th row with extras.
    private func extraShift(_ position: Int) throws(StorageError) -> ScheduledShift {
        let start = Int(columns.extraOffsets[position])
        let end = Int(columns.extraOffsets[position + 1])
        let bytes = UnsafeBufferPointer(start: columns.extraBytes.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) + start }, count: end - start)
        var reader = JSONReader(bytes: bytes, path: "the store's index")
        return try EntityDecoder(version: StoreFileCodec.currentVersion).shift(&reader, "shift")
    }
}
