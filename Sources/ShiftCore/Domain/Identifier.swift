import Foundation

/// A typed identifier: a UUID tagged with the entity it names, so a `PersonID` can never be
/// passed where a `ShiftTypeID` is expected.
///
/// Identifiers print and encode as lowercase UUID strings (`4f1c…`), the form users see in
/// files and on the command line.
public struct Identifier<Entity>: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: UUID

    public init(_ rawValue: UUID) { self.rawValue = rawValue }

    /// Parses a UUID string (the 36-character form) in any letter case; `nil` when it is not a
    /// UUID. Reads the string's own bytes, without Foundation's parser.
    public init?(_ string: String) {
        var string = string
        guard let uuid = string.withUTF8({ UUID(asciiBytes: $0) }) else { return nil }
        self.rawValue = uuid
    }

    /// The same for any string type (a substring, say).
    public init?(_ string: some StringProtocol) {
        let parsed = string.utf8.withContiguousStorageIfAvailable { UUID(asciiBytes: $0) }
            ?? Array(string.utf8).withUnsafeBufferPointer { UUID(asciiBytes: $0) }
        guard let uuid = parsed else { return nil }
        self.rawValue = uuid
    }

    public var description: String { rawValue.lowercasedString }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue.isOrderedBefore(rhs.rawValue) }

    /// The id's 16 bytes as two 64-bit words in memory order: equal ids have equal words (a
    /// key for tables that hash ids cheaply).
    public var words: (UInt64, UInt64) { rawValue.words }

    /// The 16 bytes as two words: `UUID`'s own hashing feeds them through the byte-buffer path,
    /// several times slower, and ids are hashed on every lookup in the schedule's maps.
    public func hash(into hasher: inout Hasher) {
        let (high, low) = rawValue.words
        hasher.combine(high)
        hasher.combine(low)
    }
}

extension Identifier: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        guard let id = Identifier(string) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(string)' is not a UUID")
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

public typealias LocationID = Identifier<Location>
public typealias ShiftTypeID = Identifier<ShiftType>
public typealias PersonID = Identifier<Person>
public typealias ShiftID = Identifier<ScheduledShift>
public typealias DemandID = Identifier<Demand>
public typealias AvailabilityID = Identifier<Availability>
public typealias ChangeLogEntryID = Identifier<ChangeLogEntry>
public typealias RequestID = Identifier<Request>

extension UUID {
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// The canonical lowercase string (`xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`), built without
    /// Foundation's formatter because stores print millions of them.
    public var lowercasedString: String {
        String(unsafeUninitializedCapacity: 36) { buffer in
            writeLowercased(into: buffer.baseAddress!)
            return 36
        }
    }

    /// Writes the 36 lowercase characters of the UUID into `out`.
    public func writeLowercased(into out: UnsafeMutablePointer<UInt8>) {
        withUnsafeBytes(of: uuid) { bytes in
            var position = 0
            for index in 0..<16 {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    out[position] = UInt8(ascii: "-")
                    position += 1
                }
                let byte = bytes[index]
                out[position] = UUID.hexDigits[Int(byte >> 4)]
                out[position + 1] = UUID.hexDigits[Int(byte & 0x0F)]
                position += 2
            }
        }
    }

    /// Parses exactly 36 ASCII bytes of a UUID in either letter case.
    public init?(asciiBytes bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count == 36 else { return nil }
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let ok = withUnsafeMutableBytes(of: &raw) { out -> Bool in
            var position = 0
            for index in 0..<16 {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    guard bytes[position] == UInt8(ascii: "-") else { return false }
                    position += 1
                }
                guard let high = UUID.hexValue(bytes[position]), let low = UUID.hexValue(bytes[position + 1]) else {
                    return false
                }
                out[index] = high << 4 | low
                position += 2
            }
            return true
        }
        guard ok else { return nil }
        self.init(uuid: raw)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Byte-wise order, so sorted ids print in the same order as their strings: the 16 bytes
    /// compared as two big-endian 64-bit numbers (indexes compare ids at every step of a search).
    func isOrderedBefore(_ other: UUID) -> Bool {
        let (lhsHigh, lhsLow) = orderKey
        let (rhsHigh, rhsLow) = other.orderKey
        return lhsHigh != rhsHigh ? lhsHigh < rhsHigh : lhsLow < rhsLow
    }

    private var orderKey: (UInt64, UInt64) {
        let (high, low) = words
        return (UInt64(bigEndian: high), UInt64(bigEndian: low))
    }

    /// The 16 bytes as two 64-bit words in memory order.
    var words: (UInt64, UInt64) {
        withUnsafeBytes(of: uuid) { bytes in
            (bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        }
    }
}
