import Foundation
import ShiftApp
import ShiftCore
import ShiftInterop
import ShiftStorage
import TestSupport
import Testing

/// `shiftctl export` and `import` for csv, ics and html, through the app layer and a store file.
@Suite struct AppExchangeTests {
    let f = InteropFixture()

    /// A folder with `schedule.json` holding `schedule`, and an app over it (rules: the stock ones
    /// when `rules`, else none, as with `--no-rules`).
    func setUp(_ schedule: Schedule, rules: Bool = false) throws -> (TemporaryFolder, App) {
        let folder = try TemporaryFolder()
        try Data(StoreFileCodec.encode(schedule)).write(to: URL(fileURLWithPath: folder.path + "/schedule.json"))
        let app = App(options: GlobalOptions(store: "schedule.json", rules: rules ? [stockRules] : [], noRules: !rules),
                      environment: AppEnvironment(variables: ["USER": "tester"], currentDirectory: folder.path, now: { fixedNow }))
        return (folder, app)
    }

    func storeBytes(_ folder: TemporaryFolder) -> Data? { FileManager.default.contents(atPath: folder.path + "/schedule.json") }

    func schedule(_ folder: TemporaryFolder) throws -> Schedule { try JSONFileRepository(path: folder.path + "/schedule.json").load().0 }

    @Test(arguments: [ExchangeFormat.csv, .ics])
    func exportToAFileThenImportIntoAnotherStoreCopiesTheShifts(_ format: ExchangeFormat) async throws {
        let (folder, app) = try setUp(try f.schedule())
        defer { folder.remove() }
        let result = try app.export(format: format, to: "team.\(format)")
        #expect(result.text == "exported 6 shifts to team.\(format)\n")

        try Data(StoreFileCodec.encode(try f.emptySchedule())).write(to: URL(fileURLWithPath: folder.path + "/other.json"))
        let other = App(options: GlobalOptions(store: "other.json", noRules: true), environment: app.workspace.environment)
        let imported = try await other.importFile("team.\(format)", format: nil)
        #expect(imported.status == .ok)
        #expect(imported.text == "imported team.\(format) as one change\n  shifts: 6 added, 0 updated\n")
        let copy = try JSONFileRepository(path: folder.path + "/other.json").load().0
        #expect(copy.shifts().map(\.id) == (try f.schedule()).shifts().map(\.id))
        #expect(copy.changeLog.count == 6, "one change-log entry per shift")
        let again = try await other.importFile("team.\(format)", format: format)
        #expect(again.text.hasPrefix("nothing to import"))
    }

    @Test func filtersNarrowTheExportToOnePersonsCalendar() throws {
        let (folder, app) = try setUp(try f.schedule())
        defer { folder.remove() }
        let ics = try app.export(format: .ics, to: nil, filter: ExportFilter(people: ["bob"])).text
        #expect(ics.components(separatedBy: "BEGIN:VEVENT").count - 1 == 2)
        #expect(ics.contains("X-WR-CALNAME:Shifts — Bob"))
        let csv = try app.export(format: .csv, to: nil, filter: ExportFilter(from: "2026-03-29", to: "2026-03-31", types: ["D"])).text
        #expect(csv.split(separator: "\r\n").count == 3, "header, the D of the 29th, the open D of the 31st")
        #expect(throws: AppError.unknownReference(option: "--person", kind: "person", reference: "Nobody", suggestions: [])) {
            try app.export(format: .ics, to: nil, filter: ExportFilter(people: ["Nobody"]))
        }
        #expect(throws: AppError.self) { try app.export(format: .json, to: nil, filter: ExportFilter(people: ["Bob"])) }
    }

    @Test func aFileWithUnmatchedEventsIsReportedLineByLineAndNothingIsWritten() async throws {
        let (folder, app) = try setUp(try f.emptySchedule())
        defer { folder.remove() }
        _ = try folder.write("""
            BEGIN:VCALENDAR\r
            BEGIN:VEVENT\r
            UID:1@x\r
            DTSTART:20260302T060000Z\r
            DTEND:20260302T180000Z\r
            SUMMARY:D\r
            END:VEVENT\r
            BEGIN:VEVENT\r
            UID:2@x\r
            DTSTART:20260302T090000Z\r
            DTEND:20260302T100000Z\r
            SUMMARY:Dentist\r
            END:VEVENT\r
            END:VCALENDAR\r

            """, to: "mixed.ics")
        let before = storeBytes(folder)
        let result = try await app.importFile("mixed.ics", format: nil)
        #expect(result.status == .badInput)
        #expect(result.note == "mixed.ics:8: event 'Dentist' (2026-03-02 10:00-11:00) matches no shift type: start its SUMMARY with a symbol (D, N, O) or add a shift type with these times\nshiftctl: mixed.ics: 1 problem; nothing was imported")
        #expect(storeBytes(folder) == before)
    }

    @Test func aBulkImportIsOneBatchThatTheRulesRejectWhole() async throws {
        let (folder, app) = try setUp(try f.emptySchedule(), rules: true)
        defer { folder.remove() }
        _ = try folder.write("date,type,person\n2026-03-02,D,Bob\n2026-03-03,D,Bob\n2026-03-03,D,Bob\n", to: "bulk.csv")
        let before = storeBytes(folder)
        await #expect(throws: RejectedChange.self) { try await app.importFile("bulk.csv", format: nil) }
        #expect(storeBytes(folder) == before, "the double booking in the last row rejects the whole file")
    }

    @Test func theFormatComesFromTheExtensionUnlessGiven() async throws {
        let (folder, app) = try setUp(try f.emptySchedule())
        defer { folder.remove() }
        _ = try folder.write("date,type,person\n2026-03-02,D,Bob\n", to: "shifts.txt")
        await #expect(throws: AppError.invalidValue(option: "--file-format", message: "cannot tell the format of shifts.txt from its extension; pass --file-format json, csv or ics")) {
            try await app.importFile("shifts.txt", format: nil)
        }
        #expect(try await app.importFile("shifts.txt", format: .csv).status == .ok)
        #expect(try schedule(folder).shiftCount == 1)
        await #expect(throws: AppError.self) { try await app.importFile("shifts.txt", format: .html) }
    }

    @Test func theHTMLPageHighlightsTheCellsOfRuleViolations() throws {
        // A double booking written past the funnel, as a hand-edited file would be.
        var shifts = try f.schedule().shifts()
        shifts.append(ScheduledShift(id: ShiftID(uuid(200)), shiftTypeID: f.day.id, date: date("2026-03-29"), personID: f.bob.id))
        let (folder, app) = try setUp(try f.schedule(shifts: shifts), rules: true)
        defer { folder.remove() }
        let html = try app.export(format: .html, to: nil, filter: ExportFilter(from: "2026-03-27", to: "2026-04-02")).text
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(!html.contains("<script") && !html.contains("<link") && !html.contains("src="), "self-contained")
        #expect(html.contains("print-color-adjust: exact"))
        #expect(html.contains("size: A4 landscape"))
        #expect(html.contains(">March 2026</th>") && html.contains(">April 2026</th>"), "one grid, the months over its days")
        #expect(html.contains("Zoë &quot;Zo&quot; Müller, Jr.; ß"))
        #expect(html.contains("<td class=\"weekend violation error\" title=\"error: "), "Bob's two D on Sunday the 29th")
        #expect(html.contains("no_double_booking"))
        #expect(html.components(separatedBy: "class=\"flag\"").count - 1 == 1, "only that cell is flagged")
        #expect(html.contains("Nacht; &quot;dunkel&quot;"), "the legend names every type")
    }
}
