import Foundation
import ShiftCore
import ShiftStorage
import Testing

/// A command that checks or changes the schedule never goes ahead unchecked by mistake: with no
/// rule in force it refuses (exit 2, one line, the store untouched), unless the user chose to run
/// without rules (`--no-rules`, or a store made with `init --no-rules`).
@Suite struct NoRulesTests {
    static let refusal = "shiftctl: no rules loaded from empty (from --rules), so nothing would be checked; "
        + "pass --rules with a folder of rules, or --no-rules to go ahead without rules\n"

    /// The team store with Alice booked twice on 2026-03-02 (written with `--no-rules`), so the
    /// stock rules find an error, and an empty folder `empty/`.
    static func doubleBooked() throws -> Sandbox {
        let sandbox = try Sandbox.withTeam()
        for type in ["D", "D"] {
            let result = try sandbox.run("--no-rules", "schedule", "add", "--type", type, "--date", "2026-03-02", "--person", "Alice")
            #expect(result.status == 0, "\(result.stderr)")
        }
        try FileManager.default.createDirectory(atPath: sandbox.path + "/empty", withIntermediateDirectories: true)
        return sandbox
    }

    @Test func validateWithAnEmptyRulesFolderRefusesInsteadOfPassing() throws {
        let sandbox = try Self.doubleBooked()
        defer { sandbox.remove() }
        #expect(try sandbox.run("validate").status == 1, "the store's own rules find the double booking")

        let result = try sandbox.run("--rules", "empty", "validate")
        #expect(result.status == 2)
        #expect(result.stderr == Self.refusal)
        #expect(result.stdout.isEmpty)
    }

    @Test func validateWithAFolderOfOnlyRotationsRefuses() throws {
        let sandbox = try Self.doubleBooked()
        defer { sandbox.remove() }
        let result = try sandbox.run("--rules", "rules/rotations", "validate", "--format", "json")
        #expect(result.status == 2)
        #expect(result.stderr == "shiftctl: no rules loaded from rules/rotations (from --rules), so nothing would be checked; "
            + "pass --rules with a folder of rules, or --no-rules to go ahead without rules\n")
        #expect(result.stdout.isEmpty)
    }

    @Test(arguments: [
        ["schedule", "add", "--type", "N", "--date", "2026-03-03", "--person", "Bob"],
        ["person", "add", "Zed"],
        ["location", "add", "Ward B"],
        ["demand", "add", "--type", "D", "--weekday", "monday", "--min", "1"],
        ["import", "team.csv"],
        ["rotate", "panama", "--team", "A=Bob", "--from", "2026-04-06", "--to", "2026-04-12"],
        ["rotate", "panama", "--team", "A=Bob", "--from", "2026-04-06", "--to", "2026-04-12", "--dry-run"],
        ["run", "rules/scripts/hand_over.lua", "Alice", "Bob", "2026-03-01", "2026-03-08", "leave"],
        ["log", "prune", "--older-than", "1d"],
    ])
    func aChangeWithAnEmptyRulesFolderIsRefusedAndNothingIsWritten(_ command: [String]) throws {
        let sandbox = try Self.doubleBooked()
        defer { sandbox.remove() }
        try sandbox.write("date,type,person\n2026-03-04,D,Bob\n", to: "team.csv")
        let before = try #require(sandbox.bytes())
        let result = try sandbox.run(arguments: ["--rules", "empty"] + command)
        #expect(result.status == 2, "\(command)")
        #expect(result.stderr == Self.refusal, "\(command)")
        #expect(sandbox.bytes() == before, "\(command) left the store as it was")
    }

    @Test func noRulesGoesAheadAndSaysNothingWasChecked() throws {
        let sandbox = try Self.doubleBooked()
        defer { sandbox.remove() }
        #expect(try sandbox.schedule().shifts().count == 2, "--no-rules wrote the double booking")
        let result = try sandbox.run("--no-rules", "validate")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "ok: no rules in force (--no-rules), nothing checked (2 shifts)\n")
        #expect(result.stderr.isEmpty)
    }

    @Test func noRulesWithRulesIsAUsageError() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        let result = try sandbox.run("--no-rules", "--rules", "rules", "validate")
        #expect(result.status == 2)
        #expect(result.stderr == "shiftctl: --no-rules cannot be used with --rules; pass one or the other (see shiftctl help)\n")
    }

    @Test func aStoreCreatedWithoutRulesRunsWithoutThem() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let created = try sandbox.run("init", "--no-rules", "--time-zone", "UTC")
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout.contains("no rules: changes and validate will not be checked (the store records rules.none = true)"))
        #expect(try sandbox.schedule().settings.extra["rules.none"] == .bool(true))
        for arguments in [["type", "add", "D", "--time", "07:00-19:00"], ["person", "add", "Ann"],
                          ["schedule", "add", "--type", "D", "--date", "2026-03-02", "--person", "Ann"],
                          ["schedule", "add", "--type", "D", "--date", "2026-03-02", "--person", "Ann"]] {
            let result = try sandbox.run(arguments: arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
        let validated = try sandbox.run("validate")
        #expect(validated.status == 0, "\(validated.stderr)")
        #expect(validated.stdout == "ok: no rules in force (the store's rules.none), nothing checked (2 shifts)\n")
    }

    @Test func aStoreThatRecordsNoRulesFolderRefusesChanges() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        // A store made by hand (or by an older shiftctl's init --no-rules): no rules settings.
        try Data(StoreFileCodec.encode(try Schedule(settings: StoreSettings(timeZoneIdentifier: "UTC"))))
            .write(to: URL(fileURLWithPath: sandbox.store))
        let before = try #require(sandbox.bytes())
        let result = try sandbox.run("person", "add", "Ann")
        #expect(result.status == 2)
        #expect(result.stderr == "shiftctl: no rules loaded: no rules folder (the store records no rules.directories and there is no ./rules), "
            + "so nothing would be checked; pass --rules DIR, or --no-rules to go ahead without rules\n")
        #expect(sandbox.bytes() == before)
        #expect(try sandbox.run("--no-rules", "person", "add", "Ann").status == 0)
    }

    @Test func everyRuleDisabledCountsAsNoRule() async throws {
        let sandbox = try Self.doubleBooked()
        defer { sandbox.remove() }
        let list = try json(try sandbox.run("rules", "list", "--format", "json").stdout)
        let ids = try #require((list["rules"] as? [[String: Any]])?.compactMap { $0["id"] as? String })
        try await sandbox.updateSettings { $0.extra["rules.disabled"] = .list(ids.map { .string($0) }) }

        let result = try sandbox.run("validate")
        #expect(result.status == 2)
        #expect(result.stderr == "shiftctl: all \(ids.count) rules in rules (from the store's rules.directories) are disabled by the store's "
            + "rules.disabled, so nothing would be checked; enable one, or pass --no-rules to go ahead without rules\n")

        try await sandbox.updateSettings { $0.extra["rules.none"] = .bool(true) }
        #expect(try sandbox.run("validate").status == 0, "a store that runs without rules on purpose")
    }

    @Test func rulesTestWithNothingToTestFails() throws {
        let sandbox = try Self.doubleBooked()
        defer { sandbox.remove() }
        let empty = try sandbox.run("rules", "test", "empty")
        #expect(empty.status == 2)
        #expect(empty.stderr == "shiftctl: no rules to test in empty; pass a folder of rules or a rule file: shiftctl rules test PATH\n")
        #expect(try sandbox.run("rules", "test", "rules/rotations").status == 2)

        try sandbox.write("return rule { id = \"quiet\", summary = \"Says nothing.\", on = { \"shift\" }, check = function() end }\n",
                          to: "untested/quiet.lua")
        let untested = try sandbox.run("rules", "test", "untested")
        #expect(untested.status == 2)
        #expect(untested.stderr == "shiftctl: nothing to test: the 1 rule in untested has no examples (add examples = { … }: docs/rules.md)\n")
    }

    @Test func rulesThatReplaceTheStoresFoldersAreNoted() throws {
        let sandbox = try Self.doubleBooked()
        defer { sandbox.remove() }
        let replaced = try sandbox.run("--rules", "rules/examples/peers", "validate")
        #expect(replaced.status == 1, "the peers' rules find the overlap")
        #expect(replaced.stderr == "shiftctl: note: --rules replaces the store's rules folders (rules) for this command\n")

        let same = try sandbox.run("--rules", "rules", "validate")
        #expect(same.status == 1)
        #expect(same.stderr.isEmpty, "the folders the store records: nothing to note")
    }
}

extension Sandbox {
    /// Changes the store's settings directly (no rules involved).
    func updateSettings(_ change: (inout StoreSettings) -> Void) async throws {
        let store = try ScheduleStore(repository: JSONFileRepository(path: self.store))
        var settings = await store.schedule.settings
        change(&settings)
        try await store.apply(.updateSettings(settings))
    }
}
