import Foundation

/// Findings that say the same thing again and again, gathered so that a report for people lists
/// each once with a count: an import that breaks one rule for one person on every shift of a
/// week prints one row, not twenty (reports for programs keep every finding).
///
/// A finding joins the group before it of the same rule, severity and person (for findings about
/// no person: the same shift type) when it carries the same message once the dates in it are set
/// aside ("… on 2026-07-01" and "… on 2026-09-14" say the same thing), or falls in the same week
/// as the group's last finding, or on the day after it (a run of days across a week's end).
/// Findings without a date join only on the same message.
public struct FindingGroup<Item> {
    /// The findings, in the order they came.
    public var items: [Item]
    /// The first and last date among them (nil when none has a date).
    public var first: LocalDate?
    public var last: LocalDate?
    /// The first finding's message without its dates, made when a finding first needs it.
    var firstWithoutDates: String?

    public var count: Int { items.count }
}

public enum FindingGrouping {
    /// What findings must share to be grouped.
    public struct Key: Hashable, Sendable {
        public var rule: String
        public var severity: Violation.Severity
        public var person: String?
        /// Only for findings about no person (a day short of staff for one shift type).
        public var type: String?

        public init(rule: String, severity: Violation.Severity, person: String?, type: String?) {
            self.rule = rule
            self.severity = severity
            self.person = person
            self.type = person == nil ? type : nil
        }
    }

    /// Groups `items` (in date order), keeping the order of each group's first finding.
    public static func group<Item>(
        _ items: [Item], weekStart: Weekday, key: (Item) -> Key, date: (Item) -> LocalDate?, message: (Item) -> String
    ) -> [FindingGroup<Item>] {
        var groups: [FindingGroup<Item>] = []
        var open: [Key: Int] = [:]
        for item in items {
            let itemKey = key(item)
            let day = date(item)
            if let index = open[itemKey], joins(&groups[index], day: day, message: message(item), weekStart: weekStart, message) {
                groups[index].items.append(item)
                if let day {
                    groups[index].first = min(groups[index].first ?? day, day)
                    groups[index].last = max(groups[index].last ?? day, day)
                }
                continue
            }
            open[itemKey] = groups.count
            groups.append(FindingGroup(items: [item], first: day, last: day))
        }
        return groups
    }

    /// A message with each `YYYY-MM-DD` in it replaced by `…`.
    static func withoutDates(_ message: String) -> String {
        let bytes = Array(message.utf8)
        guard bytes.count >= 10 else { return message }
        func digit(_ i: Int) -> Bool { bytes[i] >= 0x30 && bytes[i] <= 0x39 }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if i + 10 <= bytes.count, digit(i), digit(i + 1), digit(i + 2), digit(i + 3), bytes[i + 4] == 0x2D,
               digit(i + 5), digit(i + 6), bytes[i + 7] == 0x2D, digit(i + 8), digit(i + 9) {
                out += Array("…".utf8)
                i += 10
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether a finding joins `group`: the dates first, as they are cheap, then the messages
    /// (the group's without its dates is kept for the next finding).
    private static func joins<Item>(
        _ group: inout FindingGroup<Item>, day: LocalDate?, message: String, weekStart: Weekday, _ messageOf: (Item) -> String
    ) -> Bool {
        if let day, let last = group.last,
           day.startOfWeek(weekStart: weekStart) == last.startOfWeek(weekStart: weekStart) || day <= last.adding(days: 1) { return true }
        let first = messageOf(group.items[0])
        if first == message { return true }
        if group.firstWithoutDates == nil { group.firstWithoutDates = withoutDates(first) }
        return group.firstWithoutDates == withoutDates(message)
    }
}
