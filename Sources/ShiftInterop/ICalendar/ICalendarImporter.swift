import Foundation
import ShiftCore

/// Reads an iCalendar file into shifts of a schedule.
///
/// Each `VEVENT` becomes one shift. Its shift type is, in order:
/// 1. `X-SHIFTSCHEDULER-TYPE-ID` when the store has that type, else `X-SHIFTSCHEDULER-TYPE` by
///    symbol (our own exports);
/// 2. the first word of `SUMMARY` when it is a shift type's symbol (`N`, `N Night`, `N: night`;
///    exact, else ignoring case when unique);
/// 3. the shift type whose times equal the event's local start and end times in the store's zone
///    (an all-day event: the all-day type), when exactly one does.
///
/// An event none of these match is reported with its line; one report per event, and nothing is
/// imported. The shift's date is the local date the event starts on; its person is
/// `X-SHIFTSCHEDULER-PERSON-ID`, else `X-SHIFTSCHEDULER-PERSON` by name, else `defaultPerson`
/// (nil: an open shift). `UID` becomes the shift's `eventIdentifier`: an event whose UID (or
/// `X-SHIFTSCHEDULER-SHIFT-ID`) a shift already has updates that shift, so importing the same
/// calendar twice changes nothing. Cancelled events are skipped; recurring ones are refused.
public struct ICalendarImporter: Sendable {
    /// Who works the events that name no person (nil: they become open shifts).
    public var defaultPerson: PersonID?
    /// Ids for new shifts (random by default; tests pass fixed ones).
    public var makeID: @Sendable () -> ShiftID

    public init(defaultPerson: PersonID? = nil, makeID: @escaping @Sendable () -> ShiftID = { ShiftID(UUID.random()) }) {
        self.defaultPerson = defaultPerson
        self.makeID = makeID
    }

    /// What importing `text` into `schedule` would add and update.
    /// - Throws: `ImportFailure` with every problem found (malformed lines, unknown zones,
    ///   events that match no shift type, unknown people), each with its line.
    public func plan(_ text: String, into schedule: Schedule) throws(ImportFailure) -> ShiftImportPlan {
        let calendar = try ICalendarParser.parse(text)
        var context = Context(schedule: schedule, defaultPerson: defaultPerson, makeID: makeID)
        var shifts: [ScheduledShift] = []
        var problems: [ImportProblem] = []
        for event in calendar.children where event.name == "VEVENT" {
            do throws(ImportFailure) {
                if let shift = try context.shift(from: event) { shifts.append(shift) }
            } catch {
                problems += error.problems
            }
        }
        guard problems.isEmpty else { throw ImportFailure(problems) }
        return ShiftImportPlan(merging: shifts, into: schedule)
    }
}

/// A point in an event: a date (`VALUE=DATE`) or an instant.
enum EventTime: Equatable {
    case date(LocalDate)
    case instant(Int64)
}

extension ICalendarImporter {
    struct Context {
        let schedule: Schedule
        let defaultPerson: PersonID?
        let makeID: @Sendable () -> ShiftID
        let names: NameLookup
        var zones: [String: ZoneRules] = [:]
        var seenUIDs: [String: Int] = [:]
        var seenIDs: [ShiftID: Int] = [:]

        init(schedule: Schedule, defaultPerson: PersonID?, makeID: @escaping @Sendable () -> ShiftID) {
            self.schedule = schedule
            self.defaultPerson = defaultPerson
            self.makeID = makeID
            self.names = NameLookup(schedule: schedule)
            zones[schedule.zone.identifier] = schedule.zone
        }

        /// The shift an event stands for (nil for a cancelled event).
        mutating func shift(from event: Component) throws(ImportFailure) -> ScheduledShift? {
            let line = event.line
            if event.first("STATUS")?.value.uppercased() == "CANCELLED" { return nil }
            if event.first("RRULE") != nil || event.first("RDATE") != nil || event.first("RECURRENCE-ID") != nil {
                throw ImportFailure(line: line, "event '\(summary(event))' repeats (RRULE/RDATE/RECURRENCE-ID); recurring events are not supported, export them expanded")
            }
            guard let startLine = event.first("DTSTART") else { throw ImportFailure(line: line, "event '\(summary(event))' has no DTSTART") }
            let start = try time(startLine)
            let end = try endTime(of: event, start: start)
            let uid = event.first("UID").map { ICSText.unescape($0.value) }.flatMap { $0.isEmpty ? nil : $0 }
            if let uid {
                if let previous = seenUIDs[uid] { throw ImportFailure(line: line, "UID '\(uid)' is also the UID of the event on line \(previous)") }
                seenUIDs[uid] = line
            }

            let type = try shiftType(for: event, start: start, end: end)
            let date: LocalDate = switch start {
            case let .date(day): day
            case let .instant(seconds): schedule.zone.localDateTime(atUTC: seconds).date
            }
            let person = try person(for: event)
            let id = try shiftID(for: event, uid: uid)
            if let previous = seenIDs[id] { throw ImportFailure(line: line, "shift \(id) is also the event on line \(previous)") }
            seenIDs[id] = line

            let notes = event.first("DESCRIPTION").map { ICSText.unescape($0.value) }.flatMap { $0.isEmpty ? nil : $0 }
            var shift = schedule.shift(id) ?? ScheduledShift(id: id, shiftTypeID: type.id, date: date)
            shift.shiftTypeID = type.id
            shift.date = date
            shift.personID = person
            shift.notes = notes
            shift.eventIdentifier = uid ?? ScheduledShift.defaultEventIdentifier(for: id)
            return shift
        }

        // MARK: Times

        /// DTSTART or DTEND: `VALUE=DATE`, UTC (`…Z`), `TZID=` an IANA zone, or floating (the store's zone).
        mutating func time(_ property: ContentLine) throws(ImportFailure) -> EventTime {
            let value = property.value.trimmingCharacters(in: .whitespaces)
            let bytes = Array(value.utf8)
            func number(_ range: Range<Int>) -> Int? {
                guard range.upperBound <= bytes.count else { return nil }
                var result = 0
                for byte in bytes[range] {
                    guard (48...57).contains(byte) else { return nil }
                    result = result * 10 + Int(byte - 48)
                }
                return result
            }
            let bad = ImportFailure(line: property.line, "\(property.name): '\(value)' is not a date (YYYYMMDD) or date-time (YYYYMMDDTHHMMSS[Z])")
            guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8),
                  let date = LocalDate(year: year, month: month, day: day) else { throw bad }
            if bytes.count == 8 { return .date(date) }
            if property.parameters["VALUE"]?.uppercased() == "DATE" { throw bad }
            guard bytes.count == 15 || (bytes.count == 16 && bytes[15] == UInt8(ascii: "Z")), bytes[8] == UInt8(ascii: "T"),
                  let hour = number(9..<11), let minute = number(11..<13), let second = number(13..<15),
                  hour < 24, minute < 60, second < 61 else { throw bad }
            let minutes = hour * 60 + minute
            if bytes.count == 16 {
                return .instant(Int64(date.dayNumber) * 86_400 + Int64(minutes * 60 + second))
            }
            let zone = try zoneRules(property.parameters["TZID"], line: property.line)
            return .instant(zone.instant(of: date, minutes: minutes) + Int64(second))
        }

        mutating func zoneRules(_ tzid: String?, line: Int) throws(ImportFailure) -> ZoneRules {
            guard var identifier = tzid else { return schedule.zone }
            // Some writers prefix the zone with a slash (`/Europe/Berlin`), as RFC 5545 allows for global ids.
            if identifier.hasPrefix("/") { identifier.removeFirst() }
            if let known = zones[identifier] { return known }
            guard let rules = ZoneRules(identifier: identifier) else {
                throw ImportFailure(line: line, "TZID '\(identifier)' is not an IANA time zone (such as Europe/Berlin); export the calendar with IANA zones or in UTC")
            }
            zones[identifier] = rules
            return rules
        }

        /// DTEND, else DTSTART + DURATION, else the end of the day (dates) or the start (instants).
        mutating func endTime(of event: Component, start: EventTime) throws(ImportFailure) -> EventTime {
            if let end = event.first("DTEND") { return try time(end) }
            if let duration = event.first("DURATION") {
                guard let seconds = Self.duration(duration.value) else {
                    throw ImportFailure(line: duration.line, "DURATION: '\(duration.value)' is not a duration (such as PT8H or P1D)")
                }
                switch start {
                case let .date(day): return .date(day.adding(days: Int(seconds / 86_400)))
                case let .instant(instant): return .instant(instant + seconds)
                }
            }
            if case let .date(day) = start { return .date(day.adding(days: 1)) }
            return start
        }

        /// `P1D`, `PT8H30M`, `P1W`, `-PT15M` in seconds (days as 24 hours).
        static func duration(_ text: String) -> Int64? {
            var rest = Substring(text.trimmingCharacters(in: .whitespaces).uppercased())
            var sign: Int64 = 1
            if rest.first == "-" || rest.first == "+" { sign = rest.first == "-" ? -1 : 1; rest = rest.dropFirst() }
            guard rest.first == "P" else { return nil }
            rest = rest.dropFirst()
            var total: Int64 = 0
            var digits = ""
            var sawUnit = false
            for character in rest {
                if character.isASCII, character.isNumber { digits.append(character); continue }
                if character == "T" { guard digits.isEmpty else { return nil }; continue }
                guard let value = Int64(digits) else { return nil }
                let unit: Int64
                switch character {
                case "W": unit = 604_800
                case "D": unit = 86_400
                case "H": unit = 3600
                case "M": unit = 60
                case "S": unit = 1
                default: return nil
                }
                total += value * unit
                digits = ""
                sawUnit = true
            }
            return sawUnit && digits.isEmpty ? sign * total : nil
        }

        // MARK: Mapping

        func shiftType(for event: Component, start: EventTime, end: EventTime) throws(ImportFailure) -> ShiftType {
            if let id = event.first("X-SHIFTSCHEDULER-TYPE-ID").flatMap({ ShiftTypeID($0.value.trimmingCharacters(in: .whitespaces)) }),
               let type = schedule.shiftType(id) {
                return type
            }
            if let property = event.first("X-SHIFTSCHEDULER-TYPE") {
                let symbol = ICSText.unescape(property.value)
                guard let type = names.shiftType(symbol: symbol) else {
                    throw ImportFailure(line: property.line, "event '\(summary(event))': the store has no shift type '\(symbol)' (have: \(names.symbolList))")
                }
                return type
            }
            let title = summary(event)
            if let word = title.split(whereSeparator: { $0 == " " || $0 == "\t" }).first {
                let symbol = String(word).trimmingCharacters(in: CharacterSet(charactersIn: ":-,.;()[]"))
                if !symbol.isEmpty, let type = names.shiftType(symbol: symbol) { return type }
            }
            let matches = names.shiftTypes.filter { Self.times(of: $0.duration, match: start, end, zone: schedule.zone) }
            if matches.count == 1 { return matches[0] }
            let when = describe(start, end)
            if matches.count > 1 {
                throw ImportFailure(line: event.line, "event '\(title)' (\(when)) has the times of several shift types (\(matches.map(\.symbol).joined(separator: ", "))); start its SUMMARY with the symbol of one")
            }
            throw ImportFailure(line: event.line, "event '\(title)' (\(when)) matches no shift type: start its SUMMARY with a symbol (\(names.symbolList)) or add a shift type with these times")
        }

        /// Whether an event's local start and end are a shift type's times on the start date.
        static func times(of duration: ShiftDuration, match start: EventTime, _ end: EventTime, zone: ZoneRules) -> Bool {
            switch (duration, start, end) {
            case let (.allDay, .date(first), .date(last)):
                return first.adding(days: 1) == last
            case let (.scheduled, .instant(from), .instant(to)):
                let local = zone.localDateTime(atUTC: from)
                let interval = InstantInterval(start: zone.instant(of: local.date, minutes: duration.minuteRange.start),
                                               end: zone.instant(of: local.date, minutes: duration.minuteRange.end))
                return interval.start == from && interval.end == to
            default:
                return false
            }
        }

        func person(for event: Component) throws(ImportFailure) -> PersonID? {
            if let id = event.first("X-SHIFTSCHEDULER-PERSON-ID").flatMap({ PersonID($0.value.trimmingCharacters(in: .whitespaces)) }),
               schedule.person(id) != nil {
                return id
            }
            if let property = event.first("X-SHIFTSCHEDULER-PERSON") {
                let name = ICSText.unescape(property.value)
                guard let person = names.person(named: name) else {
                    throw ImportFailure(line: property.line, "event '\(summary(event))': no person '\(name)' in the store (add them first: shiftctl person add)")
                }
                return person.id
            }
            return defaultPerson
        }

        /// `X-SHIFTSCHEDULER-SHIFT-ID`, else the shift that has the UID, else the id inside our
        /// own `<id>@shiftscheduler` UID, else a new id.
        func shiftID(for event: Component, uid: String?) throws(ImportFailure) -> ShiftID {
            if let property = event.first("X-SHIFTSCHEDULER-SHIFT-ID") {
                guard let id = ShiftID(property.value.trimmingCharacters(in: .whitespaces)) else {
                    throw ImportFailure(line: property.line, "X-SHIFTSCHEDULER-SHIFT-ID: '\(property.value)' is not a UUID")
                }
                return id
            }
            if let uid {
                if let existing = schedule.shift(eventIdentifier: uid) { return existing.id }
                if uid.hasSuffix("@shiftscheduler"), let id = ShiftID(uid.dropLast(15)) { return id }
            }
            return makeID()
        }

        func summary(_ event: Component) -> String {
            event.first("SUMMARY").map { ICSText.unescape($0.value) } ?? ""
        }

        func describe(_ start: EventTime, _ end: EventTime) -> String {
            switch (start, end) {
            case let (.date(first), .date(last)):
                return first.adding(days: 1) == last ? "\(first), all day" : "\(first) to \(last.adding(days: -1)), all day"
            case let (.instant(from), .instant(to)):
                let a = schedule.zone.localDateTime(atUTC: from)
                let b = schedule.zone.localDateTime(atUTC: to)
                return "\(a.date) \(clock(a.minute))-" + (a.date == b.date ? clock(b.minute) : "\(b.date) \(clock(b.minute))")
            default:
                return "mixed date and time"
            }
        }

        func clock(_ minute: Int) -> String { ICSText.pad(minute / 60, 2) + ":" + ICSText.pad(minute % 60, 2) }
    }
}
