import Foundation
import ShiftCore
import ShiftStorage
import ShiftStoragePostgres
import ShiftStorageSQLite
import Testing
import TestSupport

/// `shiftctl migrate` between the JSON and SQLite stores, and the CLI over a SQLite store.
@Suite struct MigrateTests {
    /// A JSON store with a bit of everything: attributes, notes, demand, availability, a switch, a
    /// removal, a custom setting and a rejected change (which must leave no trace).
    private func richStore() throws -> Sandbox {
        let sandbox = try Sandbox.withTeam()
        for arguments in [
            ["person", "update", "Alice", "--attr", "skills=nurse,lead", "--attr", "fte=0.8"],
            ["type", "update", "D", "--attr", "paid=true"],
            ["location", "update", "Ward A", "--address", "Main St 1", "--attr", "floor=3"],
            ["schedule", "add", "--type", "D", "--date", "2026-03-02", "--person", "Alice", "--notes", "first day\nbring badge"],
            ["schedule", "add", "--type", "N", "--date", "2026-03-03", "--person", "Bob"],
            ["schedule", "add", "--type", "D", "--date", "2026-03-04"],
            ["demand", "add", "--type", "D", "--weekday", "monday", "--min", "1", "--optimal", "2"],
            ["demand", "add", "--type", "N", "--date", "2026-03-03", "--min", "1", "--optimal", "1", "--skill", "nurse"],
            ["availability", "add", "--person", "Bobby", "--from", "2026-03-02", "--to", "2026-03-08", "--kind", "unavailable"],
            ["availability", "add", "--person", "Alice", "--from", "2026-03-05", "--kind", "desired", "--weight", "2.5"],
        ] {
            let result = try sandbox.run(arguments: arguments)
            try #require(result.status == 0, "\(arguments): \(result.stderr)")
        }
        let shifts = try sandbox.schedule().shifts()
        #expect(try sandbox.run(arguments: ["switch", String(shifts[1].id.description.prefix(8)), "--to", "D", "--reason", "swap"]).status == 0)
        #expect(try sandbox.run(arguments: ["schedule", "remove", String(shifts[2].id.description.prefix(8)), "--reason", "not needed"]).status == 0)
        #expect(try sandbox.run(arguments: ["schedule", "add", "--type", "D", "--date", "2026-03-02", "--person", "Alice"]).status == 1)
        return sandbox
    }

    @Test func jsonToSQLiteToJSONIsIdentical() throws {
        let sandbox = try richStore()
        defer { sandbox.remove() }
        let original = try #require(sandbox.bytes())

        let toSQLite = try sandbox.run("migrate", "--to", "copy.sqlite")
        #expect(toSQLite.status == 0, "\(toSQLite.stderr)")
        #expect(toSQLite.stdout.contains("migrated ./schedule.json to copy.sqlite (sqlite): 2 shifts, 3 people"), "\(toSQLite.stdout)")
        let back = try sandbox.run("--store", "copy.sqlite", "migrate", "--to", "back.json")
        #expect(back.status == 0, "\(back.stderr)")

        #expect(sandbox.bytes("back.json") == original, "json → sqlite → json gives the same file, byte for byte")
        #expect(sandbox.bytes() == original, "the original is untouched")
        let sqlite = try SQLiteRepository(path: sandbox.path + "/copy.sqlite").load().0
        #expect(try sqlite.materialized() == (try sandbox.schedule()))
        #expect(sqlite.changeLog.count == 5)
    }

    /// JSON → PostgreSQL → JSON gives the same file byte for byte: every id, attribute, setting
    /// and change-log entry survives the server, and the schedule on the server reads back equal.
    @Test(.enabled(if: PostgresTestServer.enabled, PostgresTestServer.skipReason))
    func jsonToPostgresToJSONIsIdentical() throws {
        let sandbox = try richStore()
        defer { sandbox.remove() }
        let original = try #require(sandbox.bytes())
        let url = try PostgresTestServer.freshScheduleURL()

        let toServer = try sandbox.run("migrate", "--to", url)
        #expect(toServer.status == 0, "\(toServer.stderr)")
        #expect(toServer.stdout.contains("(postgres): 2 shifts, 3 people, 2 shift types, 1 location, 5 change-log entries"), "\(toServer.stdout)")
        #expect(toServer.stderr.isEmpty, "no progress when stderr is not a terminal: \(toServer.stderr)")
        let server = try PostgresRepository(url: url).load().0
        #expect(try server.materialized() == (try sandbox.schedule()))
        #expect(server.changeLog.count == 5)
        #expect(Array(server.changeLog) == Array(try sandbox.schedule().changeLog), "the change log, entry for entry")

        let back = try sandbox.run("--store", url, "migrate", "--to", "back.json")
        #expect(back.status == 0, "\(back.stderr)")
        #expect(sandbox.bytes("back.json") == original, "json → postgres → json gives the same file, byte for byte")
        #expect(sandbox.bytes() == original, "the original is untouched")

        let again = try sandbox.run("migrate", "--to", url)
        #expect(again.status == 2, "the schedule exists on the server now")
        #expect(again.stderr.contains("already exists"), "\(again.stderr)")

        // On a terminal (`script` gives the command one), the rows written show as they go.
        let shown = try runProgram("/usr/bin/script", ["-qec", "\(CLI.executable.path) --store \(sandbox.store) migrate --to '\(try PostgresTestServer.freshScheduleURL())'", "/dev/null"])
        #expect(shown.status == 0, "\(shown.stdout)")
        #expect(shown.stdout.contains("migrate: 100% ("), "progress on the terminal: \(shown.stdout)")
    }

    @Test func theCommandsWorkOnTheSQLiteStoreAsOnJSON() throws {
        let sandbox = try richStore()
        defer { sandbox.remove() }
        #expect(try sandbox.run("migrate", "--to", "s.sqlite").status == 0)
        for arguments in [["schedule", "list"], ["person", "list"], ["log", "show"], ["validate", "--score"],
                          ["calendar", "--from", "2026-03-02", "--days", "7"], ["export", "--file-format", "csv"]] {
            let json = try sandbox.run(arguments: arguments)
            let sqlite = try sandbox.run(arguments: ["--store", "s.sqlite"] + arguments)
            #expect(sqlite.status == json.status, "\(arguments): \(sqlite.stderr)")
            #expect(sqlite.stdout == json.stdout, "\(arguments)")
        }
        // A rejected change over SQLite writes nothing; an accepted one is there for the next process.
        let before = try SQLiteRepository(path: sandbox.path + "/s.sqlite").revision()
        let rejected = try sandbox.run("--store", "s.sqlite", "schedule", "add", "--type", "D", "--date", "2026-03-02", "--person", "Alice")
        #expect(rejected.status == 1)
        #expect(rejected.stdout.contains("no_double_booking"))
        #expect(try SQLiteRepository(path: sandbox.path + "/s.sqlite").revision() == before)
        #expect(try sandbox.run("--store", "s.sqlite", "schedule", "add", "--type", "N", "--date", "2026-03-09", "--person", "Bobby").status == 0)
        let listed = try sandbox.run("--store", "s.sqlite", "schedule", "list", "--person", "Bobby")
        #expect(listed.stdout.contains("2026-03-09"), "\(listed.stdout)")
    }

    @Test func migrateRefusesWhatItCannotDoAndWritesNothing() throws {
        let sandbox = try richStore()
        defer { sandbox.remove() }
        try sandbox.write("keep me", to: "taken.sqlite")
        for (arguments, says) in [
            (["migrate", "--to", "taken.sqlite"], "already exists"),
            (["migrate", "--to", "copy.xml"], "unsupported store type"),
            (["migrate", "--to", "./schedule.json"], "is the store itself"),
            (["--store", "missing.json", "migrate", "--to", "x.sqlite"], "no schedule store here"),
        ] {
            let files = try FileManager.default.contentsOfDirectory(atPath: sandbox.path).sorted()
            let result = try sandbox.run(arguments: arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.hasPrefix("shiftctl: ") && result.stderr.contains(says), "\(arguments): \(result.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.path).sorted() == files, "\(arguments): no file written")
        }
        #expect(String(decoding: try #require(sandbox.bytes("taken.sqlite")), as: UTF8.self) == "keep me")
    }

    @Test func initCreatesASQLiteStoreByItsExtension() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let created = try sandbox.run("--store", "team.sqlite", "init", "--time-zone", "UTC")
        #expect(created.status == 0, "\(created.stderr)")
        #expect(try sandbox.run("--store", "team.sqlite", "person", "add", "Alice").status == 0)
        let schedule = try SQLiteRepository(path: sandbox.path + "/team.sqlite").load().0
        #expect(schedule.people.map(\.displayName) == ["Alice"])
        #expect(schedule.settings.timeZoneIdentifier == "UTC")
        let again = try sandbox.run("--store", "team.sqlite", "init")
        #expect(again.status == 2 && again.stderr.contains("team.sqlite"), "\(again.stderr)")
    }
}
