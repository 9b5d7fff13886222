import Foundation
import Testing
import ShiftCore
import TestSupport
@testable import ShiftRules

/// `cal.time_of` keeps the zone's offset and the span it holds for between calls, instead of
/// asking the zone's rules each time: it must give what the zone's rules give (the plain path),
/// around every change of clocks, for instants asked in any order, and for the zone of the
/// schedule evaluated now, not of the one before.
@Suite struct ClockTimeTests {
    /// Instants every 7 minutes through both of 2026's changes of clocks in Berlin, then
    /// scattered over 1890-2250 back and forth (before, inside and after the zone's table), and
    /// the first again.
    static let instants: [Int64] = {
        var list: [Int64] = []
        for start: Int64 in [1_774_652_400, 1_792_796_400] { // 2026-03-28 and 2026-10-24, 00:00 UTC
            list += stride(from: start, to: start + 3 * 86_400, by: 420).map { $0 }
        }
        var seed: UInt64 = 7
        for _ in 0..<2_000 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            list.append(-2_524_521_600 + Int64(seed >> 33) % 11_360_000_000)
        }
        // Ending where it starts: the next evaluation's first instant lies in the span this one
        // ended with, which must not carry over to another zone.
        list.append(list[0])
        return list
    }()

    private func times(in zone: String, engine: RuleEngine) throws -> [String] {
        let schedule = try Schedule(settings: StoreSettings(timeZoneIdentifier: zone))
        return try engine.validate(schedule).map(\.message)
    }

    @Test func timeOfGivesWhatTheZonesRulesGive() throws {
        let list = Self.instants.map(String.init).joined(separator: ", ")
        let folder = try RuleFolder(["clock.lua": """
            local instants = { \(list) }
            return rule { id = "clock", summary = "Says the clock time of instants.",
              validate = function(schedule, report)
                for _, t in ipairs(instants) do report{ message = cal.time_of(t), severity = "warning" } end
              end }
            """])
        let engine = try RuleEngine(RuleEngineConfiguration(directories: [folder.path]))
        // One engine, one Lua state: Berlin, then Tokyo, then Berlin again.
        for zone in ["Europe/Berlin", "Asia/Tokyo", "Europe/Berlin", "America/New_York"] {
            let rules = try #require(ZoneRules(identifier: zone))
            let expected = Self.instants.map { instant in
                let minute = rules.localDateTime(atUTC: instant).minute
                return String(format: "%02d:%02d", minute / 60, minute % 60)
            }
            let got = try times(in: zone, engine: engine)
            #expect(got.count == expected.count)
            let wrong = zip(got, expected).enumerated().filter { $0.element.0 != $0.element.1 }
            #expect(wrong.isEmpty, "\(zone): \(wrong.prefix(5).map { "\(Self.instants[$0.offset]): \($0.element.0) not \($0.element.1)" })")
        }
    }
}
