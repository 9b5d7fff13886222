import Foundation
@testable import ShiftApp
import ShiftCore
import Testing

@Suite struct ReferenceResolverTests {
    let schedule: Schedule
    let bob = Person(id: PersonID("4f1c0000-0000-4000-8000-000000000001")!, displayName: "Bob")
    let bea = Person(id: PersonID("9a0d0000-0000-4000-8000-000000000002")!, displayName: "Bea")
    let bobby = Person(id: PersonID("12340000-0000-4000-8000-000000000003")!, displayName: "Bobby")

    init() throws {
        schedule = try Schedule(settings: StoreSettings(timeZoneIdentifier: "UTC"), people: [bob, bea, bobby])
    }

    @Test func exactNamesWinOverPrefixes() throws {
        #expect(try ReferenceResolver(schedule).person("Bob").id == bob.id)
        #expect(try ReferenceResolver(schedule).person("bob").id == bob.id)
        #expect(try ReferenceResolver(schedule).person("Bobb").id == bobby.id)
    }

    @Test func idPrefixesOfFourOrMoreCharactersResolve() throws {
        #expect(try ReferenceResolver(schedule).person("9a0d").id == bea.id)
        #expect(try ReferenceResolver(schedule).person(bobby.id.description).id == bobby.id)
    }

    @Test func ambiguousPrefixesListTheCandidatesWithIDs() {
        #expect(throws: AppError.ambiguousReference(option: "--person", kindPlural: "people", reference: "B",
                                                    candidates: ["Bea (9a0d0000…)", "Bob (4f1c0000…)", "Bobby (12340000…)"])) {
            try ReferenceResolver(schedule).person("B", option: "--person")
        }
    }

    @Test func unknownNamesSuggestCloseOnes() {
        let error = AppError.unknownReference(option: "--person", kind: "person", reference: "Bbo", suggestions: ["Bob", "Bobby"])
        #expect(throws: error) { try ReferenceResolver(schedule).person("Bbo", option: "--person") }
        #expect(error.description == "--person: no person 'Bbo'; did you mean: Bob, Bobby")
        #expect(AppError.unknownReference(option: "--person", kind: "person", reference: "Zed", suggestions: []).description
            == "--person: no person 'Zed' (list them with shiftctl person list)")
    }
}

@Suite struct InputParsingTests {
    @Test func datesMustExist() throws {
        #expect(throws: AppError.invalidValue(option: "--date", message: "'2026-02-30' is not a date (YYYY-MM-DD)")) {
            try InputParsing.date("2026-02-30", option: "--date")
        }
        #expect(try InputParsing.date("2026-02-28", option: "--date") == LocalDate("2026-02-28"))
    }

    @Test func todayIsInTheStoresTimeZone() throws {
        let now = Date(timeIntervalSince1970: 1_772_406_000) // 2026-03-01T23:00:00Z = 2026-03-02 00:00 in Berlin
        let berlin = try #require(ZoneRules(identifier: "Europe/Berlin"))
        #expect(try InputParsing.date("today", option: "--date", zone: berlin, now: now) == LocalDate("2026-03-02"))
        #expect(try InputParsing.date("today", option: "--date", zone: .utc, now: now) == LocalDate("2026-03-01"))
    }

    @Test func shiftTypesNeedATimeOrAllDay() throws {
        #expect(try InputParsing.duration(time: "19:00-07:00", allDay: false, required: true)?.isOvernight == true)
        #expect(try InputParsing.duration(time: nil, allDay: true, required: true) == .allDay)
        #expect(throws: AppError.self) { try InputParsing.duration(time: nil, allDay: false, required: true) }
        #expect(throws: AppError.self) { try InputParsing.duration(time: "7-19", allDay: false, required: true) }
    }

    @Test func attributesParseTypedValues() throws {
        let attributes = try InputParsing.attributes(["skills=[nurse, lead]", "max_hours=38.5", "night=true", "team=A"])
        #expect(attributes["skills"] == .list([.string("nurse"), .string("lead")]))
        #expect(attributes["max_hours"] == .number(38.5))
        #expect(attributes["night"] == .bool(true))
        #expect(attributes["team"] == .string("A"))
        #expect(throws: AppError.self) { try InputParsing.attributes(["novalue"]) }
    }
}

@Suite struct RenderingTests {
    func roster(days: Int) throws -> RosterOutput {
        let day = ShiftType(id: ShiftTypeID(UUID()), symbol: "D", title: "Day", duration: ShiftDuration("07:00-19:00")!)
        let alice = Person(id: PersonID(UUID()), displayName: "Alice")
        let start = LocalDate("2026-03-02")!
        let schedule = try Schedule(
            settings: StoreSettings(timeZoneIdentifier: "UTC"), shiftTypes: [day], people: [alice],
            shifts: [ScheduledShift(id: ShiftID(UUID()), shiftTypeID: day.id, date: start, personID: alice.id),
                     ScheduledShift(id: ShiftID(UUID()), shiftTypeID: day.id, date: start.adding(days: 1))])
        return RosterOutput(schedule: schedule, from: start, days: days)
    }

    @Test func rosterRowsHoldPeopleAndOpenShifts() throws {
        let output = try roster(days: 2)
        #expect(output.rows.map(\.person) == ["Alice", "(open)"])
        #expect(output.rows[0].cells == [["D"], []])
        #expect(output.rows[1].cells == [[], ["D"]])
    }

    @Test func rosterWrapsIntoBlocksThatFitTheWidth() throws {
        let text = RosterRenderer(width: 30, colour: false).render(try roster(days: 14))
        #expect(text.split(separator: "\n").allSatisfy { $0.count <= 30 })
        #expect(text.components(separatedBy: "Alice").count - 1 == 2)
        #expect(!text.contains("\u{1B}"))
    }

    @Test func rosterColoursCellsOnlyWhenAsked() throws {
        let text = RosterRenderer(width: 80, colour: true).render(try roster(days: 3))
        #expect(text.contains("\u{1B}[30;43mD "))
    }

    @Test func colourFollowsTheTerminalAndNoColor() {
        var environment = AppEnvironment(variables: [:], currentDirectory: "/", stdoutIsTerminal: true)
        #expect(environment.usesColour)
        environment.variables["NO_COLOR"] = "1"
        #expect(!environment.usesColour)
        environment = AppEnvironment(variables: [:], currentDirectory: "/", stdoutIsTerminal: false)
        #expect(!environment.usesColour)
    }

    @Test func widthComesFromColumnsThenTheTerminal() {
        #expect(AppEnvironment(variables: ["COLUMNS": "120"], currentDirectory: "/", terminalColumns: 90).width == 120)
        #expect(AppEnvironment(variables: [:], currentDirectory: "/", terminalColumns: 90).width == 90)
        #expect(AppEnvironment(variables: [:], currentDirectory: "/").width == 80)
    }

    @Test func githubAnnotationsNameFileLineAndRule() {
        let violation = Violation(ruleID: "no_double_booking", severity: .error, message: "Alice already works D",
                                  date: LocalDate("2026-03-02"), source: "/repo/rules/no_double_booking.lua:14")
        let warning = Violation(ruleID: "meets_demand", severity: .warning, message: "D needs 2, has 1", date: LocalDate("2026-03-03"))
        let report = ViolationReport(violations: [violation, warning], schedule: nil, score: nil, rejected: false)
        #expect(report.github(relativeTo: "/repo") == """
            ::error file=rules/no_double_booking.lua,line=14::2026-03-02: Alice already works D (no_double_booking)
            ::warning::2026-03-03: D needs 2, has 1 (meets_demand)
            1 error, 1 warning, 0 penalties

            """)
    }

    @Test func tablesAlignColumns() {
        var table = TextTable("A", "LONG")
        table.add("wide cell", "x")
        #expect(table.rendered == "A          LONG\nwide cell  x\n")
    }
}

@Suite struct WorkspaceTests {
    func workspace(_ options: GlobalOptions, variables: [String: String] = [:]) -> Workspace {
        Workspace(options: options, environment: AppEnvironment(variables: variables, currentDirectory: "/work"))
    }

    @Test func theActingUserIsTheOptionThenTheStoreDefaultThenUSER() {
        var settings = StoreSettings(timeZoneIdentifier: "UTC")
        #expect(workspace(GlobalOptions(), variables: ["USER": "sam"]).actingUser(settings: settings).userId == "sam")
        settings.extra["user.default"] = .string("planner")
        #expect(workspace(GlobalOptions(), variables: ["USER": "sam"]).actingUser(settings: settings).userId == "planner")
        #expect(workspace(GlobalOptions(actingUser: "lead"), variables: ["USER": "sam"]).actingUser(settings: settings).userId == "lead")
        #expect(workspace(GlobalOptions()).actingUser(settings: StoreSettings(timeZoneIdentifier: "UTC")).userId == "unknown")
    }

    @Test func theStorePathIsTheOptionThenTheEnvironmentThenTheDefault() throws {
        #expect(workspace(GlobalOptions()).storePath == "./schedule.json")
        #expect(workspace(GlobalOptions(), variables: ["SHIFTCTL_STORE": "team.json"]).storePath == "team.json")
        #expect(workspace(GlobalOptions(store: "a/b.json"), variables: ["SHIFTCTL_STORE": "team.json"]).absoluteStorePath == "/work/a/b.json")
        #expect(throws: AppError.unsupportedStore(path: "x.xml")) { try workspace(GlobalOptions(store: "x.xml")).repository() }
        #expect(try workspace(GlobalOptions(store: "x.sqlite")).storeKind() == .sqlite)
        #expect(try workspace(GlobalOptions(store: "x.DB")).storeKind() == .sqlite)
        #expect(try workspace(GlobalOptions()).storeKind() == .json)
    }
}
