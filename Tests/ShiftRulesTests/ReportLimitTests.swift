import Foundation
import Testing
import ShiftCore
import TestSupport
@testable import ShiftRules

/// The report limits bound one call into a rule, not a whole evaluation: a roster with more
/// findings than the limit is counted in full, while a rule that floods inside one call is still
/// stopped and named.
@Suite struct ReportLimitTests {
    /// `count` shifts of Bob's, one a day from 2026-03-02.
    private func roster(_ count: Int) throws -> Schedule {
        let w = World()
        let shifts = (0..<count).map { n in
            Mutation.scheduleShift(ScheduledShift(id: ShiftID(uuid(1_000 + n)), shiftTypeID: w.day.id,
                                                  date: date("2026-03-02").adding(days: n), personID: w.bob.id))
        }
        return try Schedule(settings: StoreSettings(timeZoneIdentifier: "Europe/Berlin")).applying(.batch([w.setup] + shifts)).schedule
    }

    private func engine(_ folder: RuleFolder, reportsPerCall: Int, workers: Int = 1) throws -> RuleEngine {
        var configuration = RuleEngineConfiguration(directories: [folder.path], now: { fixedNow })
        configuration.reportsPerCall = reportsPerCall
        configuration.workers = workers
        return try RuleEngine(configuration)
    }

    /// Reports each shift it checks `per` times (from `check`: 128 shifts a call).
    private static func everyShift(per: Int) -> String {
        """
        return rule {
          id = "every_shift", summary = "Reports every shift.", severity = "error", on = { "shift" },
          check = function(change, schedule, report)
            for i = 1, \(per) do report{ message = "shift " .. i, shift = change.after, penalty = 2 } end
          end,
        }
        """
    }

    @Test(arguments: [1, 2])
    func findingsPastThePerCallLimitAreAllCountedAndScored(workers: Int) throws {
        let folder = try RuleFolder(["every_shift.lua": Self.everyShift(per: 1)])
        let schedule = try roster(1_000)
        // 1,000 findings from calls of at most 128 each: five times the limit of 200 a call.
        let limited = try engine(folder, reportsPerCall: 200, workers: workers).validate(schedule)
        let unlimited = try engine(folder, reportsPerCall: 1_000_000, workers: workers).validate(schedule)
        #expect(limited.count == 1_000)
        #expect(limited == unlimited)
        let score = ScoreSummary(limited)
        #expect(score == ScoreSummary(unlimited))
        #expect(score.hardViolations == 1_000)
        #expect(score.hardPenalty == 2_000)
    }

    @Test func aRuleThatFloodsOneCallIsStoppedAndNamed() throws {
        // 128 shifts a call, 2 reports each: 256 in the first call, over the limit of 200.
        let folder = try RuleFolder(["every_shift.lua": Self.everyShift(per: 2)])
        let schedule = try roster(300)
        #expect {
            try engine(folder, reportsPerCall: 200).validate(schedule)
        } throws: { error in
            let text = "\(error)"
            return text.contains("rule every_shift failed") && text.contains("too many reports in one call (more than 200 violations")
        }
    }

    @Test func aFloodCaughtByPcallStaysStopped() throws {
        let folder = try RuleFolder(["flood.lua": """
            return rule {
              id = "flood", summary = "Floods and swallows the error.", severity = "error", on = { "shift" },
              check = function(change, schedule, report)
                for i = 1, 1000 do pcall(report, "flood " .. i) end
              end,
            }
            """])
        #expect {
            try engine(folder, reportsPerCall: 100).validate(try roster(3))
        } throws: { error in
            "\(error)".contains("rule flood failed") && "\(error)".contains("too many reports in one call")
        }
    }

    @Test func theLimitOnMessageBytesIsPerCallToo() throws {
        let folder = try RuleFolder(["every_shift.lua": Self.everyShift(per: 1)])
        var configuration = RuleEngineConfiguration(directories: [folder.path], now: { fixedNow })
        configuration.workers = 1
        // 128 reports of about 71 bytes each (64 counted per report) fit in 10 KiB; 300 do not.
        configuration.reportBytesPerCall = 10 << 10
        #expect(try RuleEngine(configuration).validate(try roster(1_000)).count == 1_000)
        configuration.reportBytesPerCall = 4 << 10
        #expect {
            try RuleEngine(configuration).validate(try roster(1_000))
        } throws: { "\($0)".contains("too many reports in one call (more than 200000 violations or 4 KiB of messages)") }
    }
}
