import Foundation
import ShiftCore
@testable import ShiftInterop
import TestSupport
import Testing

@Suite struct ICalendarExportTests {
    let f = InteropFixture()
    /// 2026-01-02T03:04:05Z, for `DTSTAMP`: no two of its fields alike.
    static let stamp = Date(timeIntervalSince1970: 1_767_323_045)

    func export(_ schedule: Schedule, _ selection: ShiftSelection = ShiftSelection(), style: ICalendarExporter.TimeStyle = .zoned) -> String {
        ICalendarExporter(selection: selection, timeStyle: style, now: { Self.stamp }).export(schedule)
    }

    /// The unfolded content lines of an export.
    func contentLines(_ text: String) -> [String] {
        text.replacingOccurrences(of: "\r\n ", with: "").components(separatedBy: "\r\n").filter { !$0.isEmpty }
    }

    @Test func linesEndWithCRLFAndAreFoldedAt75OctetsWithoutSplittingCharacters() throws {
        let text = export(try f.schedule())
        #expect(text.hasSuffix("END:VCALENDAR\r\n"))
        let physical = text.split(separator: "\r\n", omittingEmptySubsequences: true)
        #expect(!text.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "no bare LF")
        #expect(!text.replacingOccurrences(of: "\r\n", with: "").contains("\r"), "no bare CR")
        for line in physical { #expect(line.utf8.count <= 75, "\(line) is \(line.utf8.count) octets") }
        #expect(physical.contains { $0.hasPrefix(" ") }, "the long notes are folded")
        // Every physical line is valid UTF-8 by itself: no character was cut in two.
        let bytes = Array(text.utf8)
        var start = 0
        for index in bytes.indices where index > 0 && bytes[index - 1] == 13 && bytes[index] == 10 {
            #expect(String(validating: bytes[start..<(index - 1)], as: UTF8.self) != nil)
            start = index + 1
        }
    }

    @Test func eachShiftIsOneEventWithItsStableUIDTimesAndTexts() throws {
        let lines = contentLines(export(try f.schedule()))
        #expect(lines.filter { $0 == "BEGIN:VEVENT" }.count == 6)
        #expect(lines.contains("UID:\(uuid(100).uuidString.lowercased())@shiftscheduler"))
        #expect(lines.contains("UID:imported-123@example.com"))
        #expect(lines.contains("DTSTAMP:20260102T030405Z"))
        #expect(lines.contains("DTSTART;TZID=Europe/Berlin:20260328T190000"))
        #expect(lines.contains("DTEND;TZID=Europe/Berlin:20260329T070000"))
        #expect(lines.contains("DTSTART;VALUE=DATE:20260330"))
        #expect(lines.contains("DTEND;VALUE=DATE:20260331"))
        #expect(lines.contains(#"SUMMARY:N Nacht\; "dunkel" (Zoë "Zo" Müller\, Jr.\; ß)"#))
        #expect(lines.contains(#"LOCATION:Station 3\; Nord\, "Süd"\, Hauptstraße 1\, Köln"#))
        #expect(lines.contains(#"DESCRIPTION:Übergabe um 06:45\, Station\; "bitte" pünktlich\nzweite Zeile"#))
        #expect(lines.contains("X-SHIFTSCHEDULER-TYPE-ID:\(f.night.id)"))
        #expect(lines.contains(#"X-SHIFTSCHEDULER-PERSON:Zoë "Zo" Müller\, Jr.\; ß"#))
        #expect(lines.contains("SUMMARY:D Früh\\, lang"), "an open shift names no person")
    }

    @Test func theTimeZoneHasTheRealBerlinTransitions() throws {
        let lines = contentLines(export(try f.schedule()))
        let begin = try #require(lines.firstIndex(of: "BEGIN:VTIMEZONE"))
        let end = try #require(lines.firstIndex(of: "END:VTIMEZONE"))
        let zone = Array(lines[begin...end])
        #expect(zone.contains("TZID:Europe/Berlin"))
        // 2026-03-29 01:00 UTC: 02:00 local jumps to 03:00; 2026-10-25 01:00 UTC: 03:00 back to 02:00.
        let spring = try #require(zone.firstIndex(of: "DTSTART:20260329T020000"))
        #expect(zone[spring - 1] == "BEGIN:DAYLIGHT")
        #expect(zone[spring + 1] == "TZOFFSETFROM:+0100")
        #expect(zone[spring + 2] == "TZOFFSETTO:+0200")
        let autumn = try #require(zone.firstIndex(of: "DTSTART:20261025T030000"))
        #expect(zone[autumn - 1] == "BEGIN:STANDARD")
        #expect(zone[autumn + 1] == "TZOFFSETFROM:+0200")
        #expect(zone[autumn + 2] == "TZOFFSETTO:+0100")
        #expect(lines.firstIndex(of: "BEGIN:VEVENT")! > end, "the zone comes before the events")
    }

    @Test func utcStyleWritesZuluTimesAndNoZone() throws {
        let lines = contentLines(export(try f.schedule(), style: .utc))
        #expect(!lines.contains("BEGIN:VTIMEZONE"))
        #expect(lines.contains("DTSTART:20260328T180000Z"))
        #expect(lines.contains("DTEND:20260329T050000Z"), "the DST night is 11 hours")
        #expect(lines.contains("DTSTART:20261024T170000Z"))
        #expect(lines.contains("DTEND:20261025T060000Z"), "the autumn night is 13 hours")
        #expect(lines.contains("DTSTART;VALUE=DATE:20260330"), "all-day stays a date")
        let utcStore = contentLines(export(try f.schedule(zone: "UTC")))
        #expect(!utcStore.contains("BEGIN:VTIMEZONE"))
        #expect(utcStore.contains("DTSTART:20260328T190000Z"))
    }

    @Test func selectionsFilterByPersonTypeAndRange() throws {
        let schedule = try f.schedule()
        func uids(_ selection: ShiftSelection) -> [String] {
            contentLines(export(schedule, selection)).filter { $0.hasPrefix("X-SHIFTSCHEDULER-SHIFT-ID:") }.map { String($0.dropFirst(26)) }
        }
        let ids = { (numbers: [Int]) in numbers.map { uuid($0).uuidString.lowercased() } }
        #expect(uids(ShiftSelection(people: [f.zoe.id])) == ids([100, 102, 105]))
        #expect(uids(ShiftSelection(people: [f.zoe.id, f.bob.id])) == ids([100, 101, 102, 105, 103]))
        #expect(uids(ShiftSelection(types: [f.night.id])) == ids([100, 103]))
        #expect(uids(ShiftSelection(from: date("2026-03-29"), to: date("2026-03-31"))) == ids([101, 102, 104]))
        #expect(uids(ShiftSelection(from: date("2026-03-29"), people: [f.bob.id], types: [f.night.id])) == ids([103]))
        let empty = contentLines(export(schedule, ShiftSelection(from: date("2030-01-01"))))
        #expect(empty == ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:\(ICalendarExporter.productID)", "CALSCALE:GREGORIAN",
                          "METHOD:PUBLISH", "X-WR-TIMEZONE:Europe/Berlin", "END:VCALENDAR"])
    }

    @Test(arguments: [
        ("plain", "plain"), ("a,b", "a\\,b"), ("a;b", "a\\;b"), ("back\\slash", "back\\\\slash"),
        ("two\nlines", "two\\nlines"), ("crlf\r\nend", "crlf\\nend"), ("\"quoted\" é ü ß", "\"quoted\" é ü ß"),
    ])
    func textIsEscapedAndUnescapedBack(_ raw: String, _ escaped: String) {
        #expect(ICSText.escape(raw) == escaped)
        #expect(ICSText.unescape(escaped) == raw.replacingOccurrences(of: "\r\n", with: "\n"))
    }
}

/// The exported file as a real client reads it: Python's `icalendar` package.
@Suite struct ICalendarClientInteropTests {
    let f = InteropFixture()

    @Test(.enabled(if: Environment.pythonWithICalendar != nil || Environment.isCI,
                   "needs a Python with the icalendar package (.venv-interop, made by .ci/run)"))
    func pythonICalendarReadsTheSameEventsTimesAndTexts() throws {
        guard let python = Environment.pythonWithICalendar else {
            Issue.record("CI=true but no Python with icalendar: run `python3 -m venv .venv-interop && .venv-interop/bin/pip install icalendar` (as .ci/run does)")
            return
        }
        let schedule = try f.schedule()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for style in ICalendarExporter.TimeStyle.allCases {
            let file = try folder.write(ICalendarExporter(timeStyle: style, now: { fixedNow }).export(schedule), to: "team-\(style).ics")
            let result = try runProgram(python, [repositoryRoot + "/scripts/check_ics.py", file])
            #expect(result.status == 0, "check_ics.py failed: \(result.stderr)")
            let parsed = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            let events = try #require(parsed?["events"] as? [[String: Any]])
            let shifts = schedule.shifts()
            #expect(events.count == shifts.count, "\(style): one event per shift")
            for (event, shift) in zip(events, shifts) {
                try expect(event, matches: shift, in: schedule, style: style)
            }
        }
    }

    private func expect(_ event: [String: Any], matches shift: ScheduledShift, in schedule: Schedule, style: ICalendarExporter.TimeStyle) throws {
        let type = try #require(schedule.shiftType(shift.shiftTypeID))
        let person = shift.personID.flatMap { schedule.person($0) }
        #expect(event["uid"] as? String == shift.eventIdentifier)
        #expect(event["summary"] as? String == ICalendarExporter.summary(type: type, person: person))
        #expect(event["location"] as? String == (type.locationID == nil ? nil : "Station 3; Nord, \"Süd\", Hauptstraße 1, Köln"))
        #expect(event["description"] as? String == shift.notes)
        #expect(event["typeID"] as? String == type.id.description)
        #expect(event["shiftID"] as? String == shift.id.description)
        // icalendar hands X- properties over raw (still escaped); our importer unescapes them.
        #expect(event["person"] as? String == person.map { ICSText.escape($0.displayName) })
        if type.duration == .allDay {
            #expect(event["allDay"] as? Bool == true)
            #expect(event["start"] as? String == shift.date.description)
            #expect(event["end"] as? String == shift.date.adding(days: 1).description)
        } else {
            let interval = try #require(schedule.interval(of: shift))
            #expect(event["start"] as? String == isoUTC(interval.start), "\(style) \(shift.date) \(type.symbol) start")
            #expect(event["end"] as? String == isoUTC(interval.end), "\(style) \(shift.date) \(type.symbol) end")
        }
        if shift.date == date("2026-03-28") {
            #expect(event["start"] as? String == "2026-03-28T18:00:00+00:00")
            #expect(event["end"] as? String == "2026-03-29T05:00:00+00:00", "the night across the spring change lasts 11 hours")
        }
    }

    private func isoUTC(_ seconds: Int64) -> String {
        let (date, second) = ICSText.split(seconds)
        return "\(date)T\(ICSText.pad(second / 3600, 2)):\(ICSText.pad(second / 60 % 60, 2)):\(ICSText.pad(second % 60, 2))+00:00"
    }
}
