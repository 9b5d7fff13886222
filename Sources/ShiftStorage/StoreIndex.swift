import Foundation
import ShiftCore
import Synchronization

/// A JSON store's index file, read: the store's shifts in columns, its small parts (settings,
/// locations, types, people, demand, availability, requests) as a store file of their own, and
/// where its change log lies, all tied to the exact bytes of the store file it was made from.
///
/// The store file stays the one source of truth. The header names the store file's size and
/// content hash (`ContentHash`); an index whose store no longer has those bytes, whose magic or
/// format version is not this build's, or whose own bytes fail their hash or their bounds is
/// never used (`JSONFileRepository` reads the store file and writes the index again).
///
/// Layout (little-endian; every array starts on an 8-byte boundary):
///
/// | part | content |
/// |---|---|
/// | header, 64 bytes | magic `ShiftIdx`, format version (u32), store format version (u32), store size, store hash, body size, body hash, header hash (u64 each), 8 zero bytes |
/// | counts | shifts N, people P, shift types T, shifts with extras E, assigned shifts A, catalog bytes C, extras bytes X, id table slots H, change-log start and end in the store file (u64 each; `u64.max` twice for none) |
/// | catalog | C bytes: a store file holding everything but shifts and the change log |
/// | people, types | P and T ids (16 bytes each, as two order words: the id's first and last 8 bytes read big-endian) |
/// | rows | the N shifts by date, then id: ids (16 bytes), dates (i32 day numbers), type positions (u32), person positions (u32, `u32.max` for none) |
/// | orders | rows by id (N × u32); an open-addressing table of rows by id (H × u32, a power of two at least 2N: row + 1, or 0 for an empty slot); assigned rows by person, date, id (A × u32) and where each person's run starts (P + 1 × u32); shifts per type (T × u32) |
/// | people's shifts | the assigned rows' ids, dates and types again, in that person order (A × 16 bytes, A × i32, A × u32): a person's timeline is read in one sweep |
/// | extras | rows of shifts with notes, attributes or a calendar UID (E × u32, ascending), where each one's JSON starts (E + 1 × u64), then the X bytes of JSON |
///
/// Immutable once made; `@unchecked Sendable` because it holds raw pointers into `storage`,
/// which is written only before `init` and freed only in `deinit`, so every read from any
/// thread sees the same bytes.
final class StoreIndex: @unchecked Sendable {
    static let magic = Array("ShiftIdx".utf8)
    /// Raised whenever the layout or what it means changes: an index of another version is
    /// made again, never read.
    static let formatVersion: UInt32 = 1
    static let headerSize = 64
    static let noPerson = UInt32.max

    /// Where each part lies, and the parts themselves.
    let columns: Columns
    let shiftCount: Int
    let personIDs: [PersonID]
    let typeIDs: [ShiftTypeID]
    let personPositions: [PersonID: Int]
    let typePositions: [ShiftTypeID: Int]
    private let storage: UnsafeMutableRawBufferPointer
    /// Rows by custom calendar UID, made the first time one is asked for.
    let customUIDs = Mutex<[String: Int]?>(nil)

    /// The fixed first 64 bytes.
    struct Header: Equatable {
        var storeVersion: Int
        var storeSize: Int
        var storeHash: UInt64
        var bodySize: Int
        var bodyHash: UInt64

        /// nil when the bytes are not a header this build writes (magic, version, own hash).
        init?(_ bytes: UnsafeRawBufferPointer) {
            guard bytes.count >= StoreIndex.headerSize, Array(bytes[0..<8]) == StoreIndex.magic,
                  bytes.loadUnaligned(fromByteOffset: 8, as: UInt32.self) == StoreIndex.formatVersion.littleEndian,
                  UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 48, as: UInt64.self))
                    == ContentHash.of(UnsafeRawBufferPointer(rebasing: bytes[0..<48]))
            else { return nil }
            func word(_ offset: Int) -> UInt64 { UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
            let sizes = (word(16), word(32))
            guard sizes.0 <= UInt64(Int.max), sizes.1 <= UInt64(Int.max) else { return nil }
            storeVersion = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 12, as: UInt32.self)))
            storeSize = Int(sizes.0)
            storeHash = word(24)
            bodySize = Int(sizes.1)
            bodyHash = word(40)
        }

        init(storeVersion: Int, storeSize: Int, storeHash: UInt64, bodySize: Int, bodyHash: UInt64) {
            self.storeVersion = storeVersion
            self.storeSize = storeSize
            self.storeHash = storeHash
            self.bodySize = bodySize
            self.bodyHash = bodyHash
        }

        var bytes: [UInt8] {
            var sink = ByteSink()
            sink.append(contentsOf: StoreIndex.magic)
            sink.append(StoreIndex.formatVersion)
            sink.append(UInt32(storeVersion))
            sink.append(UInt64(storeSize))
            sink.append(storeHash)
            sink.append(UInt64(bodySize))
            sink.append(bodyHash)
            sink.append(ContentHash.of(sink.bytes))
            sink.append(UInt64(0))
            return sink.bytes
        }
    }

    /// Takes over `storage` (header and body, as the file holds them) when it is a whole, sound
    /// index; otherwise frees it and throws.
    static func reading(_ storage: UnsafeMutableRawBufferPointer) throws(StoreIndexError) -> StoreIndex {
        do throws(StoreIndexError) {
            return StoreIndex(storage: storage, columns: try Columns(UnsafeRawBufferPointer(storage)))
        } catch {
            storage.deallocate()
            throw error
        }
    }

    /// An index made from its file's bytes (`encode`'s output), copied.
    static func reading(_ bytes: [UInt8]) throws(StoreIndexError) -> StoreIndex {
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        bytes.withUnsafeBytes { storage.copyMemory(from: $0) }
        return try reading(UnsafeMutableRawBufferPointer(rebasing: storage[0..<bytes.count]))
    }

    private init(storage: UnsafeMutableRawBufferPointer, columns: Columns) {
        self.storage = storage
        self.columns = columns
        shiftCount = columns.dates.count
        personIDs = columns.people.map { PersonID(Self.uuid($0)) }
        typeIDs = columns.typeTable.map { ShiftTypeID(Self.uuid($0)) }
        personPositions = Dictionary(uniqueKeysWithValues: personIDs.enumerated().map { ($1, $0) })
        typePositions = Dictionary(uniqueKeysWithValues: typeIDs.enumerated().map { ($1, $0) })
    }

    deinit { storage.deallocate() }

    // MARK: Ids

    /// An id's two order words: its first and last 8 bytes read big-endian, so that comparing
    /// the words compares the ids as `Identifier` does.
    static func orderWords<Entity>(_ id: Identifier<Entity>) -> (UInt64, UInt64) {
        let (first, second) = id.words
        return (UInt64(bigEndian: first), UInt64(bigEndian: second))
    }

    static func uuid(_ words: (UInt64, UInt64)) -> UUID {
        withUnsafeBytes(of: (words.0.bigEndian, words.1.bigEndian)) { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
    }

    func words(ofRow row: Int) -> (UInt64, UInt64) { (columns.idWords[2 * row], columns.idWords[2 * row + 1]) }

    /// Where an id's probe starts in the table of ids: its words mixed, so that ids that differ
    /// in a few bits (made in sequence) spread over the table.
    static func slot(of words: (UInt64, UInt64), mask: Int) -> Int {
        var h = words.0 &* 0x9E37_79B9_7F4A_7C15 ^ words.1
        h ^= h >> 32
        h &*= 0xD6E8_FEB8_6659_FD93
        h ^= h >> 32
        return Int(truncatingIfNeeded: h) & mask
    }
}

/// Why an index was not used.
enum StoreIndexError: Error, Equatable {
    /// Not an index of this format: wrong magic or version, a header that fails its hash.
    case foreign
    /// Made from other bytes than the store file holds now.
    case stale
    /// Cut short, failing its hash, or with a part out of bounds.
    case damaged(String)
    /// The file could not be read.
    case unreadable
}

extension StoreIndex {
    /// The parts of an index's bytes, found and bounds-checked before anything is read from
    /// them: a damaged index is refused here, never read out of bounds later. The pointers are
    /// into the index's storage and live as long as it.
    struct Columns {
        let header: Header
        /// Where the store file's change-log array lies (nil: no change-log section).
        let changeLog: Range<Int>?
        /// A store file of the catalog: everything but the shifts and the change log.
        let catalog: UnsafeRawBufferPointer
        /// The people's and the shift types' ids, as order words.
        let people: [(UInt64, UInt64)]
        let typeTable: [(UInt64, UInt64)]
        /// Two order words per row.
        let idWords: UnsafeBufferPointer<UInt64>
        let dates: UnsafeBufferPointer<Int32>
        /// Positions in `typeTable` and `people` (`noPerson` for none).
        let types: UnsafeBufferPointer<UInt32>
        let persons: UnsafeBufferPointer<UInt32>
        let byID: UnsafeBufferPointer<UInt32>
        /// Rows by id, open addressing with linear probing: row + 1, 0 for an empty slot.
        let idTable: UnsafeBufferPointer<UInt32>
        let byPerson: UnsafeBufferPointer<UInt32>
        let personStarts: UnsafeBufferPointer<UInt32>
        let typeCounts: UnsafeBufferPointer<UInt32>
        /// The ids (two order words each), dates and types of `byPerson`'s rows, in its order.
        let personIDWords: UnsafeBufferPointer<UInt64>
        let personDates: UnsafeBufferPointer<Int32>
        let personTypes: UnsafeBufferPointer<UInt32>
        let extraRows: UnsafeBufferPointer<UInt32>
        let extraOffsets: UnsafeBufferPointer<UInt64>
        let extraBytes: UnsafeRawBufferPointer

        init(_ bytes: UnsafeRawBufferPointer) throws(StoreIndexError) {
            guard let header = Header(bytes) else { throw .foreign }
            guard bytes.count - StoreIndex.headerSize == header.bodySize else { throw .damaged("\(bytes.count) bytes, the header says \(StoreIndex.headerSize + header.bodySize)") }
            let body = UnsafeRawBufferPointer(rebasing: bytes[StoreIndex.headerSize...])
            guard ContentHash.of(body) == header.bodyHash else { throw .damaged("the body fails its hash") }
            self.header = header
            var cursor = ByteCursor(body)
            let counts = try cursor.array(UInt64.self, 10)
            guard counts[0..<8].allSatisfy({ $0 <= UInt64(body.count) }) else { throw .damaged("a count beyond the file") }
            let (n, p, t, e, a, c, x) = (Int(counts[0]), Int(counts[1]), Int(counts[2]), Int(counts[3]), Int(counts[4]), Int(counts[5]), Int(counts[6]))
            let h = Int(counts[7])
            if counts[8] == UInt64.max, counts[9] == UInt64.max {
                changeLog = nil
            } else {
                guard counts[8] <= counts[9], counts[9] <= UInt64(header.storeSize) else { throw .damaged("the change log lies outside the store") }
                changeLog = Int(counts[8])..<Int(counts[9])
            }
            catalog = try cursor.bytes(c)
            let peopleWords = try cursor.array(UInt64.self, 2 * p)
            people = (0..<p).map { (peopleWords[2 * $0], peopleWords[2 * $0 + 1]) }
            let typeWords = try cursor.array(UInt64.self, 2 * t)
            typeTable = (0..<t).map { (typeWords[2 * $0], typeWords[2 * $0 + 1]) }
            idWords = try cursor.array(UInt64.self, 2 * n)
            dates = try cursor.array(Int32.self, n)
            types = try cursor.array(UInt32.self, n)
            persons = try cursor.array(UInt32.self, n)
            byID = try cursor.array(UInt32.self, n)
            idTable = try cursor.array(UInt32.self, h)
            byPerson = try cursor.array(UInt32.self, a)
            personStarts = try cursor.array(UInt32.self, p + 1)
            typeCounts = try cursor.array(UInt32.self, t)
            personIDWords = try cursor.array(UInt64.self, 2 * a)
            personDates = try cursor.array(Int32.self, a)
            personTypes = try cursor.array(UInt32.self, a)
            extraRows = try cursor.array(UInt32.self, e)
            extraOffsets = try cursor.array(UInt64.self, e + 1)
            extraBytes = try cursor.bytes(x)
            guard cursor.atEnd else { throw .damaged("bytes after the last part") }
            try checkValues(rows: n, people: p, types: t)
        }

        /// Every position points inside its table and every order is in order, so lookups stay
        /// in bounds and binary searches find what is there.
        private func checkValues(rows: Int, people: Int, types: Int) throws(StoreIndexError) {
            var previous = (Int32.min, UInt64(0), UInt64(0))
            for row in 0..<rows {
                let key = (dates[row], idWords[2 * row], idWords[2 * row + 1])
                guard row == 0 || key > previous else { throw .damaged("rows out of order") }
                previous = key
                guard self.types[row] < UInt32(types) else { throw .damaged("a shift's type is out of range") }
                guard persons[row] == StoreIndex.noPerson || persons[row] < UInt32(people) else { throw .damaged("a shift's person is out of range") }
            }
            guard byID.allSatisfy({ $0 < UInt32(rows) }), byPerson.allSatisfy({ $0 < UInt32(rows) }) else { throw .damaged("an order names a row out of range") }
            // A power of two with a free slot (a probe always ends), naming rows that exist.
            guard idTable.count > rows, idTable.count & (idTable.count - 1) == 0, idTable.allSatisfy({ $0 <= UInt32(rows) }),
                  idTable.reduce(0, { $0 + ($1 == 0 ? 0 : 1) }) <= rows else { throw .damaged("the table of ids is out of shape") }
            guard personStarts.first == 0, personStarts.last == UInt32(byPerson.count),
                  zip(personStarts, personStarts.dropFirst()).allSatisfy({ $0 <= $1 }) else { throw .damaged("the people's runs are out of order") }
            guard typeCounts.reduce(0, { $0 + Int($1) }) == rows else { throw .damaged("the counts per type do not add up") }
            guard personTypes.allSatisfy({ $0 < UInt32(types) }) else { throw .damaged("a person's shift's type is out of range") }
            guard extraRows.allSatisfy({ $0 < UInt32(rows) }), zip(extraRows, extraRows.dropFirst()).allSatisfy({ $0 < $1 }),
                  extraOffsets.first == 0, extraOffsets.last == UInt64(extraBytes.count),
                  zip(extraOffsets, extraOffsets.dropFirst()).allSatisfy({ $0 <= $1 }) else { throw .damaged("the extras are out of order") }
        }
    }
}

/// Reads an index's parts in order, each from an 8-byte boundary, refusing one that does not fit.
struct ByteCursor {
    private let bytes: UnsafeRawBufferPointer
    private var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var atEnd: Bool { offset == bytes.count }

    mutating func bytes(_ count: Int) throws(StoreIndexError) -> UnsafeRawBufferPointer {
        let padded = (count + 7) & ~7
        guard count >= 0, padded <= bytes.count - offset else { throw .damaged("cut short") }
        defer { offset += padded }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)])
    }

    mutating func array<T>(_ type: T.Type, _ count: Int) throws(StoreIndexError) -> UnsafeBufferPointer<T> {
        let (size, overflow) = count.multipliedReportingOverflow(by: MemoryLayout<T>.stride)
        guard !overflow else { throw .damaged("a count beyond the file") }
        let part = try bytes(size)
        // The storage is 16-byte aligned and every part starts on an 8-byte boundary.
        return UnsafeBufferPointer(start: part.baseAddress.map { $0.assumingMemoryBound(to: T.self) }, count: count)
    }
}

/// Appends an index's parts, little-endian, each padded to 8 bytes.
struct ByteSink {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 64) { bytes.reserveCapacity(capacity) }

    mutating func append(contentsOf raw: some Sequence<UInt8>) { bytes.append(contentsOf: raw) }

    mutating func append<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// A part: the values, then zeros up to the next 8-byte boundary.
    mutating func part<T: FixedWidthInteger>(_ values: [T]) {
        values.withUnsafeBytes { raw in
            // Little-endian machines only (the file format is little-endian).
            bytes.append(contentsOf: raw)
        }
        pad()
    }

    mutating func part(bytes raw: [UInt8]) {
        bytes.append(contentsOf: raw)
        pad()
    }

    mutating func pad() {
        bytes.append(contentsOf: repeatElement(0, count: (8 - bytes.count % 8) % 8))
    }
}
