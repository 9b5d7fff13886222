import Foundation
import ShiftCore

/// Turns command-line text into domain values, with errors that name the option and the
/// expected form.
public enum InputParsing {
    /// `YYYY-MM-DD`, or `today` / `tomorrow` / `yesterday` in the store's time zone.
    public static func date(_ text: String, option: String, zone: ZoneRules? = nil, now: Date = Date()) throws -> LocalDate {
        let lower = text.lowercased()
        if ["today", "tomorrow", "yesterday"].contains(lower) {
            let today = (zone ?? .utc).localDateTime(at: now).date
            return today.adding(days: lower == "today" ? 0 : lower == "tomorrow" ? 1 : -1)
        }
        guard let date = LocalDate(text) else {
            throw AppError.invalidValue(option: option, message: "'\(text)' is not a date (YYYY-MM-DD)")
        }
        return date
    }

    public static func optionalDate(_ text: String?, option: String, zone: ZoneRules? = nil, now: Date = Date()) throws -> LocalDate? {
        try text.map { try date($0, option: option, zone: zone, now: now) }
    }

    /// `mon`, `Monday`, …
    public static func weekday(_ text: String, option: String) throws -> Weekday {
        guard let day = Weekday(name: text) else {
            throw AppError.invalidValue(option: option, message: "'\(text)' is not a weekday (monday … sunday, or mon … sun)")
        }
        return day
    }

    /// `07:00-19:00` (ends the next day when the end is not after the start).
    public static func timeRange(_ text: String, option: String) throws -> ShiftDuration {
        guard let duration = ShiftDuration(text), case .scheduled = duration else {
            throw AppError.invalidValue(option: option, message: "'\(text)' is not a time range (HH:MM-HH:MM, e.g. 07:00-19:00)")
        }
        return duration
    }

    /// `--time RANGE` or `--all-day` (exactly one unless `required` is false).
    public static func duration(time: String?, allDay: Bool, required: Bool) throws -> ShiftDuration? {
        switch (time, allDay) {
        case (nil, false):
            if required { throw AppError.invalidValue(option: "--time", message: "a shift type needs --time HH:MM-HH:MM or --all-day") }
            return nil
        case (_?, true):
            throw AppError.invalidValue(option: "--time", message: "give either --time or --all-day, not both")
        case let (time?, false):
            return try timeRange(time, option: "--time")
        case (nil, true):
            return .allDay
        }
    }

    /// `key=value` pairs; values are read as bool, number, `[a, b]` list or text.
    public static func attributes(_ pairs: [String], option: String = "--attr") throws -> Attributes {
        var result: Attributes = [:]
        for pair in pairs {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw AppError.invalidValue(option: option, message: "'\(pair)' is not key=value (e.g. --attr skills=[nurse, lead])")
            }
            result[String(pair[..<equals]).trimmingCharacters(in: .whitespaces)] = attributeValue(String(pair[pair.index(after: equals)...]))
        }
        return result
    }

    /// An attribute value from command-line text (`true`, `38.5`, `[nurse, lead]`, text).
    static func attributeValue(_ text: String) -> AttributeValue { AttributeValue(parsing: text) }

    /// A retention such as `90d` or `forever`.
    public static func retention(_ text: String, option: String) throws -> ChangeLogRetentionPolicy {
        guard let policy = ChangeLogRetentionPolicy(text) else {
            throw AppError.invalidValue(option: option, message: "'\(text)' is not an age (a number of days such as 90d)")
        }
        return policy
    }

    /// A count that must be positive (or zero when `allowZero`).
    public static func count(_ value: Int, option: String, allowZero: Bool = false) throws -> Int {
        guard value > 0 || (allowZero && value == 0) else {
            throw AppError.invalidValue(option: option, message: "\(value) must be \(allowZero ? "0 or more" : "at least 1")")
        }
        return value
    }

    /// Folds `--from` / `--to` into a checked range.
    public static func range(from: LocalDate?, to: LocalDate?) throws {
        if let from, let to, to < from {
            throw AppError.invalidValue(option: "--to", message: "\(to) is before --from \(from)")
        }
    }
}
