import Foundation
import ShiftCore
@testable import ShiftInterop
import TestSupport
import Testing

@Suite struct CSVTests {
    let f = InteropFixture()

    /// The import's own trim gives what Foundation's `trimmingCharacters(in: .whitespaces)` gives
    /// (the plain path), on fields with spaces, tabs, Unicode space separators and line breaks
    /// (kept) around and inside them.
    @Test func fieldsAreTrimmedAsFoundationTrimsThem() {
        let pieces = [" ", "\t", "\u{00A0}", "\u{3000}", "\u{2009}", "\n", "\r\n", "a", "Bob", "é", "😀", ",", "\u{200B}", ""]
        var generator = SplitMix64(seed: 7)
        for _ in 0..<2_000 {
            let field = (0..<Int.random(in: 0...6, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            #expect(CSV.trimmed(field) == field.trimmingCharacters(in: .whitespaces), "\(field.debugDescription)")
        }
    }

    @Test func exportHasTheDocumentedHeaderAndOneQuotedRowPerShift() throws {
        let text = ShiftCSV.export(try f.schedule(), selection: ShiftSelection(to: date("2026-03-29")))
        let rows = [
            "date,type,person,notes,location,id",
            #"2026-03-28,N,"Zoë ""Zo"" Müller, Jr.; ß","Übergabe um 06:45, Station; ""bitte"" pünktlich"# + "\n"
                + #"zweite Zeile","Station 3; Nord, ""Süd""",\#(uuid(100).uuidString.lowercased())"#,
            #"2026-03-29,D,Bob,,"Station 3; Nord, ""Süd""",\#(uuid(101).uuidString.lowercased())"#,
        ]
        #expect(text == rows.map { $0 + "\r\n" }.joined())
    }

    @Test func exportThenImportRoundTripsEveryShift() throws {
        let source = try f.schedule()
        let text = ShiftCSV.export(source)
        let plan = try ShiftCSV.plan(text, into: try f.emptySchedule())
        // CSV carries date, type, person, notes and id; a custom calendar UID stays behind.
        let expected = source.shifts().map { shift in
            ScheduledShift(id: shift.id, shiftTypeID: shift.shiftTypeID, date: shift.date, personID: shift.personID, notes: shift.notes)
        }
        #expect(plan.added == expected)
        let again = try ShiftCSV.plan(text, into: source)
        #expect(again.isEmpty && again.unchanged == source.shiftCount, "the same file into its own store changes nothing")
    }

    @Test func importNeedsOnlyDateTypeAndPersonInAnyOrderAndCase() throws {
        let text = "Person,DATE,type\nbob,2026-03-02,d\n,2026-03-03,N\n\n\"Zoë \"\"Zo\"\" Müller, Jr.; ß\",2026-03-04,O\n"
        let counter = Counter()
        let plan = try ShiftCSV.plan(text, into: try f.emptySchedule(), makeID: { ShiftID(counter.next()) })
        #expect(plan.added.map { "\($0.date) \(f.schedule(id: $0.shiftTypeID)) \($0.personID.map(\.description) ?? "open")" } == [
            "2026-03-02 D \(f.bob.id)", "2026-03-03 N open", "2026-03-04 O \(f.zoe.id)",
        ])
    }

    @Test func everyBadRowIsReportedWithItsLine() throws {
        let text = "date,type,person,notes\n2026-03-02,D,Bob,\"a note\nover two lines\"\n2026-02-30,D,Bob,\n2026-03-03,X,Nobody,\n2026-03-04,D\n"
        #expect(throws: ImportFailure([
            ImportProblem(line: 4, message: "date: '2026-02-30' is not a date (YYYY-MM-DD)"),
            ImportProblem(line: 5, message: "type: no shift type 'X' (have: D, N, O)"),
            ImportProblem(line: 5, message: "person: no person 'Nobody' in the store (add them first: shiftctl person add)"),
            ImportProblem(line: 6, message: "2 fields, the header has 4"),
        ])) { try ShiftCSV.plan(text, into: try f.emptySchedule()) }
    }

    @Test(arguments: [
        ("date,type\n2026-03-02,D\n", "line 1: missing column person (the header needs at least date,type,person)"),
        ("date,type,person,shift\n", "line 1: unknown column 'shift' (columns: date,type,person,notes,location,id)"),
        ("date,type,person,type\n", "line 1: column 'type' appears twice"),
        ("", "line 1: empty file; the first line must be a header such as date,type,person"),
        ("date,type,person\n2026-03-02,D,\"Bob\n", "line 2: a quoted field is never closed"),
        ("date,type,person\n2026-03-02,D,Bo\"b\n", "line 2: a quote inside a field; quote the whole field and double inner quotes (\"say \"\"hi\"\"\")"),
        ("date,type,person,id\n2026-03-02,D,Bob,42\n", "line 2: id: '42' is not a shift id (a UUID, or leave it empty)"),
    ])
    func malformedFilesNameTheLine(_ text: String, _ message: String) throws {
        do {
            _ = try ShiftCSV.plan(text, into: try f.emptySchedule())
            Issue.record("expected a failure")
        } catch let failure as ImportFailure {
            #expect(failure.description == message)
        }
    }

    @Test(arguments: ["plain", "a,b", "say \"hi\"", "two\nlines", " padded ", "crlf\r\nend", "é ü ß"])
    func fieldsRoundTripThroughQuoting(_ value: String) throws {
        let records = try CSV.parse(CSV.record(["x", value, "y"]))
        #expect(records.map(\.fields) == [["x", value, "y"]])
    }

    @Test func aTimedRosterBecomesShiftTypesPeopleAndOrderedIDs() throws {
        let text = """
            shift_id,person,date,start_iso,end_iso
            2,P0002,2025-01-01,2025-01-01T22:00:00,2025-01-02T06:00:00
            10,P0001,2025-01-01,2025-01-01T06:00:00,2025-01-01T14:00:00
            3,P0001,2025-01-02,2025-01-02T06:30:00,2025-01-02T14:15:00

            """
        let schedule = try TimedRosterCSV.schedule(from: Data(text.utf8))
        #expect(schedule.settings.timeZoneIdentifier == "UTC")
        #expect(schedule.shiftTypes.map(\.symbol) == ["06-14", "22-06", "T3"])
        #expect(schedule.shiftTypes.map(\.duration.description).sorted() == ["06:00-14:00", "06:30-14:15", "22:00-06:00"])
        #expect(schedule.people.map(\.displayName) == ["P0001", "P0002"])
        #expect(TimedRosterCSV.shiftID(3) < TimedRosterCSV.shiftID(10) && TimedRosterCSV.shiftID(10) < TimedRosterCSV.shiftID(256))
        let night = try #require(schedule.shift(TimedRosterCSV.shiftID(2)))
        #expect(schedule.interval(of: night)?.minutes == 480)
    }

    @Test func aBadTimedRosterNamesTheLineAndField() {
        let header = TimedRosterCSV.header + "\n"
        let cases: [(String, String)] = [
            ("shift_id,person,date\n", "line 1: the header must be"),
            (header + "1,P1,2025-01-01,2025-01-01T06:00:00\n", "line 2: 4 fields, the header has 5"),
            (header + "x,P1,2025-01-01,2025-01-01T06:00:00,2025-01-01T14:00:00\n", "line 2: shift_id: 'x'"),
            (header + "1,P1,2025-02-30,2025-02-30T06:00:00,2025-02-30T14:00:00\n", "line 2: date: '2025-02-30'"),
            (header + "1,P1,2025-01-01,2025-01-02T06:00:00,2025-01-02T14:00:00\n", "line 2: start_iso"),
            (header + "1,P1,2025-01-01,2025-01-01T06:00:00,2025-01-01T05:00:00\n", "line 2: end_iso"),
            (header + "1,P1,2025-01-01,2025-01-01T24:00:00,2025-01-02T05:00:00\n", "line 2: start_iso"),
            (header + "1,,2025-01-01,2025-01-01T06:00:00,2025-01-01T14:00:00\n", "line 2: person: empty"),
        ]
        for (text, message) in cases {
            #expect { try TimedRosterCSV.schedule(from: Data(text.utf8)) } throws: { "\($0)".contains(message) }
        }
        let duplicate = header + "1,P1,2025-01-01,2025-01-01T06:00:00,2025-01-01T14:00:00\n1,P2,2025-01-01,2025-01-01T06:00:00,2025-01-01T14:00:00\n"
        #expect(throws: ImportFailure.self) { try TimedRosterCSV.schedule(from: Data(duplicate.utf8)) }
    }
}
