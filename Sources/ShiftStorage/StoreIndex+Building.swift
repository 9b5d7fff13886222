import Foundation
import ShiftCore

#if !_endian(little)
#error("the index file is written in the machine's byte order, which must be little-endian")
#endif

extension StoreIndex {
    /// What ties an index to its store file: the file's format version, size and content hash,
    /// and where its change-log array lies.
    struct Stamp: Equatable {
        var storeVersion: Int
        var storeSize: Int
        var storeHash: UInt64
        var changeLog: Range<Int>?
    }

    /// An index file's bytes for a schedule's small parts and its shifts (in any order).
    ///
    /// - Returns: nil when a shift names a shift type or a person the schedule does not have,
    ///   or two shifts share an id: such a store is read the plain way, which names the fault.
    ///   Everything else about the shifts is the caller's to check.
    static func encode(catalog schedule: Schedule, shifts: [ScheduledShift], stamp: Stamp) -> [UInt8]? {
        Prepared(catalog: schedule, shifts: shifts)?.bytes(stamp: stamp)
    }

    /// An index's contents before it is tied to a store file: all of the work of `encode`, which
    /// needs only the schedule, so that it can be done while the store file is encoded (whose
    /// size, hash and change-log position make the stamp).
    struct Prepared: Sendable {
        /// The body, with the change log's position left as zeros.
        private var body: [UInt8]
        /// Where the change log's position goes in the body: after the eight counts.
        private static let logOffset = 64

        /// Nil in the cases `encode` returns nil.
        init?(catalog schedule: Schedule, shifts: [ScheduledShift]) {
            let catalog = StoreFileCodec.encode(schedule, shifts: [], changeLog: false).bytes
            let people = schedule.people.map(\.id)
            let types = schedule.shiftTypes.map(\.id)
            guard let rows = Rows(shifts, people: people, types: types) else { return nil }
            var body = ByteSink(capacity: 128 + catalog.count + shifts.count * 72 + (people.count + types.count) * 20)
            let counts = [
                shifts.count, people.count, types.count, rows.extraRows.count, rows.byPerson.count, catalog.count, rows.extraBytes.count,
                rows.idTable.count,
            ]
            for count in counts {
                body.append(UInt64(count))
            }
            body.append(UInt64(0))
            body.append(UInt64(0))
            body.part(bytes: catalog)
            body.part(people.flatMap { id in let (a, b) = orderWords(id); return [a, b] })
            body.part(types.flatMap { id in let (a, b) = orderWords(id); return [a, b] })
            body.part(rows.idWords)
            body.part(rows.dates)
            body.part(rows.types)
            body.part(rows.persons)
            body.part(rows.byID)
            body.part(rows.idTable)
            body.part(rows.byPerson)
            body.part(rows.personStarts)
            body.part(rows.typeCounts)
            body.part(rows.byPerson.flatMap { row in [rows.idWords[2 * Int(row)], rows.idWords[2 * Int(row) + 1]] })
            body.part(rows.byPerson.map { rows.dates[Int($0)] })
            body.part(rows.byPerson.map { rows.types[Int($0)] })
            body.part(rows.extraRows)
            body.part(rows.extraOffsets)
            body.part(bytes: rows.extraBytes)
            self.body = body.bytes
        }

        /// The index file's bytes, stamped for the store file it goes with.
        consuming func bytes(stamp: Stamp) -> [UInt8] {
            var body = self.body
            let log = [stamp.changeLog.map { UInt64($0.lowerBound) } ?? UInt64.max, stamp.changeLog.map { UInt64($0.upperBound) } ?? UInt64.max]
            body.withUnsafeMutableBytes { raw in
                for (k, value) in log.enumerated() {
                    withUnsafeBytes(of: value.littleEndian) { word in
                        raw.baseAddress!.advanced(by: Self.logOffset + 8 * k).copyMemory(from: word.baseAddress!, byteCount: 8)
                    }
                }
            }
            let header = Header(
                storeVersion: stamp.storeVersion, storeSize: stamp.storeSize, storeHash: stamp.storeHash,
                bodySize: body.count, bodyHash: ContentHash.of(body))
            return header.bytes + body
        }
    }

    fileprivate struct Rows: Sendable {
        var idWords: [UInt64] = []
        var dates: [Int32] = []
        var types: [UInt32] = []
        var persons: [UInt32] = []
        var byID: [UInt32] = []
        var idTable: [UInt32] = []
        var byPerson: [UInt32] = []
        var personStarts: [UInt32] = []
        var typeCounts: [UInt32] = []
        var extraRows: [UInt32] = []
        var extraOffsets: [UInt64] = [0]
        var extraBytes: [UInt8] = []

        /// A shift's sort key and where it is in the input.
        private struct Key {
            var date: Int32
            var high: UInt64
            var low: UInt64
            var input: UInt32

            static func byDateAndID(_ a: Key, _ b: Key) -> Bool {
                a.date != b.date ? a.date < b.date : a.high != b.high ? a.high < b.high : a.low < b.low
            }
        }

        init?(_ shifts: [ScheduledShift], people: [PersonID], types typeIDs: [ShiftTypeID]) {
            let personPosition = Dictionary(uniqueKeysWithValues: people.enumerated().map { ($1, UInt32($0)) })
            let typePosition = Dictionary(uniqueKeysWithValues: typeIDs.enumerated().map { ($1, UInt32($0)) })
            var keys = shifts.indices.map { index in
                let (high, low) = StoreIndex.orderWords(shifts[index].id)
                return Key(date: shifts[index].date.dayNumber, high: high, low: low, input: UInt32(index))
            }
            keys.sort(by: Key.byDateAndID)

            let count = shifts.count
            idWords.reserveCapacity(2 * count)
            dates.reserveCapacity(count)
            types.reserveCapacity(count)
            persons.reserveCapacity(count)
            typeCounts = Array(repeating: 0, count: typeIDs.count)
            var perPerson = Array(repeating: UInt32(0), count: people.count)
            var writer = JSONWriter(capacity: 0)
            for (row, key) in keys.enumerated() {
                let shift = shifts[Int(key.input)]
                guard let type = typePosition[shift.shiftTypeID] else { return nil }
                var person = StoreIndex.noPerson
                if let id = shift.personID {
                    guard let position = personPosition[id] else { return nil }
                    person = position
                    perPerson[Int(position)] += 1
                }
                idWords.append(key.high)
                idWords.append(key.low)
                dates.append(key.date)
                types.append(type)
                persons.append(person)
                typeCounts[Int(type)] += 1
                if shift.notes != nil || !shift.attributes.isEmpty || shift.hasCustomEventIdentifier {
                    StoreFileCodec.writeShift(shift, &writer)
                    extraRows.append(UInt32(row))
                    extraOffsets.append(UInt64(writer.bytes.count))
                }
            }
            extraBytes = writer.bytes

            // By id: the rows sorted by their ids; two equal neighbours are a duplicate.
            var byIDKeys = keys.enumerated().map { Key(date: 0, high: $1.high, low: $1.low, input: UInt32($0)) }
            byIDKeys.sort(by: Key.byDateAndID)
            for (a, b) in zip(byIDKeys, byIDKeys.dropFirst()) where a.high == b.high && a.low == b.low { return nil }
            byID = byIDKeys.map(\.input)

            // Rows by id, for lookups in one probe or two: at most half the slots are taken.
            var slots = 1
            while slots <= 2 * count { slots <<= 1 }
            idTable = Array(repeating: 0, count: slots)
            for row in 0..<count {
                var slot = StoreIndex.slot(of: (idWords[2 * row], idWords[2 * row + 1]), mask: slots - 1)
                while idTable[slot] != 0 { slot = (slot + 1) & (slots - 1) }
                idTable[slot] = UInt32(row + 1)
            }

            // By person: a counting sort of the rows, which keeps their (date, id) order.
            personStarts = [0]
            personStarts.reserveCapacity(people.count + 1)
            for n in perPerson { personStarts.append(personStarts.last! + n) }
            var next = Array(personStarts.dropLast())
            byPerson = Array(repeating: 0, count: Int(personStarts.last!))
            for row in 0..<count where persons[row] != StoreIndex.noPerson {
                let person = Int(persons[row])
                byPerson[Int(next[person])] = UInt32(row)
                next[person] += 1
            }
        }
    }
}
