import Foundation
import ShiftCore

/// Writes shifts as an iCalendar file (RFC 5545) that calendar apps import or subscribe to.
///
/// One `VEVENT` per shift:
/// - `UID` is the shift's `eventIdentifier`, stable across exports, so a subscribed calendar
///   updates events instead of duplicating them.
/// - `DTSTART`/`DTEND` are local times with `TZID` = the store's zone and a `VTIMEZONE` built from
///   the zone's real transitions for the exported years (`.zoned`, the default), or UTC times
///   (`.utc`). All-day shift types are `VALUE=DATE` events.
/// - `SUMMARY` is `symbol title (person)`, `LOCATION` the location's name and address,
///   `DESCRIPTION` the shift's notes.
/// - `X-SHIFTSCHEDULER-SHIFT-ID`, `-TYPE-ID`, `-TYPE`, `-PERSON-ID` and `-PERSON` let an import
///   restore the shift exactly.
///
/// Lines end with CRLF and are folded at 75 octets; text is escaped.
public struct ICalendarExporter: Sendable {
    public enum TimeStyle: String, Sendable, CaseIterable {
        /// Local times with the store's `TZID` and a `VTIMEZONE`.
        case zoned
        /// UTC times (`…Z`), no `VTIMEZONE`.
        case utc
    }

    public var selection: ShiftSelection
    public var timeStyle: TimeStyle
    /// The clock for `DTSTAMP` (tests pass a fixed one).
    public var now: @Sendable () -> Date
    /// `X-WR-CALNAME`, the name calendar apps show for a subscription.
    public var calendarName: String?

    public static let productID = "-//ShiftScheduler//shiftctl//EN"

    public init(selection: ShiftSelection = ShiftSelection(), timeStyle: TimeStyle = .zoned,
                calendarName: String? = nil, now: @escaping @Sendable () -> Date = { Date() }) {
        self.selection = selection
        self.timeStyle = timeStyle
        self.calendarName = calendarName
        self.now = now
    }

    /// The calendar for the selected shifts of a schedule.
    public func export(_ schedule: Schedule) -> String {
        let shifts = selection.shifts(in: schedule)
        let zoned = timeStyle == .zoned && schedule.zone.identifier != "UTC"
        var out = ""
        func line(_ text: String) { ICSText.fold(text, into: &out) }

        line("BEGIN:VCALENDAR")
        line("VERSION:2.0")
        line("PRODID:" + Self.productID)
        line("CALSCALE:GREGORIAN")
        line("METHOD:PUBLISH")
        if let calendarName { line("X-WR-CALNAME:" + ICSText.escape(calendarName)) }
        if zoned {
            line("X-WR-TIMEZONE:" + schedule.zone.identifier)
            let intervals = shifts.compactMap { schedule.interval(of: $0) }
            if let first = intervals.map(\.start).min(), let last = intervals.map(\.end).max() {
                for text in VTimeZoneBuilder(zone: schedule.zone).lines(from: first, to: last) { line(text) }
            }
        }
        let stamp = ICSText.utc(Int64(now().timeIntervalSince1970.rounded(.down)))
        for shift in shifts {
            guard let type = schedule.shiftType(shift.shiftTypeID) else { continue }
            for text in event(shift, type: type, in: schedule, zoned: zoned, stamp: stamp) { line(text) }
        }
        line("END:VCALENDAR")
        return out
    }

    /// The content lines of one shift's event (unfolded).
    func event(_ shift: ScheduledShift, type: ShiftType, in schedule: Schedule, zoned: Bool, stamp: String) -> [String] {
        let person = shift.personID.flatMap { schedule.person($0) }
        let location = type.locationID.flatMap { schedule.location($0) }
        var lines = ["BEGIN:VEVENT", "UID:" + ICSText.escape(shift.eventIdentifier), "DTSTAMP:" + stamp]
        switch type.duration {
        case .allDay:
            lines.append("DTSTART;VALUE=DATE:" + ICSText.date(shift.date))
            lines.append("DTEND;VALUE=DATE:" + ICSText.date(shift.date.adding(days: 1)))
        case .scheduled:
            let interval = schedule.interval(of: type.duration, on: shift.date)
            lines.append("DTSTART" + time(interval.start, zone: schedule.zone, zoned: zoned))
            lines.append("DTEND" + time(interval.end, zone: schedule.zone, zoned: zoned))
        }
        lines.append("SUMMARY:" + ICSText.escape(Self.summary(type: type, person: person)))
        if let location {
            let place = location.address.isEmpty ? location.name : location.name + ", " + location.address
            lines.append("LOCATION:" + ICSText.escape(place))
        }
        if let notes = shift.notes, !notes.isEmpty { lines.append("DESCRIPTION:" + ICSText.escape(notes)) }
        lines.append("CATEGORIES:" + ICSText.escape(type.symbol))
        lines.append("TRANSP:OPAQUE")
        lines.append("X-SHIFTSCHEDULER-SHIFT-ID:" + shift.id.description)
        lines.append("X-SHIFTSCHEDULER-TYPE-ID:" + type.id.description)
        lines.append("X-SHIFTSCHEDULER-TYPE:" + ICSText.escape(type.symbol))
        if let person {
            lines.append("X-SHIFTSCHEDULER-PERSON-ID:" + person.id.description)
            lines.append("X-SHIFTSCHEDULER-PERSON:" + ICSText.escape(person.displayName))
        }
        lines.append("END:VEVENT")
        return lines
    }

    /// `N Night (Zoë)`: the symbol first, so a foreign import maps it back by symbol.
    static func summary(type: ShiftType, person: Person?) -> String {
        var text = type.symbol
        if !type.title.isEmpty, type.title != type.symbol { text += " " + type.title }
        if let person { text += " (" + person.displayName + ")" }
        return text
    }

    /// `;TZID=Europe/Berlin:20260328T190000` or `:20260328T180000Z`.
    private func time(_ instant: Int64, zone: ZoneRules, zoned: Bool) -> String {
        guard zoned else { return ":" + ICSText.utc(instant) }
        let (date, minute) = zone.localDateTime(atUTC: instant)
        return ";TZID=" + zone.identifier + ":" + ICSText.local(date, second: minute * 60)
    }
}

/// A `VTIMEZONE` for an IANA zone, built from its actual offset changes around the exported
/// instants (one observance per change, no recurrence rules), so every client reads the same
/// offsets the store computed with.
struct VTimeZoneBuilder {
    let zone: ZoneRules

    func lines(from first: Int64, to last: Int64) -> [String] {
        // From a year before the first event to a year after the last, so the observance in force
        // at the first event is included.
        let start = first - 366 * 86_400
        let end = last + 366 * 86_400
        let changes = transitions(from: start, to: end)
        var lines = ["BEGIN:VTIMEZONE", "TZID:" + zone.identifier]
        let initial = zone.offset(atUTC: start)
        let standardOffset = ([initial] + changes.map(\.to)).min() ?? initial
        lines += observance(at: start, from: initial, to: initial, daylight: initial > standardOffset)
        for change in changes {
            lines += observance(at: change.at, from: change.from, to: change.to, daylight: change.to > standardOffset)
        }
        lines.append("END:VTIMEZONE")
        return lines
    }

    private func observance(at instant: Int64, from: Int, to: Int, daylight: Bool) -> [String] {
        let kind = daylight ? "DAYLIGHT" : "STANDARD"
        let (date, second) = ICSText.split(instant + Int64(from))
        var lines = ["BEGIN:" + kind, "DTSTART:" + ICSText.local(date, second: second),
                     "TZOFFSETFROM:" + ICSText.offset(from), "TZOFFSETTO:" + ICSText.offset(to)]
        if let name = TimeZone(identifier: zone.identifier)?.abbreviation(for: Date(timeIntervalSince1970: Double(instant))),
           !name.hasPrefix("GMT") {
            lines.append("TZNAME:" + ICSText.escape(name))
        }
        lines.append("END:" + kind)
        return lines
    }

    /// Offset changes in `[start, end]`: found day by day, then to the second by bisection.
    private func transitions(from start: Int64, to end: Int64) -> [(at: Int64, from: Int, to: Int)] {
        var result: [(at: Int64, from: Int, to: Int)] = []
        var cursor = start
        var offset = zone.offset(atUTC: cursor)
        while cursor < end {
            let next = min(cursor + 86_400, end)
            let nextOffset = zone.offset(atUTC: next)
            if nextOffset != offset {
                var low = cursor // offset applies
                var high = next // nextOffset applies
                while high - low > 1 {
                    let mid = low + (high - low) / 2
                    if zone.offset(atUTC: mid) == offset { low = mid } else { high = mid }
                }
                result.append((high, offset, nextOffset))
                offset = nextOffset
            }
            cursor = next
        }
        return result
    }
}
