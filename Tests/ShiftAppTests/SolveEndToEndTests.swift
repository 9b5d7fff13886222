import Foundation
import ShiftCore
import Testing
import TestSupport

/// `shiftctl solve` as a user runs it: the plan, the write through the funnel, exit codes.
@Suite struct SolveEndToEndTests {
    /// A team of three, day demand of two a day for a week, one open night.
    private func ward() throws -> Sandbox {
        let sandbox = try Sandbox.withTeam()
        for day in ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"] {
            let result = try sandbox.run("demand", "add", "--type", "D", "--weekday", day, "--min", "1", "--optimal", "2")
            #expect(result.status == 0, "\(result.stderr)")
        }
        #expect(try sandbox.run("schedule", "add", "--type", "N", "--date", "2026-03-04").status == 0)
        return sandbox
    }

    @Test func aDryRunShowsThePlanAndWritesNothing() throws {
        let sandbox = try ward()
        defer { sandbox.remove() }
        let before = sandbox.bytes()
        let result = try sandbox.run("solve", "--from", "2026-03-02", "--to", "2026-03-08", "--dry-run", "--moves", "2000", "--format", "json")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(sandbox.bytes() == before)
        let output = try json(result.stdout)
        #expect(output["dryRun"] as? Bool == true)
        #expect(output["written"] as? Bool == false)
        #expect((output["added"] as? [Any])?.count == 14)
        #expect(output["overstaffed"] as? Int == 0)
        #expect((output["assigned"] as? [[String: Any]])?.first?["date"] as? String == "2026-03-04")
        let after = try #require(output["after"] as? [String: Any])
        #expect(after["hardViolations"] as? Int == 0)
        #expect(after["warnings"] as? Int == 0)
        #expect(result.stderr.isEmpty || result.stderr.hasPrefix("solve:"), "\(result.stderr)")
    }

    /// Written as one batch, and the store's own validate agrees with the solve's score.
    @Test func theWrittenRosterScoresAsTheSolveSaid() throws {
        let sandbox = try ward()
        defer { sandbox.remove() }
        let solved = try sandbox.run("solve", "--from", "2026-03-02", "--to", "2026-03-08", "--moves", "2000", "--quiet", "--format", "json")
        #expect(solved.status == 0, "\(solved.stderr)")
        #expect(solved.stderr.isEmpty)
        let output = try json(solved.stdout)
        #expect(output["written"] as? Bool == true)
        let after = try #require(output["after"] as? [String: Any])

        let validated = try json(try sandbox.run("validate", "--score", "--format", "json").stdout)
        let score = try #require(validated["score"] as? [String: Any])
        #expect(score["hardViolations"] as? Int == after["hardViolations"] as? Int)
        #expect(score["warnings"] as? Int == after["warnings"] as? Int)
        #expect(score["softPenalty"] as? Double == after["softPenalty"] as? Double)
        let schedule = try sandbox.schedule()
        #expect(schedule.shifts(ShiftQuery(from: LocalDate("2026-03-02")!, to: LocalDate("2026-03-08")!)).allSatisfy { $0.personID != nil })
        #expect(schedule.settings.extra["horizon.first"] == .string("2026-03-02"))
        // The open night was given to someone, with the solve's reason in the change log.
        let log = try sandbox.run("log", "--limit", "50")
        #expect(log.stdout.contains("reassigned  2026-03-04  N (open)"), "\(log.stdout)")
        #expect(log.stdout.contains("shiftctl solve"), "\(log.stdout)")
    }

    /// A rule that wants everyone on four days of a week that needs seven shifts: with
    /// `--overstaff` the plan staffs five beyond the demand's optimal, and says so.
    @Test func overstaffingIsCountedInThePlan() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        for day in ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"] {
            #expect(try sandbox.run("demand", "add", "--type", "D", "--weekday", day, "--min", "1").status == 0)
        }
        try sandbox.write(SampleRules.fourDays, to: "wants/four_days.lua")
        let window = ["--from", "2026-03-02", "--to", "2026-03-08", "--moves", "3000", "--quiet"]
        let plain = try json(try sandbox.run(arguments: ["--rules", "wants", "solve"] + window + ["--dry-run", "--format", "json"]).stdout)
        #expect(plain["overstaffed"] as? Int == 0)
        #expect((plain["added"] as? [Any])?.count == 7)
        let solved = try sandbox.run(arguments: ["--rules", "wants", "solve", "--overstaff", "1"] + window)
        #expect(solved.status == 0, "\(solved.stderr)")
        #expect(solved.stdout.contains("plan: 12 shifts added (5 beyond the demand's optimal)"), "\(solved.stdout)")
        let validated = try json(try sandbox.run("--rules", "wants", "validate", "--score", "--format", "json").stdout)
        #expect((validated["score"] as? [String: Any])?["softPenalty"] as? Double == 0)
    }

    @Test func demandNobodyCanMeetIsListedWithExitOne() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        #expect(try sandbox.run("demand", "add", "--type", "D", "--date", "2026-03-03", "--min", "4", "--optimal", "4").status == 0)
        let result = try sandbox.run("solve", "--from", "2026-03-03", "--to", "2026-03-03", "--moves", "500", "--quiet")
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("unfilled:"))
        #expect(result.stdout.contains("2026-03-03  D     -      demand"), "\(result.stdout)")
        #expect(result.stdout.contains("one_shift_per_day") || result.stdout.contains("no_double_booking"))
        // The three shifts that fit are written all the same.
        #expect(try sandbox.schedule().shifts(.on(LocalDate("2026-03-03")!)).count == 3)
    }

    @Test func nothingToSolveSaysSoAndExitsZero() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        let result = try sandbox.run("solve", "--from", "2026-03-02", "--to", "2026-03-08")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "nothing to solve: no open shifts or demand from 2026-03-02 to 2026-03-08\n")
    }

    @Test(arguments: [
        (["solve"], "--from: give the window to plan with --from and --to (or set the store's horizon.first and horizon.last)"),
        (["solve", "--from", "2026-03-09", "--to", "2026-03-02"], "--to: 2026-03-02 is before --from 2026-03-09"),
        (["solve", "--from", "2026-03-02", "--to", "2026-03-08", "--time-limit", "0"], "--time-limit: must be more than 0 seconds"),
        (["solve", "--from", "2026-03-02", "--to", "2026-03-08", "--workers", "0"], "--workers: must be 1 or more"),
        (["solve", "--from", "2026-03-02", "--to", "2026-03-08", "--overstaff", "-1"], "--overstaff: must be 0 or more"),
        (["solve", "--from", "2026-13-02", "--to", "2026-03-08"], "--from"),
    ])
    func badInputIsOneLineAndExitTwo(_ arguments: [String], _ message: String) throws {
        let sandbox = try ward()
        defer { sandbox.remove() }
        let before = sandbox.bytes()
        let result = try sandbox.run(arguments: arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(sandbox.bytes() == before)
    }

    /// A rule that fails in the middle of the search: its file:line, exit 2, nothing written.
    @Test func aRuleErrorStopsTheSolveWithItsLineAndWritesNothing() throws {
        let sandbox = try ward()
        defer { sandbox.remove() }
        try sandbox.write("""
            return rule {
              id = "no_thursdays",
              summary = "Breaks on a Thursday shift.",
              validate_day = function(date, schedule, report)
                if cal.weekday(date) == 4 and schedule:count{ date = date } > 0 then
                  error("cannot judge Thursdays")
                end
              end,
            }
            """, to: "rules/no_thursdays.lua")
        let before = sandbox.bytes()
        let result = try sandbox.run("solve", "--from", "2026-03-02", "--to", "2026-03-08", "--moves", "500", "--quiet")
        #expect(result.status == 2, "\(result.stdout)")
        #expect(result.stderr.contains("no_thursdays.lua:6"), "\(result.stderr)")
        #expect(result.stderr.contains("cannot judge Thursdays"))
        #expect(sandbox.bytes() == before)
    }
}

extension SolveEndToEndTests {
    /// A rule that guards edits but finds nothing in `validate` (a frozen schedule): the solve's
    /// plan scores clean, the funnel refuses it, and it is shown and not written.
    @Test func aRosterTheRulesRefuseIsShownAndNotWritten() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        #expect(try sandbox.run("schedule", "add", "--type", "N", "--date", "2026-03-02").status == 0)
        try sandbox.write("""
            return rule {
              id = "frozen",
              summary = "Shifts may not be edited any more.",
              on = { "shift" },
              check = function(change, schedule, report)
                if not change.validating then report{ message = "the schedule is frozen", shift = change.after or change.before } end
              end,
            }
            """, to: "rules/frozen.lua")
        let before = sandbox.bytes()
        let result = try sandbox.run("solve", "--from", "2026-03-02", "--to", "2026-03-03", "--moves", "300", "--quiet", "--format", "json")
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let output = try json(result.stdout)
        #expect(output["written"] as? Bool == false)
        #expect((output["refused"] as? [[String: Any]])?.first?["rule"] as? String == "frozen")
        #expect((output["slowRules"] as? [String]) == ["balanced_workload", "frozen"])
        #expect(result.stderr == "shiftctl: the rules refused the roster (1 violation); nothing was written\n", "\(result.stderr)")
        #expect(sandbox.bytes() == before)
    }
}

extension SolveEndToEndTests {
    /// No rule in force: solve would plan against nothing, so it refuses (#35: rules fail closed).
    @Test func solveRefusesToPlanWithoutRules() throws {
        let sandbox = try ward()
        defer { sandbox.remove() }
        try FileManager.default.createDirectory(atPath: sandbox.path + "/empty", withIntermediateDirectories: true)
        let before = sandbox.bytes()
        let result = try sandbox.run("--rules", "empty", "solve", "--from", "2026-03-02", "--to", "2026-03-08", "--dry-run")
        #expect(result.status == 2)
        #expect(result.stderr.contains("no rules loaded from empty"), "\(result.stderr)")
        #expect(sandbox.bytes() == before)
    }
}
