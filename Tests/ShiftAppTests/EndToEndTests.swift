import Foundation
import ShiftCore
import ShiftStorage
import Testing

/// Runs the built `shiftctl` in temporary folders and checks output, errors and exit codes.
@Suite struct EndToEndTests {
    @Test func initCreatesAStoreWithTheStockRulesBesideIt() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let result = try sandbox.run("init", "--time-zone", "Europe/Berlin", "--week-start", "sun")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("created ./schedule.json"))
        let schedule = try sandbox.schedule()
        #expect(schedule.settings.timeZoneIdentifier == "Europe/Berlin")
        #expect(schedule.settings.weekStart == .sunday)
        #expect(schedule.settings.extra["rules.directories"] == .list([.string("rules")]))
        #expect(FileManager.default.fileExists(atPath: sandbox.path + "/rules/no_double_booking.lua"))

        let again = try sandbox.run("init")
        #expect(again.status == 2)
        #expect(again.stderr == "shiftctl: ./schedule.json: a schedule store already exists here (pass --store to create another one)\n")
    }

    @Test func initWithoutRulesRecordsNoRulesFolder() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let result = try sandbox.run("--store", "team/roster.json", "init", "--no-rules", "--time-zone", "UTC", "--format", "json")
        #expect(result.status == 0, "\(result.stderr)")
        let output = try json(result.stdout)
        #expect(output["rulesDirectories"] as? [String] == [])
        #expect(!FileManager.default.fileExists(atPath: sandbox.path + "/team/rules"))
        #expect(FileManager.default.fileExists(atPath: sandbox.path + "/team/roster.json"))
    }

    @Test func configuredRulesFoldersAreRelativeToTheStoreFile() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        #expect(try sandbox.run("--store", "team/roster.json", "init", "--time-zone", "UTC").status == 0)
        #expect(FileManager.default.fileExists(atPath: sandbox.path + "/team/rules/no_double_booking.lua"))
        let rules = try json(try sandbox.run("--store", "team/roster.json", "rules", "list", "--format", "json").stdout)
        let files = try #require((rules["rules"] as? [[String: Any]])?.compactMap { $0["file"] as? String })
        #expect(!files.isEmpty)
        #expect(files.allSatisfy { $0.contains("/team/rules/") }, "\(files)")
    }

    @Test func aMissingStoreIsOneLineWithExitTwo() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let result = try sandbox.run("person", "list")
        #expect(result.status == 2)
        #expect(result.stderr == "shiftctl: ./schedule.json: no schedule store here (create one with shiftctl init, or pass --store)\n")
        #expect(result.stdout.isEmpty)
    }

    @Test func theStoreComesFromTheEnvironmentWhenNoOptionIsGiven() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        #expect(try sandbox.run("init", "--no-rules", environment: ["SHIFTCTL_STORE": "other.json"]).status == 0)
        #expect(FileManager.default.fileExists(atPath: sandbox.path + "/other.json"))
        #expect(try sandbox.run("person", "add", "Ann", environment: ["SHIFTCTL_STORE": "other.json"]).status == 0)
    }

    @Test func anUnsupportedStoreTypeNamesTheKindsThereAre() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let result = try sandbox.run("--store", "team.xml", "person", "list")
        #expect(result.status == 2)
        #expect(result.stderr == "shiftctl: team.xml: unsupported store type; name the store with one of .json, .sqlite (or .sqlite3, .db), or a postgres:// URL\n")
        let missing = try sandbox.run("--store", "team.sqlite", "person", "list")
        #expect(missing.status == 2)
        #expect(missing.stderr == "shiftctl: team.sqlite: no schedule store here (create one with shiftctl init, or pass --store)\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.path).isEmpty, "nothing created")
    }

    @Test func aCorruptStoreReportsLineAndColumn() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.write("{\n  \"format\": \"shiftscheduler\",\n  \"version\": 2,\n  oops\n}\n", to: "schedule.json")
        let result = try sandbox.run("schedule", "list")
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("shiftctl: \(sandbox.store):4:"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test func badDatesNameTheOptionAndTheForm() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        let result = try sandbox.run("schedule", "add", "--type", "D", "--date", "2026-02-30", "--person", "Alice")
        #expect(result.status == 2)
        #expect(result.stderr == "shiftctl: --date: '2026-02-30' is not a date (YYYY-MM-DD)\n")
    }

    @Test func usageErrorsExitTwoOnOneLine() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        let result = try sandbox.run("schedule", "add", "--type", "D")
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("shiftctl: Missing expected argument '--date"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test func unknownAndAmbiguousNamesListTheCandidates() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        let unknown = try sandbox.run("schedule", "add", "--type", "D", "--date", "2026-03-02", "--person", "Bbo")
        #expect(unknown.status == 2)
        #expect(unknown.stderr == "shiftctl: --person: no person 'Bbo'; did you mean: Bob, Bobby\n")

        let ambiguous = try sandbox.run("schedule", "add", "--type", "D", "--date", "2026-03-02", "--person", "B")
        #expect(ambiguous.status == 2)
        #expect(ambiguous.stderr.hasPrefix("shiftctl: --person: 'B' matches 2 people: Bob ("), "\(ambiguous.stderr)")
        #expect(ambiguous.stderr.hasSuffix("…); use more letters or the id\n"))

        let type = try sandbox.run("schedule", "add", "--type", "X", "--date", "2026-03-02")
        #expect(type.status == 2)
        #expect(type.stderr.hasPrefix("shiftctl: --type: no shift type 'X'"))
    }

    @Test func aDoubleBookingIsRejectedAndTheStoreStaysByteForByte() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        #expect(try sandbox.run("schedule", "add", "--type", "D", "--date", "2026-03-02", "--person", "Alice").status == 0)
        let before = try #require(sandbox.bytes())

        let text = try sandbox.run("schedule", "add", "--type", "D", "--date", "2026-03-02", "--person", "Alice")
        #expect(text.status == 1)
        #expect(text.stdout.contains("2026-03-02  Alice   D     error     no_double_booking"), "\(text.stdout)")
        #expect(text.stderr.contains("nothing was written"))
        #expect(sandbox.bytes() == before)

        let jsonRun = try sandbox.run("schedule", "add", "--type", "D", "--date", "2026-03-02", "--person", "Alice", "--format", "json")
        #expect(jsonRun.status == 1)
        let report = try json(jsonRun.stdout)
        #expect(report["ok"] as? Bool == false)
        #expect(report["rejected"] as? Bool == true)
        let violations = try #require(report["violations"] as? [[String: Any]])
        let doubleBooking = try #require(violations.first { $0["rule"] as? String == "no_double_booking" })
        #expect(doubleBooking["person"] as? String == "Alice")
        #expect(doubleBooking["type"] as? String == "D")
        #expect(doubleBooking["date"] as? String == "2026-03-02")
        #expect(doubleBooking["severity"] as? String == "error")
        #expect(sandbox.bytes() == before)
    }

    @Test func listsAndShowsPrintJSONWithStableFields() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        #expect(try sandbox.run("schedule", "add", "--type", "N", "--date", "2026-03-02", "--person", "Bob", "--notes", "cover").status == 0)

        let shifts = try json(try sandbox.run("--format", "json", "schedule", "list").stdout)
        let shift = try #require((shifts["shifts"] as? [[String: Any]])?.first)
        #expect(shift["type"] as? String == "N")
        #expect(shift["time"] as? String == "19:00-07:00")
        #expect(shift["person"] as? String == "Bob")
        #expect(shift["location"] as? String == "Ward A")
        #expect(shift["notes"] as? String == "cover")
        #expect(shift["date"] as? String == "2026-03-02")

        let type = try json(try sandbox.run("type", "show", "N", "--format", "json").stdout)
        #expect(type["symbol"] as? String == "N")
        #expect(type["overnight"] as? Bool == true)
        #expect(type["location"] as? String == "Ward A")

        let people = try json(try sandbox.run("person", "list", "--format", "json").stdout)
        #expect((people["people"] as? [[String: Any]])?.map { $0["name"] as? String } == ["Alice", "Bob", "Bobby"])

        let table = try sandbox.run("type", "list")
        #expect(table.stdout.hasPrefix("SYMBOL  TITLE  TIME         LOCATION  ID"))
    }

    @Test func entitiesCanBeUpdatedAndRemovedByNameOrIDPrefix() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        #expect(try sandbox.run("person", "update", "bobby", "--name", "Roberta", "--attr", "skills=[nurse, lead]").status == 0)
        let person = try json(try sandbox.run("person", "show", "Roberta", "--format", "json").stdout)
        #expect((person["attributes"] as? [String: Any])?["skills"] as? [String] == ["nurse", "lead"])
        let id = try #require(person["id"] as? String)
        let removed = try sandbox.run("person", "remove", String(id.prefix(6)))
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout.hasPrefix("removed person Roberta"))
        #expect(try sandbox.schedule().people.map(\.displayName) == ["Alice", "Bob"])
    }

    @Test func switchIsLoggedWithOldAndNewSnapshots() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        let added = try json(try sandbox.run("schedule", "add", "--type", "D", "--date", "2026-03-02", "--person", "Alice", "--format", "json").stdout)
        let id = try #require(added["id"] as? String)
        let switched = try sandbox.run("--as", "lead", "switch", String(id.prefix(8)), "--to", "N", "--reason", "swap with Bob")
        #expect(switched.status == 0, "\(switched.stderr)")
        #expect(switched.stdout.hasPrefix("switched shift on 2026-03-02 from D to N"))

        let log = try json(try sandbox.run("log", "--limit", "1", "--format", "json").stdout)
        let entry = try #require((log["entries"] as? [[String: Any]])?.first)
        #expect(entry["changeType"] as? String == "switched")
        #expect(entry["userId"] as? String == "lead")
        #expect(entry["reason"] as? String == "swap with Bob")
        #expect((entry["oldShiftSnapshot"] as? [String: Any])?["symbol"] as? String == "D")
        #expect((entry["newShiftSnapshot"] as? [String: Any])?["symbol"] as? String == "N")

        let text = try sandbox.run("log")
        #expect(text.stdout.contains("switched"))
        #expect(text.stdout.contains("swap with Bob"))
    }

    @Test func logPruneUsesTheGivenAge() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        #expect(try sandbox.run("schedule", "add", "--type", "D", "--date", "2026-03-02").status == 0)
        let kept = try sandbox.run("log", "prune")
        #expect(kept.status == 0)
        #expect(kept.stdout.hasPrefix("nothing to prune"))
        let pruned = try json(try sandbox.run("log", "prune", "--older-than", "30d", "--format", "json").stdout)
        #expect(pruned["removed"] as? Int == 0)
        #expect(try sandbox.run("log", "prune", "--older-than", "soon").stderr == "shiftctl: --older-than: 'soon' is not an age (a number of days such as 90d)\n")
    }

    @Test func demandAndAvailabilityRoundTrip() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        #expect(try sandbox.run("demand", "add", "--type", "D", "--weekday", "mon", "--min", "2", "--optimal", "3").status == 0)
        #expect(try sandbox.run("demand", "add", "--type", "N", "--date", "2026-03-02", "--min", "1", "--skill", "nurse").status == 0)
        let demand = try json(try sandbox.run("demand", "list", "--format", "json").stdout)
        let items = try #require(demand["demand"] as? [[String: Any]])
        #expect(items.count == 2)
        #expect(items.contains { $0["weekday"] as? String == "monday" && $0["minimum"] as? Int == 2 && $0["optimal"] as? Int == 3 })
        #expect(try sandbox.run("demand", "add", "--type", "D", "--min", "1").status == 2)

        #expect(try sandbox.run("availability", "add", "--person", "Alice", "--from", "2026-03-05", "--to", "2026-03-07").status == 0)
        let availability = try json(try sandbox.run("availability", "list", "--format", "json").stdout)
        let entry = try #require((availability["availability"] as? [[String: Any]])?.first)
        #expect(entry["kind"] as? String == "unavailable")
        #expect(entry["person"] as? String == "Alice")
        let id = try #require(entry["id"] as? String)
        #expect(try sandbox.run("availability", "remove", String(id.prefix(5))).status == 0)
        #expect(try sandbox.schedule().availability.isEmpty)
    }

    @Test func exportThenImportIntoAFreshStoreCopiesEverything() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        #expect(try sandbox.run("schedule", "add", "--type", "D", "--date", "2026-03-02", "--person", "Alice").status == 0)
        let exported = try sandbox.run("export", "--format", "json", "-o", "copy.json")
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(try sandbox.run("--store", "other.json", "init", "--no-rules", "--time-zone", "Europe/Berlin").status == 0)
        let imported = try sandbox.run("--store", "other.json", "--rules", "rules", "import", "copy.json")
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("shifts: 1 added, 0 updated"))
        let original = try sandbox.schedule()
        let copy = try JSONFileRepository(path: sandbox.path + "/other.json").load().0
        #expect(copy.shifts() == original.shifts())
        #expect(copy.people == original.people)
        #expect(copy.shiftTypes == original.shiftTypes)

        let again = try sandbox.run("--store", "other.json", "import", "copy.json")
        #expect(again.stdout.hasPrefix("nothing to import"))

        let stdout = try sandbox.run("export")
        #expect(stdout.stdout.data(using: .utf8) == sandbox.bytes())
    }

    @Test func anImportTheRulesRejectLeavesTheStoreUnchanged() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        #expect(try sandbox.run("schedule", "add", "--type", "D", "--date", "2026-03-02", "--person", "Alice").status == 0)
        // A file holding a second, overlapping shift for Alice.
        var schedule = try sandbox.schedule()
        let alice = try #require(schedule.people.first { $0.displayName == "Alice" })
        let day = try #require(schedule.shiftType(symbol: "D"))
        let extra = ScheduledShift(id: ShiftID(UUID()), shiftTypeID: day.id, date: LocalDate("2026-03-02")!, personID: alice.id)
        schedule = try Schedule(settings: schedule.settings, locations: schedule.locations, shiftTypes: schedule.shiftTypes,
                                people: schedule.people, shifts: schedule.shifts() + [extra])
        try Data(StoreFileCodec.encode(schedule)).write(to: URL(fileURLWithPath: sandbox.path + "/clash.json"))
        let before = try #require(sandbox.bytes())
        let result = try sandbox.run("import", "clash.json")
        #expect(result.status == 1)
        #expect(result.stdout.contains("no_double_booking"))
        #expect(sandbox.bytes() == before)
    }

    /// An imported file must make a whole store by itself: a shift whose type only the store has,
    /// or a shift id twice, is the file's problem (named with the file), and nothing is written.
    @Test func anImportFileThatIsNotAWholeStoreIsRefused() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        let day = try #require(try sandbox.schedule().shiftType(symbol: "D"))
        let shift: [String: Any] = ["id": "5e1f0000-0000-4000-8000-000000000009", "shiftTypeID": day.id.description, "date": "2026-03-01"]
        // The store's own export with the shift types left out, and with a shift twice.
        #expect(try sandbox.run("export", "--format", "json", "-o", "base.json").status == 0)
        var file = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: sandbox.path + "/base.json"))) as? [String: Any])
        file["shifts"] = [shift]
        file["shiftTypes"] = []
        file["demand"] = []
        try JSONSerialization.data(withJSONObject: file).write(to: URL(fileURLWithPath: sandbox.path + "/type.json"))
        file = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: sandbox.path + "/base.json"))) as? [String: Any])
        file["shifts"] = [shift, shift]
        try JSONSerialization.data(withJSONObject: file).write(to: URL(fileURLWithPath: sandbox.path + "/twice.json"))
        let before = try #require(sandbox.bytes())
        for (file, field) in [("type.json", "shifts[0].shiftTypeID"), ("twice.json", "shifts[1].id")] {
            let result = try sandbox.run("import", file)
            #expect(result.status == 2, "\(file): \(result.stdout) \(result.stderr)")
            #expect(result.stderr.contains(file + ": " + field), "\(file): \(result.stderr)")
            #expect(sandbox.bytes() == before)
        }
    }

    /// A store this user may not write (another user's, on read-only media) is read as usual;
    /// a change is refused with a clear error and nothing is written. As root, the commands run
    /// as `nobody` (root may write anything).
    @Test(.enabled(if: ReadOnlyUser.launcher != nil, "needs a user without write access (runuser and nobody, as root)"),
          arguments: StoreBackend.allCases)
    func aStoreThisUserMayNotWriteIsReadOnly(_ backend: StoreBackend) throws {
        let sandbox = try Sandbox()
        defer {
            chmod(sandbox.path + "/ro", 0o755)
            sandbox.remove()
        }
        let store = "ro/" + backend.fileName
        try FileManager.default.createDirectory(atPath: sandbox.path + "/ro", withIntermediateDirectories: true)
        #expect(try sandbox.run("--store", store, "init", "--time-zone", "UTC").status == 0)
        #expect(try sandbox.run("--store", store, "type", "add", "D", "--time", "07:00-19:00").status == 0)
        #expect(try sandbox.run("--store", store, "schedule", "add", "--type", "D", "--date", "2026-03-02").status == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: sandbox.path + "/ro")
        #expect(!files.contains { $0.hasSuffix("-wal") || $0.hasSuffix("-shm") }, "closed cleanly: \(files)")
        for file in files where !file.hasPrefix("rules") { chmod(sandbox.path + "/ro/" + file, 0o444) }
        chmod(sandbox.path + "/ro", 0o555)
        let before = try #require(sandbox.bytes(store))
        let launcher = try #require(ReadOnlyUser.launcher)

        let list = try sandbox.run(arguments: ["--store", store, "schedule", "list"], launcher: launcher)
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.contains("2026-03-02"))
        let validate = try sandbox.run(arguments: ["--store", store, "validate"], launcher: launcher)
        #expect(validate.status == 0, "\(validate.stderr)")
        let add = try sandbox.run(arguments: ["--store", store, "person", "add", "Zed"], launcher: launcher)
        #expect(add.status == 2)
        #expect(add.stderr.contains(backend.fileName), "\(add.stderr)")
        #expect(sandbox.bytes(store) == before)
    }

    @Test func validateReportsViolationsAsTextJSONAndGitHubAnnotations() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        let clean = try sandbox.run("validate")
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(clean.stdout.hasPrefix("ok: no violations"))

        // Write a double booking past the funnel, as a hand-edited file would.
        var schedule = try sandbox.schedule()
        let alice = try #require(schedule.people.first { $0.displayName == "Alice" })
        let day = try #require(schedule.shiftType(symbol: "D"))
        let date = LocalDate("2026-03-02")!
        schedule = try Schedule(settings: schedule.settings, locations: schedule.locations, shiftTypes: schedule.shiftTypes, people: schedule.people,
                                shifts: [ScheduledShift(id: ShiftID(UUID()), shiftTypeID: day.id, date: date, personID: alice.id),
                                         ScheduledShift(id: ShiftID(UUID()), shiftTypeID: day.id, date: date, personID: alice.id)])
        try JSONFileRepository(path: sandbox.store).write(StoreFileCodec.encode(schedule))

        let text = try sandbox.run("validate", "--score")
        #expect(text.status == 1)
        #expect(text.stdout.contains("2026-03-02  Alice   D     error     no_double_booking"), "\(text.stdout)")
        #expect(text.stdout.contains("score: "))

        let report = try json(try sandbox.run("validate", "--format", "json", "--score").stdout)
        #expect(report["ok"] as? Bool == false)
        #expect((report["errors"] as? Int ?? 0) >= 1)
        #expect((report["score"] as? [String: Any])?["hardViolations"] as? Int == report["errors"] as? Int)

        let github = try sandbox.run("validate", "--format", "github")
        #expect(github.status == 1)
        #expect(github.stdout.contains("::error file=rules/no_double_booking.lua"), "\(github.stdout)")
        #expect(github.stdout.contains("::2026-03-02 Alice D: "))
    }

    @Test func validateLimitsTheListAndReportsItsSteps() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        var schedule = try sandbox.schedule()
        let alice = try #require(schedule.people.first { $0.displayName == "Alice" })
        let day = try #require(schedule.shiftType(symbol: "D"))
        let shifts = (0..<3).flatMap { offset in
            (0..<2).map { _ in ScheduledShift(id: ShiftID(UUID()), shiftTypeID: day.id, date: LocalDate("2026-03-02")!.adding(days: 2 * offset), personID: alice.id) }
        }
        schedule = try Schedule(settings: schedule.settings, locations: schedule.locations, shiftTypes: schedule.shiftTypes, people: schedule.people, shifts: shifts)
        try JSONFileRepository(path: sandbox.store).write(StoreFileCodec.encode(schedule))

        let all = try json(try sandbox.run("validate", "--format", "json").stdout)
        let total = try #require(all["violations"] as? [Any]).count
        #expect(total >= 3 && all["omitted"] as? Int == 0)
        let one = try json(try sandbox.run("validate", "--format", "json", "--limit", "1", "--score").stdout)
        #expect((one["violations"] as? [Any])?.count == 1)
        #expect(one["omitted"] as? Int == total - 1)
        #expect(one["errors"] as? Int == all["errors"] as? Int, "the counts cover every violation")
        #expect(one["stats"] == nil)

        let none = try sandbox.run("validate", "--limit", "0", "--stats")
        #expect(none.status == 1)
        #expect(!none.stdout.contains("no_double_booking"))
        #expect(none.stdout.contains("\(total) violations found, none listed (--limit)"), "\(none.stdout)")
        let two = try sandbox.run("validate", "--limit", "2")
        #expect(two.stdout.contains("… and \(total - 2) more (--limit)"), "\(two.stdout)")
        #expect(none.stdout.contains("stats: 6 shifts, "), "\(none.stdout)")
        let stats = try #require(try json(try sandbox.run("validate", "--stats", "--format", "json").stdout)["stats"] as? [String: Any])
        #expect(stats["shifts"] as? Int == 6)
        for key in ["loadSeconds", "rulesSeconds", "checkSeconds", "reportSeconds"] { #expect(stats[key] is Double, "\(key)") }

        let negative = try sandbox.run("validate", "--limit=-1")
        #expect(negative.status == 2)
        #expect(negative.stderr.contains("--limit must be 0 or more"), "\(negative.stderr)")
    }

    @Test func aBrokenRuleScriptIsReportedWithItsFile() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        try sandbox.write("return rule {\n  id = \"broken\",\n  check = function(\n}\n", to: "bad-rules/broken.lua")
        let before = try #require(sandbox.bytes())
        let result = try sandbox.run("--rules", "bad-rules", "person", "add", "Carol")
        #expect(result.status == 2)
        #expect(result.stderr.contains("broken.lua:"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(sandbox.bytes() == before)

        let missing = try sandbox.run("--rules", "nowhere", "validate")
        #expect(missing.status == 2)
        #expect(missing.stderr.hasPrefix("shiftctl: nowhere: rules folder not found"))
    }

    @Test func rulesListAndTestRunTheStockRules() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        let list = try json(try sandbox.run("rules", "list", "--format", "json").stdout)
        let ids = try #require((list["rules"] as? [[String: Any]])?.compactMap { $0["id"] as? String })
        #expect(ids.contains("no_double_booking"))
        let test = try sandbox.run("rules", "test")
        #expect(test.status == 0, "\(test.stdout)")
        #expect(test.stdout.contains(" 0 failed"))
    }

    @Test func theRosterFitsTheWidthWithoutColourWhenNotATerminal() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        #expect(try sandbox.run("schedule", "add", "--type", "D", "--date", "2026-03-02", "--person", "Alice").status == 0)
        #expect(try sandbox.run("schedule", "add", "--type", "N", "--date", "2026-03-03", "--person", "Bob").status == 0)
        let narrow = try sandbox.run("calendar", "roster", "--from", "2026-03-01", environment: ["COLUMNS": "40"])
        #expect(narrow.status == 0, "\(narrow.stderr)")
        #expect(!narrow.stdout.contains("\u{1B}["))
        let lines = narrow.stdout.split(separator: "\n")
        #expect(lines.allSatisfy { $0.count <= 40 }, "\(narrow.stdout)")
        #expect(lines.contains { $0.hasPrefix("Alice") && $0.contains("D") })

        let roster = try json(try sandbox.run("calendar", "roster", "--from", "2026-03-01", "--days", "3", "--format", "json").stdout)
        #expect(roster["days"] as? [String] == ["2026-03-01", "2026-03-02", "2026-03-03"])
        let rows = try #require(roster["rows"] as? [[String: Any]])
        #expect(rows.first { $0["person"] as? String == "Bob" }?["cells"] as? [[String]] == [[], [], ["N"]])

        let week = try sandbox.run("calendar", "week", "--from", "2026-03-02")
        #expect(week.stdout.hasPrefix("Mon 2026-03-02\n  D  07:00-19:00  Alice"), "\(week.stdout)")
    }

    @Test func completionScriptsAreGenerated() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let result = try sandbox.run("--generate-completion-script", "bash")
        #expect(result.status == 0)
        #expect(result.stdout.contains("shiftctl"))
        #expect(result.stdout.contains("roster"))
    }
}

/// How to run `shiftctl` as a user who may not write a store: as ourselves when we are not root,
/// else as `nobody` through `runuser` (nil when neither works here).
enum ReadOnlyUser {
    static let launcher: [String]? = {
        guard getuid() == 0 else { return [] }
        let runuser = "/usr/sbin/runuser"
        guard FileManager.default.isExecutableFile(atPath: runuser) else { return nil }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: runuser)
        probe.arguments = ["-u", "nobody", "--", CLI.executable.path, "--version"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return nil }
        probe.waitUntilExit()
        return probe.terminationStatus == 0 ? [runuser, "-u", "nobody", "--"] : nil
    }()
}
