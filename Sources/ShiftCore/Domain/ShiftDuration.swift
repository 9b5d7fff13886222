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
