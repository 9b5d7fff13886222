import Foundation
import Testing
import ShiftCore
@testable import ShiftRules

/// Hostile rule scripts inside the funnel: each misbehaves while checking one change, and each
/// must end with a clear error naming its file, within bounded time, with the store untouched and
/// the next change still accepted. (LuaHostTests covers the same attacks at the runtime level.)
@Suite struct HostileRuleTests {
    static let attacks: [(name: String, body: String, says: String)] = [
        ("plain loop", "while true do end", "budget"),
        ("loop inside pcall", "while true do pcall(function() while true do end end) end", "budget"),
        ("loop inside a coroutine", "local co = coroutine.wrap(function() while true do end end) co()", "budget"),
        ("loop in a metamethod", "local t = setmetatable({}, { __index = function(t, k) while true do end end }) local _ = t.x", "budget"),
        ("__gc finalizer", "setmetatable({}, { __gc = function() while true do end end })", "__gc"),
        ("gsub callback loop", "string.gsub(string.rep('a', 10), 'a', function() while true do end end)", "budget"),
        ("table bomb", "local t = {} for i = 1, 1e9 do t[i] = { i } end", "memory"),
        ("string.rep of gigabytes", "local s = string.rep('x', 2^31)", "too large"),
        ("doubling concatenation", "local s = 'x' for i = 1, 64 do s = s .. s end", "memory"),
        ("deep recursion", "local function f() return 1 + f() end f()", "stack overflow|memory limit"),
        ("catastrophic pattern", "string.find(string.rep('a', 100000), '.-.-.-.-x')", "pattern too complex|budget"),
        ("io escape", "io.open('/etc/passwd')", "io"),
        ("os escape", "os.execute('true')", "os"),
        ("load a binary chunk", "assert(load('\\27Lua', 'x', 'b'))()", "binary|text chunk"),
        ("string.dump", "string.dump(function() end)", "dump"),
        ("require outside the rules", "require('../../etc/passwd')", "require"),
        ("tamper with the string library", "string.len = nil", "read-only"),
        ("tamper with the change", "rawset(change, 'after', nil)", "table expected"),
        ("error object with a looping __tostring", "error(setmetatable({}, { __tostring = function() while true do end end }))", "error object"),
    ]

    @Test(arguments: 0..<attacks.count) func aHostileRuleIsStoppedAndTheStoreUntouched(_ index: Int) async throws {
        let attack = Self.attacks[index]
        let folder = try RuleFolder(["hostile.lua": """
            return rule {
              id = "hostile", summary = "Misbehaves on one date.", on = { "shift" },
              check = function(change, schedule, report)
                if change.after ~= nil and change.after.date == "2026-03-02" then
                  \(attack.body)
                end
              end,
            }
            """])
        let w = World()
        let engine = try RuleEngine(RuleEngineConfiguration(
            directories: [folder.path], limits: .init(memoryLimit: 32 << 20, instructionBudget: 5_000_000, timeLimit: .seconds(2))))
        let (store, repository) = try await w.store(engine)
        let before = repository.snapshot
        let clock = ContinuousClock()
        let start = clock.now
        do {
            try await store.apply(.scheduleShift(w.shift(1, w.day, "2026-03-02", w.bob)))
            Issue.record("\(attack.name): the change was accepted")
        } catch let ScheduleError.validatorFailed(_, message) {
            #expect(message.contains("hostile.lua"), "\(attack.name): \(message)")
            let expected = attack.says.lowercased().split(separator: "|")
            #expect(expected.contains { message.lowercased().contains($0) }, "\(attack.name): \(message)")
        }
        #expect(clock.now - start < .seconds(10), "\(attack.name) was not stopped in time")
        #expect(repository.snapshot == before, "\(attack.name): nothing written")
        try await store.apply(.scheduleShift(w.shift(2, w.day, "2026-03-03", w.bob)))
        #expect(await store.schedule.shiftCount == 1, "\(attack.name): the next change still works")
    }
}
