import Foundation
import Synchronization

/// What happened to a scheduled shift.
public enum ChangeType: String, Codable, Hashable, Sendable, CaseIterable {
    /// A shift was scheduled.
    case created
    /// A shift was removed.
    case deleted
    /// A shift's type was switched (`shiftctl switch`).
    case switched
    /// A shift moved to another person (or was unassigned).
    case reassigned
    /// Anything else changed (date, notes, attributes).
    case updated
}

/// What a shift looked like at the time of a change, readable after its type, location or
/// person changes or disappears.
public struct ShiftSnapshot: Codable, Hashable, Sendable {
    public var shiftID: ShiftID
    public var shiftTypeID: ShiftTypeID
    public var symbol: String
    public var title: String
    public var duration: ShiftDuration
    public var date: LocalDate
    public var locationID: LocationID?
    public var locationName: String?
    public var personID: PersonID?
    public var personName: String?
    public var notes: String?

    public init(
        shiftID: ShiftID, shiftTypeID: ShiftTypeID, symbol: String, title: String, duration: ShiftDuration,
        date: LocalDate, locationID: LocationID? = nil, locationName: String? = nil,
        personID: PersonID? = nil, personName: String? = nil, notes: String? = nil
    ) {
        self.shiftID = shiftID
        self.shiftTypeID = shiftTypeID
        self.symbol = symbol
        self.title = title
        self.duration = duration
        self.date = date
        self.locationID = locationID
        self.locationName = locationName
        self.personID = personID
        self.personName = personName
        self.notes = notes
    }
}

/// The shifts one commit created, logged as one entry instead of one entry each: a bulk import
/// or rotation of a million shifts must not weigh more in the log than in the schedule.
///
/// A store that reads its log on demand may hand out an entry whose ids are read only when
/// asked for (`init(count:lastDate:load:)`): `log` shows "1000000 shifts" without reading a
/// million ids (16 MB on SQLite), and its JSON output still lists them.
public struct CreatedShifts: Hashable, Sendable {
    /// The shifts' ids, in the order the commit created them (read now if they were deferred;
    /// empty if that read fails, which `readShiftIDs()` throws instead).
    public var shiftIDs: [ShiftID] {
        get { (try? readShiftIDs()) ?? [] }
        set { storage = .ids(newValue) }
    }

    /// The shifts' ids; throws what reading deferred ids met (the JSON output of `log` uses it,
    /// so a failed read is an error, not an empty list).
    public func readShiftIDs() throws -> [ShiftID] {
        switch storage {
        case let .ids(ids): ids
        case let .deferred(_, ids): try ids.value()
        }
    }
    /// How many shifts the commit created (without reading deferred ids).
    public var count: Int {
        switch storage {
        case let .ids(ids): ids.count
        case let .deferred(count, _): count
        }
    }
    /// The latest of their dates (the entry's `scheduledShiftDate` is the earliest).
    public var lastDate: LocalDate
    private var storage: Storage

    private enum Storage: Sendable {
        case ids([ShiftID])
        case deferred(count: Int, DeferredIDs)
    }

    /// Ids read on first use (once, when the read succeeds).
    private final class DeferredIDs: Sendable {
        private let load: @Sendable () throws -> [ShiftID]
        private let read = Mutex<[ShiftID]?>(nil)
        init(_ load: @escaping @Sendable () throws -> [ShiftID]) { self.load = load }
        func value() throws -> [ShiftID] {
            try read.withLock { read in
                if let read { return read }
                let ids = try load()
                read = ids
                return ids
            }
        }
    }

    public init(shiftIDs: [ShiftID], lastDate: LocalDate) {
        storage = .ids(shiftIDs)
        self.lastDate = lastDate
    }

    /// `count` ids that `load` reads when they are first asked for (a store's log read on demand).
    public init(count: Int, lastDate: LocalDate, load: @escaping @Sendable () throws -> [ShiftID]) {
        storage = .deferred(count: count, DeferredIDs(load))
        self.lastDate = lastDate
    }

    public static func == (a: CreatedShifts, b: CreatedShifts) -> Bool {
        a.lastDate == b.lastDate && a.count == b.count && a.shiftIDs == b.shiftIDs
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(lastDate)
        hasher.combine(shiftIDs)
    }

    /// The ids as 16 bytes each, back to back (how the SQLite and PostgreSQL stores keep them).
    public var packedIDs: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(shiftIDs.count * 16)
        for id in shiftIDs { withUnsafeBytes(of: id.rawValue.uuid) { bytes.append(contentsOf: $0) } }
        return bytes
    }

    /// The ids of `packedIDs`; nil when the byte count is not a multiple of 16.
    public static func unpackIDs(_ bytes: some Collection<UInt8>) -> [ShiftID]? {
        guard bytes.count % 16 == 0 else { return nil }
        if let ids = bytes.withContiguousStorageIfAvailable({ unpackIDs(UnsafeRawBufferPointer($0)) }) { return ids }
        return Array(bytes).withUnsafeBytes { unpackIDs($0) }
    }

    /// The ids packed in `raw` (a multiple of 16 bytes), read in place: a bulk entry of a
    /// million shifts unpacks in a few milliseconds.
    public static func unpackIDs(_ raw: UnsafeRawBufferPointer) -> [ShiftID] {
        let count = raw.count / 16
        return [ShiftID](unsafeUninitializedCapacity: count) { ids, initialized in
            for index in 0..<count {
                let uuid = raw.loadUnaligned(fromByteOffset: index * 16, as: uuid_t.self)
                (ids.baseAddress! + index).initialize(to: ShiftID(UUID(uuid: uuid)))
            }
            initialized = count
        }
    }
}

extension CreatedShifts: Codable {
    private enum CodingKeys: String, CodingKey { case shiftIDs, lastDate }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(shiftIDs: try c.decode([ShiftID].self, forKey: .shiftIDs), lastDate: try c.decode(LocalDate.self, forKey: .lastDate))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(try readShiftIDs(), forKey: .shiftIDs)
        try c.encode(lastDate, forKey: .lastDate)
    }
}

/// One line of the change log: who changed which shift, when, from what to what, and why.
///
/// An entry is about one shift (with snapshots), or, for a commit that created at least
/// `ChangeLogEntry.batchThreshold` shifts, about all the shifts it created with one reason
/// (`createdShifts`, change type `created`, no snapshots: the shifts are in the schedule, and a
/// later change or removal logs what they were).
public struct ChangeLogEntry: Identifiable, Codable, Hashable, Sendable {
    /// A commit that creates at least this many shifts (with one reason) logs them as one entry.
    public static let batchThreshold = 100

    public var id: ChangeLogEntryID
    /// When the change was committed (whole milliseconds, so it survives a round trip).
    public var timestamp: Date
    public var userId: String
    public var userDisplayName: String
    public var changeType: ChangeType
    public var scheduledShiftDate: LocalDate
    public var oldShiftSnapshot: ShiftSnapshot?
    public var newShiftSnapshot: ShiftSnapshot?
    public var reason: String?
    /// For an entry about a batch: the shifts the commit created (nil for an entry about one shift).
    public var createdShifts: CreatedShifts?

    public init(
        id: ChangeLogEntryID, timestamp: Date, userId: String, userDisplayName: String, changeType: ChangeType,
        scheduledShiftDate: LocalDate, oldShiftSnapshot: ShiftSnapshot? = nil,
        newShiftSnapshot: ShiftSnapshot? = nil, reason: String? = nil, createdShifts: CreatedShifts? = nil
    ) {
        self.id = id
        self.timestamp = timestamp
        self.userId = userId
        self.userDisplayName = userDisplayName
        self.changeType = changeType
        self.scheduledShiftDate = scheduledShiftDate
        self.oldShiftSnapshot = oldShiftSnapshot
        self.newShiftSnapshot = newShiftSnapshot
        self.reason = reason
        self.createdShifts = createdShifts
    }

    /// How many shifts the entry is about.
    public var shiftCount: Int { createdShifts?.count ?? 1 }

    private enum CodingKeys: String, CodingKey {
        case id, timestamp, userId, userDisplayName, changeType, scheduledShiftDate
        case oldShiftSnapshot, newShiftSnapshot, reason, createdShifts
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(ChangeLogEntryID.self, forKey: .id)
        let stamp = try c.decode(String.self, forKey: .timestamp)
        guard let date = Timestamp.parse(stamp) else {
            throw DecodingError.dataCorruptedError(
                forKey: .timestamp, in: c, debugDescription: "'\(stamp)' is not a UTC timestamp (YYYY-MM-DDTHH:MM:SS.sssZ)")
        }
        timestamp = date
        userId = try c.decode(String.self, forKey: .userId)
        userDisplayName = try c.decode(String.self, forKey: .userDisplayName)
        changeType = try c.decode(ChangeType.self, forKey: .changeType)
        scheduledShiftDate = try c.decode(LocalDate.self, forKey: .scheduledShiftDate)
        oldShiftSnapshot = try c.decodeIfPresent(ShiftSnapshot.self, forKey: .oldShiftSnapshot)
        newShiftSnapshot = try c.decodeIfPresent(ShiftSnapshot.self, forKey: .newShiftSnapshot)
        reason = try c.decodeIfPresent(String.self, forKey: .reason)
        createdShifts = try c.decodeIfPresent(CreatedShifts.self, forKey: .createdShifts)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(Timestamp.format(timestamp), forKey: .timestamp)
        try c.encode(userId, forKey: .userId)
        try c.encode(userDisplayName, forKey: .userDisplayName)
        try c.encode(changeType, forKey: .changeType)
        try c.encode(scheduledShiftDate, forKey: .scheduledShiftDate)
        try c.encodeIfPresent(oldShiftSnapshot, forKey: .oldShiftSnapshot)
        try c.encodeIfPresent(newShiftSnapshot, forKey: .newShiftSnapshot)
        try c.encodeIfPresent(reason, forKey: .reason)
        try c.encodeIfPresent(createdShifts, forKey: .createdShifts)
    }
}

/// How long the change log keeps entries. Text form: `forever` or `<days>d` (`90d`).
public enum ChangeLogRetentionPolicy: Hashable, Sendable, CustomStringConvertible {
    case forever
    case days(Int)

    public init?(_ text: some StringProtocol) {
        let lower = text.lowercased()
        if lower == "forever" { self = .forever; return }
        var digits = Substring(lower)
        if digits.hasSuffix("d") { digits = digits.dropLast() }
        guard let days = Int(digits), days > 0 else { return nil }
        self = .days(days)
    }

    public var description: String {
        switch self {
        case .forever: "forever"
        case let .days(days): "\(days)d"
        }
    }

    /// Entries older than this instant are pruned; `nil` keeps everything.
    public func cutoff(now: Date) -> Date? {
        switch self {
        case .forever: nil
        case let .days(days): now.addingTimeInterval(-Double(days) * 86_400)
        }
    }
}

extension ChangeLogRetentionPolicy: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let policy = ChangeLogRetentionPolicy(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not a retention (forever or <days>d)")
        }
        self = policy
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// The acting user: whose name goes into the change log.
public struct UserProfile: Codable, Hashable, Sendable {
    public var userId: String
    public var displayName: String

    public init(userId: String, displayName: String) {
        self.userId = userId
        self.displayName = displayName
    }

    /// The user running this process (`$USER`, else `unknown`).
    public static var processUser: UserProfile {
        let name = ProcessInfo.processInfo.environment["USER"].flatMap { $0.isEmpty ? nil : $0 } ?? "unknown"
        return UserProfile(userId: name, displayName: name)
    }
}

/// UTC timestamps as `YYYY-MM-DDTHH:MM:SS.sssZ`, formatted and parsed without Foundation's
/// date formatters (slow, and not `Sendable` friendly).
public enum Timestamp {
    /// Rounds down to whole milliseconds, the precision the change log stores.
    public static func truncated(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
    }

    public static func format(_ date: Date) -> String {
        // Nearest, not down: a truncated instant times 1000 can land a hair below its integer.
        let totalMillis = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let millis = Int(((totalMillis % 1000) + 1000) % 1000)
        let seconds = (totalMillis - Int64(millis)) / 1000
        let days = Int32((seconds >= 0 ? seconds : seconds - 86_399) / 86_400)
        let secondOfDay = Int(seconds - Int64(days) * 86_400)
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(LocalDate(dayNumber: days))T\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):"
            + "\(pad(secondOfDay % 60, 2)).\(pad(millis, 3))Z"
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff]Z`.
    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z"), bytes[10] == UInt8(ascii: "T"),
              bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":") else { return nil }
        guard let date = bytes.withUnsafeBufferPointer({ LocalDate(isoBytes: UnsafeBufferPointer(rebasing: $0[0..<10])) }) else {
            return nil
        }
        /// The decimal number of the first `limit` digits in `range` (the rest must be digits
        /// too): a long fraction cannot overflow.
        func number(_ range: Range<Int>, limit: Int = 18) -> Int? {
            var value = 0
            for (count, index) in range.enumerated() {
                let digit = Int(bytes[index]) - 48
                guard (0...9).contains(digit) else { return nil }
                if count < limit { value = value * 10 + digit }
            }
            return value
        }
        guard let hour = number(11..<13), hour < 24, let minute = number(14..<16), minute < 60,
              let second = number(17..<19), second < 60 else { return nil }
        var millis = 0.0
        if bytes.count > 20 {
            // Any number of fraction digits; the first nine (nanoseconds) are read, as more
            // cannot change the millisecond kept and would overflow.
            let digits = bytes.count - 21
            guard bytes[19] == UInt8(ascii: "."), digits > 0, let fraction = number(20..<(bytes.count - 1), limit: 9) else { return nil }
            millis = Double(fraction) / pow(10, Double(min(digits, 9))) * 1000
        } else if bytes.count != 20 {
            return nil
        }
        let seconds = Int64(date.dayNumber) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return Date(timeIntervalSince1970: (Double(seconds) * 1000 + millis.rounded(.down)) / 1000)
    }
}
