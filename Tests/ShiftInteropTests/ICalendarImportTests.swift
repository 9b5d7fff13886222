import Foundation
import ShiftCore
@testable import ShiftInterop
import TestSupport
import Testing

@Suite struct ICalendarImportTests {
    let f = InteropFixture()

    func importer() -> ICalendarImporter {
        let next = Counter()
        return ICalendarImporter(makeID: { ShiftID(next.next()) })
    }

    /// A calendar around some events, CRLF-terminated.
    func calendar(_ events: String...) -> String {
        (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Other//EN"] + events + ["END:VCALENDAR"]).joined(separator: "\r\n") + "\r\n"
    }

    func failure(_ text: String, into schedule: Schedule) throws -> ImportFailure {
        do {
            _ = try importer().plan(text, into: schedule)
        } catch {
            return error
        }
        Issue.record("expected the import to fail")
        return ImportFailure([])
    }

    @Test(arguments: ICalendarExporter.TimeStyle.allCases)
    func ourOwnExportRoundTripsToTheSameShifts(_ style: ICalendarExporter.TimeStyle) throws {
        let source = try f.schedule()
        let text = ICalendarExporter(timeStyle: style, now: { fixedNow }).export(source)
        let empty = try f.emptySchedule()
        let plan = try importer().plan(text, into: empty)
        #expect(plan.added == source.shifts(), "same ids, types, dates, people, notes and UIDs")
        #expect(plan.updated.isEmpty)
        let (imported, _) = try empty.applying(try #require(plan.mutation))
        #expect(imported.shifts() == source.shifts())

        let again = try importer().plan(text, into: source)
        #expect(again.isEmpty, "importing into the schedule it came from changes nothing")
        #expect(again.unchanged == source.shiftCount)
    }

    @Test func aPersonsOwnCalendarRoundTripsIntoAStoreInAnotherZone() throws {
        let source = try f.schedule()
        let text = ICalendarExporter(selection: ShiftSelection(people: [f.zoe.id]), now: { fixedNow }).export(source)
        // The TZID says Europe/Berlin, so the instants are right whatever the target store's zone;
        // the date is the local start date in the target's zone.
        let plan = try importer().plan(text, into: try f.emptySchedule(zone: "Europe/Berlin"))
        #expect(plan.added.map(\.personID) == [f.zoe.id, f.zoe.id, f.zoe.id])
        #expect(plan.added.map(\.eventIdentifier).contains("imported-123@example.com"))
    }

    @Test func foreignEventsMapBySymbolThenByTimes() throws {
        let text = calendar(
            "BEGIN:VEVENT", "UID:a1@other", "DTSTART;TZID=Europe/Berlin:20260302T070000", "DTEND;TZID=Europe/Berlin:20260302T190000",
            "SUMMARY:Early duty", "END:VEVENT",
            "BEGIN:VEVENT", "UID:a2@other", "DTSTART:20260303T180000Z", "DURATION:PT12H", "SUMMARY:Something", "END:VEVENT",
            "BEGIN:VEVENT", "UID:a3@other", "DTSTART:20260304T100000Z", "DTEND:20260304T110000Z", "SUMMARY:n: late one",
            "DESCRIPTION:with\\, a note", "END:VEVENT",
            "BEGIN:VEVENT", "UID:a4@other", "DTSTART;VALUE=DATE:20260305", "SUMMARY:Paperwork", "END:VEVENT",
            "BEGIN:VEVENT", "UID:a5@other", "DTSTART:20260306T070000", "DTEND:20260306T190000", "SUMMARY:Floating day", "END:VEVENT",
            "BEGIN:VEVENT", "UID:a6@other", "STATUS:CANCELLED", "DTSTART:20260307T080000", "SUMMARY:gone", "END:VEVENT")
        let plan = try importer().plan(text, into: try f.emptySchedule())
        let summary = plan.added.map { "\($0.date) \(f.schedule(id: $0.shiftTypeID)) \($0.eventIdentifier)" }
        #expect(summary == [
            "2026-03-02 D a1@other",  // times equal D's 07:00-19:00
            "2026-03-03 N a2@other",  // 19:00 Berlin + 12 h
            "2026-03-04 N a3@other",  // SUMMARY starts with the symbol (case ignored): times do not matter
            "2026-03-05 O a4@other",  // an all-day event: the all-day type
            "2026-03-06 D a5@other",  // floating times are read in the store's zone
        ])
        #expect(plan.added[2].notes == "with, a note")
        #expect(plan.added.allSatisfy { $0.personID == nil }, "no person named: open shifts")
        let reimport = try importer().plan(text, into: try f.emptySchedule().applying(try #require(plan.mutation)).schedule)
        #expect(reimport.isEmpty, "the UIDs find the shifts again, nothing is duplicated")
    }

    @Test func unmatchedEventsAreEachReportedWithTheirLine() throws {
        let text = calendar(
            "BEGIN:VEVENT", "UID:b1@other", "DTSTART:20260302T090000Z", "DTEND:20260302T100000Z", "SUMMARY:Dentist", "END:VEVENT",
            "BEGIN:VEVENT", "UID:b2@other", "DTSTART;TZID=Europe/Berlin:20260302T070000", "DTEND;TZID=Europe/Berlin:20260302T190000",
            "SUMMARY:fine", "END:VEVENT",
            "BEGIN:VEVENT", "UID:b3@other", "DTSTART;VALUE=DATE:20260310", "DTEND;VALUE=DATE:20260313", "SUMMARY:Holiday", "END:VEVENT")
        let failure = try failure(text, into: try f.emptySchedule())
        #expect(failure.problems == [
            ImportProblem(line: 4, message: "event 'Dentist' (2026-03-02 10:00-11:00) matches no shift type: start its SUMMARY with a symbol (D, N, O) or add a shift type with these times"),
            ImportProblem(line: 16, message: "event 'Holiday' (2026-03-10 to 2026-03-12, all day) matches no shift type: start its SUMMARY with a symbol (D, N, O) or add a shift type with these times"),
        ])
    }

    @Test func unknownPeopleAndTypesInOurPropertiesAreReported() throws {
        let text = calendar(
            "BEGIN:VEVENT", "UID:c1@other", "DTSTART:20260302T060000Z", "DTEND:20260302T180000Z", "SUMMARY:D",
            "X-SHIFTSCHEDULER-PERSON:Zoë \"Zo\" Müller\\, Jr.\\; ß", "END:VEVENT",
            "BEGIN:VEVENT", "UID:c2@other", "DTSTART:20260302T060000Z", "DTEND:20260302T180000Z", "SUMMARY:D",
            "X-SHIFTSCHEDULER-PERSON:Nobody", "END:VEVENT",
            "BEGIN:VEVENT", "UID:c3@other", "DTSTART:20260302T060000Z", "DTEND:20260302T180000Z",
            "X-SHIFTSCHEDULER-TYPE:Q", "END:VEVENT")
        let failure = try failure(text, into: try f.emptySchedule())
        #expect(failure.problems.map(\.description) == [
            "line 16: event 'D': no person 'Nobody' in the store (add them first: shiftctl person add)",
            "line 22: event '': the store has no shift type 'Q' (have: D, N, O)",
        ])
    }

    @Test(arguments: [
        ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nDTSTART:20260230T070000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
         "line 4: DTSTART: '20260230T070000Z' is not a date (YYYYMMDD) or date-time (YYYYMMDDTHHMMSS[Z])"),
        ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nthis is not a property\r\nEND:VCALENDAR\r\n",
         "line 3: expected NAME:VALUE, found 'this is not a property'"),
        ("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nDTSTART:20260302T070000Z\r\nEND:VCALENDAR\r\n",
         "line 4: END:VCALENDAR closes BEGIN:VEVENT of line 2"),
        ("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nDTSTART:20260302T070000Z\r\nEND:VEVENT\r\n",
         "line 1: BEGIN:VCALENDAR is never closed (END:VCALENDAR missing)"),
        ("date,type,person\n2026-03-02,D,Bob\n", "line 1: expected NAME:VALUE, found 'date,type,person'"),
        ("", "not an iCalendar file: no BEGIN:VCALENDAR"),
        ("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\nDTSTART;TZID=Mars/Olympus:20260302T070000\r\nSUMMARY:D\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
         "line 4: TZID 'Mars/Olympus' is not an IANA time zone (such as Europe/Berlin); export the calendar with IANA zones or in UTC"),
        ("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\nDTSTART:20260302T070000Z\r\nRRULE:FREQ=DAILY\r\nSUMMARY:D\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
         "line 2: event 'D' repeats (RRULE/RDATE/RECURRENCE-ID); recurring events are not supported, export them expanded"),
        ("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\nSUMMARY:D\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
         "line 2: event 'D' has no DTSTART"),
    ])
    func malformedInputNamesTheLine(_ text: String, _ message: String) throws {
        let failure = try failure(text, into: try f.emptySchedule())
        #expect(failure.description == message)
    }

    @Test func foldedLinesAndLFOnlyFilesAreRead() throws {
        let text = "BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:folded@other\nDTSTART:20260302T060000Z\nDTEND:20260302T180000Z\nSUMMARY:D with a long\n  folded title\nDESCRIPTION:Zo\n ë\nEND:VEVENT\nEND:VCALENDAR\n"
        let plan = try importer().plan(text, into: try f.emptySchedule())
        #expect(plan.added.count == 1)
        #expect(plan.added.first?.notes == "Zoë")
        #expect(plan.added.first?.shiftTypeID == f.day.id)
    }
}

extension InteropFixture {
    /// The symbol of a type id, for compact expectations.
    func schedule(id: ShiftTypeID) -> String { [day, night, office].first { $0.id == id }?.symbol ?? "?" }
}
