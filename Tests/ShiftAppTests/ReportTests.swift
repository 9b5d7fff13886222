import Foundation
@testable import ShiftApp
import ShiftCore
import Testing

/// What reports say about findings (issue 35, items 5 and 7): where a finding comes from, which
/// shift type it is about, repeated findings grouped for people, and scores per severity.
@Suite struct ReportTests {
    /// A rule whose findings come from known lines: its own `report` call (line 7) and one in a
    /// helper module (line 3 of rules/lib/flag.lua).
    static let ruleFile = """
        local flag = require("lib.flag")
        return rule {
          id = "always",
          summary = "Reports from its own line and from a helper.",
          severity = "warning",
          validate = function(schedule, report)
            report{ message = "from the rule" }
            flag.raise(report)
          end,
        }

        """
    static let helperFile = """
        local M = {}
        function M.raise(report)
          report("from the helper")
        end
        return M

        """

    func withLineRule() throws -> Sandbox {
        let sandbox = try Sandbox.withTeam()
        try sandbox.write(Self.ruleFile, to: "rules/always.lua")
        try sandbox.write(Self.helperFile, to: "rules/lib/flag.lua")
        return sandbox
    }

    @Test func annotationsPointAtTheLineOfTheReportCallRelativeToTheWorkingFolder() throws {
        let sandbox = try withLineRule()
        let github = try sandbox.run("validate", "--format", "github")
        #expect(github.status == 0, "\(github.stderr)")
        #expect(github.stdout.contains("::warning file=rules/always.lua,line=7::from the rule (always)\n"), "\(github.stdout)")
        #expect(github.stdout.contains("::warning file=rules/lib/flag.lua,line=3::from the helper (always)\n"), "\(github.stdout)")

        let report = try json(try sandbox.run("validate", "--format", "json").stdout)
        let sources = (report["violations"] as? [[String: Any]] ?? []).compactMap { $0["source"] as? String }.sorted()
        #expect(sources == ["rules/always.lua:7", "rules/lib/flag.lua:3"])
    }

    @Test func aRuleOutsideTheWorkingFolderKeepsItsAbsolutePath() {
        let violation = Violation(ruleID: "x", severity: .warning, message: "m", source: "/team/rules/x.lua", line: 3)
        #expect(ViolationOutput(violation, schedule: nil, directory: "/team").source == "rules/x.lua:3")
        #expect(ViolationOutput(violation, schedule: nil, directory: "/elsewhere").source == "/team/rules/x.lua:3")
        #expect(ViolationOutput(violation, schedule: nil, directory: "/te").source == "/team/rules/x.lua:3")
    }

    @Test func aRejectedSwitchShowsTheTypeItWouldHaveHad() throws {
        let sandbox = try Sandbox.withTeam()
        #expect(try sandbox.run("schedule", "add", "--type", "D", "--date", "2026-03-03", "--person", "Alice").status == 0)
        let added = try json(try sandbox.run("schedule", "add", "--type", "D", "--date", "2026-03-02", "--person", "Alice",
                                             "--format", "json").stdout)
        let id = try #require(added["id"] as? String)
        // A night from the 2nd to 07:00 on the 3rd leaves no rest before the day shift of the 3rd.
        let text = try sandbox.run("switch", String(id.prefix(8)), "--to", "N")
        #expect(text.status == 1)
        let row = try #require(text.stdout.split(separator: "\n").first { $0.contains("min_rest_between_shifts") })
        #expect(row.hasPrefix("2026-03-02  Alice   N "), "\(text.stdout)")

        let report = try json(try sandbox.run("switch", String(id.prefix(8)), "--to", "N", "--format", "json").stdout)
        let finding = try #require((report["violations"] as? [[String: Any]])?.first { $0["shiftID"] as? String == id })
        #expect(finding["type"] as? String == "N")
    }

    @Test func demandFindingsNameTheDemandsShiftTypeAndScoresCountEachSeverity() throws {
        let sandbox = try Sandbox.withTeam()
        #expect(try sandbox.run("schedule", "add", "--type", "D", "--date", "2026-03-02", "--person", "Alice").status == 0)
        #expect(try sandbox.run("demand", "add", "--type", "N", "--date", "2026-03-02", "--min", "1", "--optimal", "2").status == 0)
        let text = try sandbox.run("validate", "--score")
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("2026-03-02  -       N     warning   meets_demand  N needs at least 1, has 0"), "\(text.stdout)")
        #expect(text.stdout.contains("  meets_demand: 1 × warning + 1 × penalty, penalty 2\n"), "\(text.stdout)")
        #expect(text.stdout.contains("  no_double_booking: 0 × error, penalty 0\n"))

        let report = try json(try sandbox.run("validate", "--score", "--format", "json").stdout)
        let findings = report["violations"] as? [[String: Any]] ?? []
        #expect(findings.count == 2 && findings.allSatisfy { $0["type"] as? String == "N" }, "\(findings)")
        let score = try #require((report["score"] as? [String: Any])?["byRule"] as? [String: [String: Any]])
        let demand = try #require(score["meets_demand"])
        #expect(demand["count"] as? Int == 2)
        #expect(demand["warnings"] as? Int == 1 && demand["penalties"] as? Int == 1 && demand["errors"] as? Int == 0)
    }

    @Test func repeatedFindingsShareARowInTextAndJSONKeepsEach() throws {
        let sandbox = try Sandbox.withTeam()
        // A week of the planning period with no night staffed: one row per severity, not fourteen.
        #expect(try sandbox.run("schedule", "add", "--type", "D", "--date", "2026-03-02", "--person", "Alice").status == 0)
        #expect(try sandbox.run("schedule", "add", "--type", "D", "--date", "2026-03-08", "--person", "Alice").status == 0)
        for day in ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"] {
            #expect(try sandbox.run("demand", "add", "--type", "N", "--weekday", day, "--min", "1").status == 0)
        }
        let text = try sandbox.run("validate")
        let rows = text.stdout.split(separator: "\n").filter { $0.contains("meets_demand") }
            .map { $0.replacing(#/ +/#, with: " ") }
        #expect(rows == ["2026-03-02..03-08 - N warning meets_demand N needs at least 1, has 0 (×7)",
                         "2026-03-02..03-08 - N penalty meets_demand N is 1 short of the optimal 1 (×7)"], "\(text.stdout)")
        #expect(text.stdout.contains(#/\(\d+ findings in \d+ rows: /#), "\(text.stdout)")
        let report = try json(try sandbox.run("validate", "--format", "json").stdout)
        #expect((report["violations"] as? [[String: Any]])?.filter { $0["rule"] as? String == "meets_demand" }.count == 14)
    }

    @Test func aRejectedImportGroupsEachPersonsRepeatedFindings() throws {
        let sandbox = try Sandbox.withTeam()
        // Alice twice a day for ten days: one_shift_per_day on each, a run over two weeks.
        var csv = "date,type,person\n"
        for day in 2...11 {
            let date = String(format: "2026-03-%02d", day)
            csv += "\(date),D,Alice\n\(date),D,Bob\n\(date),N,Bob\n"
        }
        try sandbox.write(csv, to: "twice.csv")
        let result = try sandbox.run("import", "twice.csv")
        #expect(result.status == 1)
        let rows = result.stdout.split(separator: "\n").filter { $0.contains("one_shift_per_day") }
        #expect(rows.count == 1, "\(result.stdout)")
        #expect(rows.first?.hasPrefix("2026-03-02..03-11  Bob") == true, "\(result.stdout)")
        #expect(rows.first?.hasSuffix("(×20)") == true, "two findings a day, \(result.stdout)")
        #expect(result.stdout.split(separator: "\n").count < 10, "a row per rule and person: \(result.stdout)")
    }
}
