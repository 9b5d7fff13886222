import Foundation
import Synchronization
import Testing

@testable import LuaHost

/// Calls run as trials (`LuaRuntime.call(_:_:rewind:)`): without the count hook, under a
/// watchdog; a trial that does not end in time is run again, counted. Whatever happens, the
/// caller sees what a counted call gives. (Under ThreadSanitizer, and off Linux, trials are off
/// and every call is counted: the outcomes asserted here hold all the same.)
@Suite struct TrialTests {
    final class Ticks: Sendable {
        let count = Mutex(0)
        func withLock<T>(_ body: (inout Int) -> T) -> T { count.withLock { body(&$0) } }
    }

    /// A runtime with a host function `tick()` that counts its calls in `ticks`.
    func runtime(budget: Int = 10_000_000, trials: Bool = true) throws -> (LuaRuntime, Ticks) {
        var configuration = LuaRuntime.Configuration(instructionBudget: budget, timeLimit: .seconds(20))
        configuration.trials = trials
        let rt = try LuaRuntime(configuration: configuration)
        let ticks = Ticks()
        try rt.registerFunction(name: "tick") { _ in
            ticks.withLock { $0 += 1 }
            return []
        }
        return (rt, ticks)
    }

    static let work = """
        local words, t = {}, {}
        for i = 1, 2000 do words[#words + 1] = ('w' .. i):rep(3) end
        local co = coroutine.wrap(function() for i = 1, 100 do coroutine.yield(i) end end)
        local sum = 0
        for i = 1, 100 do sum = sum + co() end
        table.sort(words)
        local found = 0
        for _, w in ipairs(words) do if w:find('w1%d+') then found = found + 1 end end
        tick()
        return #table.concat(words), sum, found, words[1]
        """

    @Test func aTrialGivesWhatACountedCallGives() throws {
        let (rt, ticks) = try runtime()
        let counted = try eval(rt, Self.work)
        let f = try rt.loadPlugin(source: "return function()\n\(Self.work)\nend", chunkName: "rules/test.lua")
        // A slow machine (or a sanitizer) may cut the trial short: its tick is then rewound.
        let trial = try rt.call(f, [], rewind: { ticks.withLock { $0 = 1 } })
        #expect(trial == counted)
        #expect(ticks.withLock { $0 } == 2)
        #expect(rt.trialCounts.trials <= 1)
    }

    @Test func aTrialThatRunsPastItsTimeIsRunAgainCountedAfterARewind() throws {
        // 4 million units of budget: a trial has 2 ms. The body ticks, then spends about 3
        // million instructions (over 6 ms on any machine of today) and ticks again.
        let (rt, ticks) = try runtime(budget: 4_000_000)
        let f = try rt.loadPlugin(source: """
            return function()
              tick()
              local x = 0
              for i = 1, 1000000 do x = x + i end
              tick()
              return x
            end
            """, chunkName: "rules/slow.lua")
        var rewinds = 0
        let out = try rt.call(f, [], rewind: {
            rewinds += 1
            ticks.withLock { $0 = 0 }
        })
        #expect(out == [.integer(500_000_500_000)])
        #expect(ticks.withLock { $0 } == 2)
        if rt.trialCounts.trials > 0 {
            #expect(rewinds == 1)
            #expect(rt.trialCounts == (1, 1))
        }
    }

    @Test func overBudgetInATrialIsTheCountedCallsErrorWithItsLocation() throws {
        // The trial is stopped after 1 ms; the counted run that follows names the line where
        // the budget ran out, as a counted call does.
        let (rt, _) = try runtime(budget: 2_000_000)
        for trial in [false, true] {
            expectHostError({ _ = try eval(rt, "local x = 0\nfor i = 1, 1e9 do x = x + i end", trial: trial) }) {
                $0.description == "rules/test.lua:3: instruction budget exceeded (2000000 units)"
            }
        }
    }

    @Test func endlessLoopsAreStoppedOnThreadsThatBlockSignals() throws {
        // libdispatch's workers block every signal they do not expect; the watchdog's must get
        // through all the same.
        let done = Mutex<Result<[LuaValue], any Error>?>(nil)
        let thread = Thread {
            var all = sigset_t()
            sigfillset(&all)
            pthread_sigmask(SIG_BLOCK, &all, nil)
            let outcome = Result { () throws -> [LuaValue] in
                let (rt, _) = try runtime(budget: 2_000_000)
                return try eval(rt, "while true do end", trial: true)
            }
            done.withLock { $0 = outcome }
        }
        thread.start()
        let start = ContinuousClock.now
        while done.withLock({ $0 == nil }), ContinuousClock.now - start < .seconds(10) { usleep(2_000) }
        let outcome = try #require(done.withLock { $0 })
        #expect(throws: LuaHostError.self) { try outcome.get() }
    }

    @Test func theWatchdogWakesForATrialAfterAQuietSpell() throws {
        let (rt, _) = try runtime(budget: 2_000_000)
        Thread.sleep(forTimeInterval: 0.3) // the watchdog sleeps after 50 ms without a trial
        let start = ContinuousClock.now
        expectHostError({ _ = try eval(rt, "while true do end", trial: true) }, { if case .budgetExceeded = $0 { true } else { false } })
        #expect(ContinuousClock.now - start < .seconds(3))
    }

    @Test func withTrialsOffEveryCallIsCounted() throws {
        let (rt, ticks) = try runtime(trials: false)
        #expect(try eval(rt, Self.work, trial: true).count == 4)
        #expect(ticks.withLock { $0 } == 1)
        #expect(rt.trialCounts == (0, 0))
    }
}
