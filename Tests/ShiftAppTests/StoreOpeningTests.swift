import Foundation
import ShiftApp
import ShiftCore
import ShiftStorage
import TestSupport
import Testing

/// What opening a store reads: `validate` over SQLite without the whole schedule in memory, and
/// a change log that bulk changes keep small and only `log` reads.
@Suite struct StoreOpeningTests {
    /// Three shift types and twelve people over sixty days, with a double booking, a short rest
    /// and two shifts on one day every few days: the peers' three constraints find something.
    /// Every fifth shift needs the skill `lead`, which only the even-numbered people have, so
    /// `required_skill` finds shifts by reading their attributes.
    static func roster() throws -> Schedule {
        let types = [("E", "06:00-14:00"), ("L", "14:00-22:00"), ("N", "22:00-06:00")].enumerated().map { n, item in
            ShiftType(id: ShiftTypeID(uuid(n + 1)), symbol: item.0, title: item.0, duration: ShiftDuration(item.1)!)
        }
        let people = (0..<12).map { n in
            Person(id: PersonID(uuid(100 + n)), displayName: "P\(n)", attributes: n % 2 == 0 ? ["skills": .string("lead")] : [:])
        }
        var shifts: [ScheduledShift] = []
        let first = LocalDate("2026-01-05")!
        for day in 0..<60 {
            for (n, person) in people.enumerated() where (day + n) % 7 < 5 {
                var type = types[(day / 7 + n) % 3]
                // Every 9th day someone works the night before an early: a short rest.
                if (day + n) % 9 == 0 { type = types[0] }
                var shift = ScheduledShift(
                    id: ShiftID(uuid(10_000 + shifts.count)), shiftTypeID: type.id, date: first.adding(days: day), personID: person.id)
                if shifts.count % 5 == 0 { shift.attributes = ["skill": .string("lead")] }
                shifts.append(shift)
                if (day * 7 + n) % 23 == 0 {
                    shifts.append(ScheduledShift(
                        id: ShiftID(uuid(10_000 + shifts.count)), shiftTypeID: types[1].id, date: first.adding(days: day), personID: person.id))
                }
            }
        }
        return try Schedule(settings: StoreSettings(timeZoneIdentifier: "Europe/Berlin"), shiftTypes: types, people: people, shifts: shifts)
    }

    static let peerRules = repositoryRoot + "/rules/examples/peers"

    /// The peers' rules (person phases) and the stock rules (person, day and demand phases, and
    /// `balanced_workload`'s whole-schedule phase, which asks the store for each person's hours)
    /// find over SQLite, read person by person, what they find in memory.
    @Test(arguments: [peerRules, stockRules])
    func validateOverSQLiteReadsByPersonAndFindsWhatItFindsInMemory(_ rules: String) throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try JSONFileRepository(path: sandbox.store).write(StoreFileCodec.encode(try Self.roster()))
        #expect(try sandbox.run("migrate", "--to", "schedule.sqlite").status == 0)
        let inMemory = try sandbox.run("validate", "--rules", rules, "--score", "--limit", "0", "--format", "json")
        let overSQLite = try sandbox.run(
            "--store", "schedule.sqlite", "validate", "--rules", rules, "--score", "--limit", "0", "--format", "json")
        #expect(inMemory.status == 1, "the roster breaks the rules: \(inMemory.stderr)")
        #expect(overSQLite.status == inMemory.status, "\(overSQLite.stderr)")
        #expect(try json(overSQLite.stdout)["errors"] as? Int ?? 0 > 0)
        if rules == stockRules {
            let score = try #require(try json(overSQLite.stdout)["score"] as? [String: Any])
            let skill = (score["byRule"] as? [String: Any])?["required_skill"] as? [String: Any]
            #expect(skill?["errors"] as? Int ?? 0 > 0, "required_skill read the shifts' attributes")
        }
        #expect(overSQLite.stdout == inMemory.stdout, "the same findings, in the same order, and the same score")
    }

    @Test(arguments: ["schedule.json", "schedule.sqlite"]) func anImportIsOneLogEntryThatSaysWhatItAdded(_ store: String) throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        #expect(try sandbox.run("--store", store, "init", "--no-rules", "--time-zone", "UTC").status == 0)
        #expect(try sandbox.run("--store", store, "type", "add", "D", "--title", "Day", "--time", "07:00-19:00").status == 0)
        #expect(try sandbox.run("--store", store, "person", "add", "Ann").status == 0)
        let rows = (0..<150).map { "\(LocalDate("2026-01-01")!.adding(days: $0)),D,Ann" }
        try sandbox.write("date,type,person\n" + rows.joined(separator: "\n") + "\n", to: "roster.csv")
        let imported = try sandbox.run("--store", store, "import", "roster.csv")
        #expect(imported.status == 0, "\(imported.stderr)")
        let log = try sandbox.run("--store", store, "log", "--format", "json")
        let entries = try #require(try json(log.stdout)["entries"] as? [[String: Any]])
        let batch = try #require(entries.first)
        #expect(batch["changeType"] as? String == "created")
        #expect(batch["scheduledShiftDate"] as? String == "2026-01-01")
        let created = try #require(batch["createdShifts"] as? [String: Any])
        #expect((created["shiftIDs"] as? [String])?.count == 150)
        #expect(created["lastDate"] as? String == "2026-05-30")
        #expect(entries.count == 1, "one entry for the import: \(entries.count)")
        let text = try sandbox.run("--store", store, "log", "--limit", "1")
        #expect(text.stdout.contains("2026-01-01…2026-05-30") && text.stdout.contains("150 shifts"), "\(text.stdout)")
    }

    /// Every command gives the same through a JSON store's index as from the file read whole:
    /// `validate` (the peers' rules, the stock rules), a listing, a week's roster, an export.
    @Test func aJSONStoreAnswersTheSameThroughItsIndexAsReadWhole() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try JSONFileRepository(path: sandbox.store).write(StoreFileCodec.encode(try Self.roster()))
        let commands: [[String]] = [
            ["validate", "--rules", Self.peerRules, "--score", "--limit", "0", "--format", "json"],
            ["validate", "--rules", stockRules, "--score", "--format", "json"],
            ["schedule", "list", "--from", "2026-01-20", "--to", "2026-01-22", "--format", "json"],
            ["calendar", "roster", "--from", "2026-01-19", "--days", "7"],
            ["export", "--file-format", "ics", "--person", "P3"],
        ]
        let index = JSONFileRepository.indexPath(for: sandbox.store)
        #expect(Self.unstamped("BEGIN:VEVENT\r\nDTSTAMP:20260101T000000Z\r\nEND:VEVENT") == "BEGIN:VEVENT\nEND:VEVENT")
        for command in commands {
            let whole = try sandbox.run(arguments: command, environment: ["SHIFTCTL_JSON_INDEX": "off"])
            #expect(!FileManager.default.fileExists(atPath: index), "off keeps none")
            #expect(whole.status <= 1, "\(command): \(whole.stderr)")
            // Made by the first run, used by the second.
            for _ in 0..<2 {
                let indexed = try sandbox.run(arguments: command, environment: ["SHIFTCTL_JSON_INDEX": "0"])
                #expect(indexed.status == whole.status, "\(command): \(indexed.stderr)")
                #expect(Self.unstamped(indexed.stdout) == Self.unstamped(whole.stdout), "\(command)")
                #expect(FileManager.default.fileExists(atPath: index))
            }
            try FileManager.default.removeItem(atPath: index)
        }
        let bad = try sandbox.run(arguments: ["schedule", "list"], environment: ["SHIFTCTL_JSON_INDEX": "many"])
        #expect(bad.status == 2)
        #expect(bad.stderr == "shiftctl: SHIFTCTL_JSON_INDEX: 'many' is neither off nor a number of shifts\n")
    }

    /// Undoing a JSON store (a failed `migrate` checked its copy by reading it) takes its index.
    @Test func removingAJSONStoresFilesTakesItsIndex() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try JSONFileRepository(path: sandbox.store).write(StoreFileCodec.encode(try Self.roster()))
        _ = try JSONFileRepository(path: sandbox.store, indexThreshold: 0).load()
        let index = JSONFileRepository.indexPath(for: sandbox.store)
        #expect(FileManager.default.fileExists(atPath: index))
        StoreKind.json.removeFiles(at: sandbox.store)
        #expect(!FileManager.default.fileExists(atPath: sandbox.store))
        #expect(!FileManager.default.fileExists(atPath: index))
    }

    /// Output without iCalendar's `DTSTAMP` lines, which say when the export ran (its lines end
    /// in CR LF, one `Character`, so lines are split at any line break).
    static func unstamped(_ text: String) -> String {
        text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).filter { !$0.hasPrefix("DTSTAMP:") }
            .joined(separator: "\n")
    }

    /// A JSON store in a folder the user may not write opens and answers without writing its
    /// index, whether it has none, a current one, or a stale one.
    @Test(.enabled(if: ReadOnlyUser.launcher != nil, "needs a user without write access (runuser and nobody, as root)"))
    func aJSONStoreInAFolderNobodyMayWriteWorksWithoutWritingItsIndex() throws {
        let sandbox = try Sandbox()
        let folder = sandbox.path + "/ro"
        defer {
            chmod(folder, 0o755)
            chmod(folder + "/" + JSONFileRepository.indexFolderName, 0o755)
            sandbox.remove()
        }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let store = folder + "/schedule.json"
        try JSONFileRepository(path: store).write(StoreFileCodec.encode(try Self.roster()))
        let launcher = try #require(ReadOnlyUser.launcher)
        let list = ["--store", "ro/schedule.json", "schedule", "list", "--from", "2026-01-20", "--to", "2026-01-20"]
        let index = ["SHIFTCTL_JSON_INDEX": "0"]
        let expected = try sandbox.run(arguments: list, environment: ["SHIFTCTL_JSON_INDEX": "off"])
        #expect(expected.status == 0 && expected.stdout.contains("2026-01-20"), "\(expected.stderr)")

        chmod(folder, 0o555)
        let none = try sandbox.run(arguments: list, environment: index, launcher: launcher)
        #expect(none.status == 0 && none.stdout == expected.stdout, "\(none.stderr)")
        #expect(!FileManager.default.fileExists(atPath: JSONFileRepository.indexPath(for: store)), "none could be written")

        chmod(folder, 0o755)
        _ = try sandbox.run(arguments: list, environment: index)
        let made = try #require(FileManager.default.contents(atPath: JSONFileRepository.indexPath(for: store)))
        chmod(folder + "/" + JSONFileRepository.indexFolderName, 0o555)
        chmod(folder, 0o555)
        let current = try sandbox.run(arguments: list, environment: index, launcher: launcher)
        #expect(current.status == 0 && current.stdout == expected.stdout, "\(current.stderr)")

        // The store changed behind the index's back: read as it is now, the index left as it was.
        chmod(folder, 0o755)
        let text = try String(contentsOfFile: store, encoding: .utf8)
        try text.replacingOccurrences(of: "\"P3\"", with: "\"Pia\"").write(toFile: store, atomically: false, encoding: .utf8)
        chmod(folder, 0o555)
        let stale = try sandbox.run(arguments: list, environment: index, launcher: launcher)
        #expect(stale.status == 0, "\(stale.stderr)")
        #expect(stale.stdout == expected.stdout.replacingOccurrences(of: "P3 ", with: "Pia"), "\(stale.stdout)")
        #expect(FileManager.default.contents(atPath: JSONFileRepository.indexPath(for: store)) == made)
    }
}
