import Foundation

/// A calendar date without a time or a time zone (`2026-03-29`).
///
/// Stored as the number of days since 1970-01-01, so comparing, hashing and adding days are
/// integer operations. Only real dates exist: `LocalDate(year: 2026, month: 2, day: 30)` is `nil`.
public struct LocalDate: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Days since 1970-01-01 (negative before it).
    public let dayNumber: Int32

    public static let minimum = LocalDate(unchecked: 1, 1, 1)
    public static let maximum = LocalDate(unchecked: 9999, 12, 31)

    public init(dayNumber: Int32) { self.dayNumber = dayNumber }

    /// A date from its parts; `nil` when the date does not exist or the year is outside 1…9999.
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month),
              day >= 1, day <= LocalDate.daysIn(month: month, year: year) else { return nil }
        self.init(unchecked: year, month, day)
    }

    /// Parses `YYYY-MM-DD` exactly (four-digit year, two-digit month and day), reading the
    /// string's own bytes.
    public init?(_ text: String) {
        var text = text
        guard let parsed = text.withUTF8({ LocalDate(isoBytes: $0) }) else { return nil }
        self = parsed
    }

    /// The same for any string type (a substring, say).
    public init?(_ text: some StringProtocol) {
        // Native strings lend their bytes (small ones from the stack): no array per parse.
        let parsed = text.utf8.withContiguousStorageIfAvailable { LocalDate(isoBytes: $0) }
            ?? Array(text.utf8).withUnsafeBufferPointer { LocalDate(isoBytes: $0) }
        guard let parsed else { return nil }
        self = parsed
    }

    /// Parses `YYYY-MM-DD` from exactly ten ASCII bytes.
    public init?(isoBytes b: UnsafeBufferPointer<UInt8>) {
        guard b.count == 10, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-") else { return nil }
        func digits(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let digit = Int(b[index]) - 48
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        guard let year = digits(0..<4), let month = digits(5..<7), let day = digits(8..<10) else { return nil }
        self.init(year: year, month: month, day: day)
    }

    private init(unchecked year: Int, _ month: Int, _ day: Int) {
        // Howard Hinnant's days_from_civil.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        dayNumber = Int32(era * 146_097 + doe - 719_468)
    }

    /// Year, month and day (Hinnant's civil_from_days).
    public var components: (year: Int, month: Int, day: Int) {
        let z = Int(dayNumber) + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    public var year: Int { components.year }
    public var month: Int { components.month }
    public var day: Int { components.day }

    /// The ISO weekday (1970-01-01 was a Thursday).
    public var weekday: Weekday {
        let index = ((Int(dayNumber) % 7) + 7 + 3) % 7 // 0 = Monday
        return Weekday(rawValue: index + 1)!
    }

    public func adding(days: Int) -> LocalDate { LocalDate(dayNumber: dayNumber + Int32(days)) }

    /// Whole days from `self` to `other` (positive when `other` is later).
    public func days(to other: LocalDate) -> Int { Int(other.dayNumber - dayNumber) }

    /// The first day of the week containing this date, for a week starting on `weekStart`.
    public func startOfWeek(weekStart: Weekday) -> LocalDate {
        let offset = (weekday.rawValue - weekStart.rawValue + 7) % 7
        return adding(days: -offset)
    }

    /// ISO 8601 week-numbering year and week (weeks start on Monday; week 1 holds the first Thursday).
    public var isoWeek: (year: Int, week: Int) {
        let thursday = adding(days: 4 - weekday.rawValue)
        let firstOfYear = LocalDate(unchecked: thursday.year, 1, 1)
        return (thursday.year, firstOfYear.days(to: thursday) / 7 + 1)
    }

    public var description: String {
        String(unsafeUninitializedCapacity: 10) { buffer in
            write(into: buffer.baseAddress!)
            return 10
        }
    }

    /// Writes the ten bytes of `YYYY-MM-DD` into `out`.
    public func write(into out: UnsafeMutablePointer<UInt8>) {
        let (year, month, day) = components
        out[0] = UInt8(48 + year / 1000 % 10)
        out[1] = UInt8(48 + year / 100 % 10)
        out[2] = UInt8(48 + year / 10 % 10)
        out[3] = UInt8(48 + year % 10)
        out[4] = UInt8(ascii: "-")
        out[5] = UInt8(48 + month / 10)
        out[6] = UInt8(48 + month % 10)
        out[7] = UInt8(ascii: "-")
        out[8] = UInt8(48 + day / 10)
        out[9] = UInt8(48 + day % 10)
    }

    public static func < (lhs: LocalDate, rhs: LocalDate) -> Bool { lhs.dayNumber < rhs.dayNumber }
    /// Stated so that `Strideable`'s generic `==` (by distance) is not the one used.
    public static func == (lhs: LocalDate, rhs: LocalDate) -> Bool { lhs.dayNumber == rhs.dayNumber }

    /// English month names, January first (`monthNames[date.month - 1]`).
    public static let monthNames = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                                    "October", "November", "December"]

    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

extension LocalDate: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let date = LocalDate(text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "'\(text)' is not a date (expected an existing YYYY-MM-DD)")
        }
        self = date
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension LocalDate: Strideable {
    public func distance(to other: LocalDate) -> Int { days(to: other) }
    public func advanced(by n: Int) -> LocalDate { adding(days: n) }
}

/// A day of the week, ISO-numbered (Monday = 1 … Sunday = 7).
public enum Weekday: Int, CaseIterable, Codable, Sendable, Comparable, CustomStringConvertible {
    case monday = 1, tuesday, wednesday, thursday, friday, saturday, sunday

    public var name: String {
        switch self {
        case .monday: "monday"
        case .tuesday: "tuesday"
        case .wednesday: "wednesday"
        case .thursday: "thursday"
        case .friday: "friday"
        case .saturday: "saturday"
        case .sunday: "sunday"
        }
    }

    public var description: String { name }

    /// Accepts full English names and three-letter abbreviations in any case (`Mon`, `monday`).
    public init?(name: some StringProtocol) {
        let lower = name.lowercased()
        guard let match = Weekday.allCases.first(where: { $0.name == lower || $0.name.prefix(3) == lower }) else {
            return nil
        }
        self = match
    }

    public static func < (lhs: Weekday, rhs: Weekday) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let day = Weekday(name: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not a weekday")
        }
        self = day
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}
