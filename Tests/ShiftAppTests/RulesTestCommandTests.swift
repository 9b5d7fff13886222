import Foundation
import TestSupport
import Testing

/// `rules test PATH`: one rule file or a folder; rules without examples show as untested.
@Suite struct RulesTestCommandTests {
    static let tested = """
        return rule {
          id = "no_weekend_nights",
          summary = "Nobody works a night shift on a weekend.",
          on = { "shift" },
          check = function(change, schedule, report)
            local s = change.after
            if s and s.person and s.type.symbol == "N" and cal.is_weekend(s.date) then
              report{ message = s.person.name .. " would work nights on a weekend", shift = s }
            end
          end,
          examples = {
            { given = { types = { N = "22:00-06:00" }, people = { "Bob" } }, add = { "N", "2026-03-07", "Bob" }, expect = "error" },
            { given = { types = { N = "22:00-06:00" }, people = { "Bob" } }, add = { "N", "2026-03-04", "Bob" }, expect = "pass" },
          },
        }

        """
    static let quiet = "return rule { id = \"quiet\", summary = \"Says nothing.\", on = { \"shift\" }, check = function() end }\n"

    @Test func aRuleFileIsTestedByItselfWithoutAStore() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.write(Self.tested, to: "mine/no_weekend_nights.lua")
        try sandbox.write("return rule { id = \"broken\", check = function(\n", to: "mine/broken.lua")
        let result = try sandbox.run("rules", "test", "mine/no_weekend_nights.lua")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == """
            pass  no_weekend_nights: example 1
            pass  no_weekend_nights: example 2
            2 passed, 0 failed (1 rules)

            """)
    }

    @Test func aRuleFileWithoutExamplesOrAFileThatIsNoRuleIsNotPassed() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.write(Self.quiet, to: "quiet.lua")
        let quiet = try sandbox.run("rules", "test", "quiet.lua")
        #expect(quiet.status == 2)
        #expect(quiet.stderr == "shiftctl: nothing to test: the 1 rule in quiet.lua has no examples (add examples = { … }: docs/rules.md)\n")

        let rotation = try sandbox.run("rules", "test", repositoryRoot + "/rules/rotations/pitman.lua")
        #expect(rotation.status == 2)
        #expect(rotation.stderr.hasSuffix("pitman.lua is not a rule (rules test runs the examples of files that return rule { … })\n"), "\(rotation.stderr)")
        let missing = try sandbox.run("rules", "test", "nope.lua")
        #expect(missing.status == 2)
        #expect(missing.stderr == "shiftctl: nope.lua: no such rule file\n")
    }

    @Test func aRuleWithoutExamplesIsListedAsUntested() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.write(Self.tested, to: "mine/no_weekend_nights.lua")
        try sandbox.write(Self.quiet, to: "mine/quiet.lua")
        let result = try sandbox.run("rules", "test", "mine")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("untested  quiet: no examples (mine/quiet.lua)\n"), "\(result.stdout)")
        #expect(result.stdout.hasSuffix("2 passed, 0 failed, 1 rule untested (2 rules)\n"))
        let output = try json(try sandbox.run("rules", "test", "mine", "--format", "json").stdout)
        #expect((output["untested"] as? [[String: Any]])?.map { $0["rule"] as? String } == ["quiet"])
    }
}
