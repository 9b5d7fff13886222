import Foundation
import ShiftCore
import TestSupport
import Testing
@testable import ShiftRules

/// `schedule:minutes{ person, from, to }` answers from the index and remembers the answer for the
/// rest of the evaluation. Any other filter takes the plain path, a walk over the matching
/// shifts; `exclude` of an id no shift has changes nothing but the path. A rule asks both for
/// every shift it checks, over three periods, twice each (the second answer is the remembered
/// one), and reports any difference as an error.
@Suite struct HoursCacheTests {
    static let rule = """
        return rule {
          id = "hours_both_ways", summary = "Compares the hours fast path with the plain one.", severity = "penalty",
          on = { "shift" },
          check = function(change, schedule, report)
            local s = change.after
            if s == nil or s.person == nil then return end
            local d = s.date
            local periods = { { cal.add_days(d, -6), d }, { cal.add_days(d, -27), d }, { cal.add_days(d, -3), cal.add_days(d, 10) } }
            for _, p in ipairs(periods) do
              local fast = schedule:minutes{ person = s.person, from = p[1], to = p[2] }
              local again = schedule:minutes{ person = s.person, from = p[1], to = p[2] }
              local plain = schedule:minutes{ person = s.person, from = p[1], to = p[2],
                                              exclude = "00000000-0000-4000-8000-000000000000" }
              if fast ~= plain or again ~= plain then
                report{ message = ("%s %s..%s: index %d, again %d, walk %d"):format(s.person.name, p[1], p[2], fast, again, plain),
                        severity = "error", shift = s }
              else
                report{ message = "agree", shift = s, penalty = plain }
              end
            end
          end,
        }
        """

    private func engine() throws -> (RuleEngine, RuleFolder) {
        let folder = try RuleFolder(["hours_both_ways.lua": Self.rule])
        return (try RuleEngine(RuleEngineConfiguration(directories: [folder.path], now: { fixedNow })), folder)
    }

    /// A whole validation (the rule's check on every shift: the same person and period asked
    /// again and again) and a big batch, on random rosters with night shifts across midnight and
    /// a change of daylight saving time.
    @Test(arguments: [1, 2, 3] as [UInt64]) func rememberedHoursAreTheWalksHours(seed: UInt64) throws {
        let (engine, folder) = try engine()
        _ = folder
        let schedule = try StockPersonPhaseEquivalenceTests.randomSchedule(seed: seed)
        let validated = try engine.validate(schedule)
        let batch = try StockPersonPhaseEquivalenceTests().randomBatch(on: schedule, seed: seed)
        let checked = try engine.evaluate(batch)
        for findings in [validated, checked] {
            #expect(findings.filter { $0.severity == .error }.map(\.message) == [])
            let agreed = findings.filter { $0.message == "agree" }
            #expect(agreed.count > 100)
            #expect(agreed.contains { ($0.penalty ?? 0) > 0 }, "some periods have hours")
        }
    }
}
