import Foundation
import Testing
import ShiftCore
import TestSupport
@testable import ShiftRules

/// Rules that see requests: `on = { "request" }`, the request view, `schedule:requests{}`, and
/// the examples of rules/examples/requests.
@Suite struct RequestRuleTests {
    static let folder = stockRules + "/examples/requests"

    static let results: [RuleExampleResult] = {
        guard let engine = try? World().engine([folder]) else { return [] }
        return engine.runExamples()
    }()

    static let names: [String] = results.map { "\($0.ruleID): \($0.name)" }

    @Test func theExampleRulesLoad() throws {
        let engine = try World().engine([Self.folder])
        #expect(engine.rules.map(\.id) == ["claim_needs_skill", "swap_notice", "time_off_per_month"])
        #expect(engine.rules.allSatisfy { $0.exampleCount >= 2 })
        #expect(Self.results.count == engine.rules.reduce(0) { $0 + $1.exampleCount })
    }

    @Test(arguments: names) func example(_ name: String) {
        let result = Self.results.first { "\($0.ruleID): \($0.name)" == name }!
        #expect(result.passed, "\(result.file): \(result.name): \(result.detail)")
    }

    @Test func everyRuleHasAPassingAndAFailingExample() {
        for rule in Set(Self.results.map(\.ruleID)) {
            let mine = Self.results.filter { $0.ruleID == rule }
            #expect(mine.contains { $0.expectsViolation } && mine.contains { !$0.expectsViolation }, "\(rule)")
        }
    }

    /// A rule reads every field of the view of a request as it moves, and its history reaches it.
    @Test func aRequestChangeShowsTheRequestOnBothSides() async throws {
        let folder = try RuleFolder(["echo.lua": """
            return rule {
              id = "echo", summary = "Says what it sees.", severity = "warning", on = { "request" },
              check = function(change, schedule, report)
                local r = change.after
                local before = change.before and change.before.state or "none"
                local mine = #schedule:requests{ person = r.requester, kind = r.kind }
                report(("%s %s %s->%s by %s shift %s colleague %s with %s mine %d reason %s"):format(
                  change.action, r.kind, before, r.state, r.requester.name, r.shift.date, r.colleague.name,
                  r.colleague_shift.type.symbol, mine, tostring(r.reason)))
              end,
            }
            """])
        let world = World()
        let engine = try world.engine([folder.path])
        let (store, _) = try await world.store(engine)
        let bobs = world.shift(1, world.day, "2026-03-02", world.bob)
        let carols = world.shift(2, world.night, "2026-03-03", world.carol)
        try await store.apply(.batch([.scheduleShift(bobs), .scheduleShift(carols)]))
        let request = Request(
            id: RequestID(uuid(400)), kind: .swap, requesterID: world.bob.id, shift: SeenShift(bobs), colleagueID: world.carol.id,
            colleagueShift: SeenShift(carols),
            history: [RequestTransition(state: .pending, timestamp: fixedNow, userId: "bob", userDisplayName: "Bob", reason: "party")])
        let made = try await store.apply(.addRequest(request))
        #expect(made.violations.map(\.message) == ["added swap none->pending by Bob shift 2026-03-02 colleague Carol with N mine 1 reason party"])
        let accepted = request.moved(RequestTransition(state: .accepted, timestamp: fixedNow, userId: "carol", userDisplayName: "Carol"))
        let moved = try await store.apply(.updateRequest(accepted))
        #expect(moved.violations.map(\.message) == ["updated swap pending->accepted by Bob shift 2026-03-02 colleague Carol with N mine 1 reason party"])
    }

    @Test func aRuleOnRequestsCanRefuseOne() async throws {
        let world = World()
        let engine = try world.engine([Self.folder])
        let (store, _) = try await world.store(engine)
        let soon = world.shift(1, world.day, "2026-03-02", world.bob)
        try await store.apply(.scheduleShift(soon))
        // fixedNow is 2026-03-01 00:00 UTC; the day shift of 2026-03-02 starts 30 h later.
        let request = Request(
            id: RequestID(uuid(401)), kind: .swap, requesterID: world.bob.id, shift: SeenShift(soon), colleagueID: world.carol.id,
            history: [RequestTransition(state: .pending, timestamp: fixedNow, userId: "bob", userDisplayName: "Bob")])
        await #expect(throws: ScheduleError.self) { try await store.apply(.addRequest(request)) }
        #expect(await store.schedule.requestCount == 0)
    }
}
