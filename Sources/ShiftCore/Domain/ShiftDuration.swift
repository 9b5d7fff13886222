import Foundation

/// A wall-clock time of day, `00:00` … `23:59`.
public struct HourMinuteTime: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let hour: Int
    public let minute: Int

    /// `nil` unless `0 ≤ hour ≤ 23` and `0 ≤ minute ≤ 59` (so `24:00` is not a time).
    public init?(hour: Int, minute: Int) {
        guard (0...23).contains(hour), (0...59).contains(minute) else { return nil }
        self.hour = hour
        self.minute = minute
    }

    /// Parses `H:MM` or `HH:MM`.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let hour = Int(parts[0]), let minute = Int(parts[1]) else { return nil }
        self.init(hour: hour, minute: minute)
    }

    public var minutesSinceMidnight: Int { hour * 60 + minute }

    public var description: String {
        (hour < 10 ? "0" : "") + String(hour) + ":" + (minute < 10 ? "0" : "") + String(minute)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.minutesSinceMidnight < rhs.minutesSinceMidnight }
}

extension HourMinuteTime: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let time = HourMinuteTime(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not a time (HH:MM, 00:00…23:59)")
        }
        self = time
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// When a shift type runs on its date: all day, or from one time to another.
///
/// `to <= from` means the shift ends on the next day (a night shift `22:00-06:00`); `from == to`
/// is a 24-hour shift. The text form is `all-day` or `HH:MM-HH:MM`.
public enum ShiftDuration: Hashable, Sendable, CustomStringConvertible {
    case allDay
    case scheduled(from: HourMinuteTime, to: HourMinuteTime)

    /// Parses `all-day` or a range such as `06:00-14:00` (an en dash or ` to ` also separate).
    public init?(_ text: some StringProtocol) {
        // The form stores write (`HH:MM-HH:MM`, `all-day`) is read from its bytes: a change log
        // holds one in every entry, and the general parse below cost half of reading one.
        if let canonical = Self.canonical(text.utf8) {
            self = canonical
            return
        }
        self.init(parsing: text)
    }

    /// The general parse: spaces around, `allday`, `all day`, any case, an en dash, ` to `, `H:MM`.
    init?(parsing text: some StringProtocol) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if ["all-day", "allday", "all day"].contains(trimmed.lowercased()) {
            self = .allDay
            return
        }
        let normalized = trimmed.replacingOccurrences(of: "–", with: "-").replacingOccurrences(of: " to ", with: "-")
        let parts = normalized.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2,
              let from = HourMinuteTime(parts[0].trimmingCharacters(in: .whitespaces)),
              let to = HourMinuteTime(parts[1].trimmingCharacters(in: .whitespaces)) else { return nil }
        self = .scheduled(from: from, to: to)
    }

    /// `HH:MM-HH:MM` or `all-day` exactly as `description` writes them, else nil (the general
    /// parse then decides).
    static func canonical(_ utf8: some Collection<UInt8>) -> ShiftDuration? {
        let count = utf8.count
        guard count == 11 || count == 7 else { return nil }
        func parse(_ b: UnsafeBufferPointer<UInt8>) -> ShiftDuration? {
            if b.count == 7 { return b.elementsEqual("all-day".utf8) ? .allDay : nil }
            guard b[2] == UInt8(ascii: ":"), b[5] == UInt8(ascii: "-"), b[8] == UInt8(ascii: ":") else { return nil }
            func digits(_ i: Int) -> Int? {
                let (x, y) = (b[i] &- 48, b[i + 1] &- 48)
                return x < 10 && y < 10 ? Int(x) * 10 + Int(y) : nil
            }
            guard let h1 = digits(0), let m1 = digits(3), let h2 = digits(6), let m2 = digits(9),
                  let from = HourMinuteTime(hour: h1, minute: m1), let to = HourMinuteTime(hour: h2, minute: m2) else { return nil }
            return .scheduled(from: from, to: to)
        }
        if let parsed = utf8.withContiguousStorageIfAvailable(parse) { return parsed }
        return Array(utf8).withUnsafeBufferPointer(parse)
    }

    /// True when the shift ends on the day after its date.
    public var isOvernight: Bool {
        if case let .scheduled(from, to) = self { return to <= from }
        return false
    }

    /// Minutes from the start of the shift's date to its start, and to its end (end may pass 1440).
    public var minuteRange: (start: Int, end: Int) {
        switch self {
        case .allDay:
            return (0, 1440)
        case let .scheduled(from, to):
            let start = from.minutesSinceMidnight
            let end = to.minutesSinceMidnight
            return (start, end <= start ? end + 1440 : end)
        }
    }

    /// Nominal length in minutes, ignoring daylight saving changes.
    public var nominalMinutes: Int { minuteRange.end - minuteRange.start }

    public var description: String {
        switch self {
        case .allDay: "all-day"
        case let .scheduled(from, to): "\(from)-\(to)"
        }
    }
}

extension ShiftDuration: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let duration = ShiftDuration(text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "'\(text)' is not a duration (all-day or HH:MM-HH:MM)")
        }
        self = duration
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
