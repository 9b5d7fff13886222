import Foundation
import TestSupport
import ShiftCore
import ShiftInterop
import ShiftRules
import Testing
@testable import ShiftSolve

@Suite struct MoveReplayTests {
    /// `MoveReplay` keeps every move and scores it as the search does: its totals are a whole
    /// validation's after each one.
    @Test func replayedMovesScoreAsAWholeValidation() throws {
        let ward = try RandomWard(seed: 7)
        let rules = try engine()
        let problem = try SolveProblem(schedule: ward.schedule, window: ward.window, replan: true, seed: 7)
        let replay = try MoveReplay(engine: rules, problem: problem)
        var rng = SeededGenerator(seed: 7)
        for step in 0..<40 {
            let slot = Int.random(in: 0..<problem.slots.count, using: &rng)
            try replay.apply([(slot, Int.random(in: -1..<problem.people.count, using: &rng))])
            let summary = ScoreSummary(try rules.validate(replay.schedule), rules: rules.rules)
            #expect(replay.hard == summary.hardViolations, "after move \(step + 1)")
            #expect(abs(replay.penalty - summary.softPenalty) < 1e-6, "after move \(step + 1)")
        }
    }

    /// The person-phase memo is a fast path: moves scored with it give the totals of moves
    /// scored with every person phase run, on random wards with the stock rules and with rules
    /// that read only columns, only elements, or query the schedule; and it answers some calls.
    @Test(arguments: [7, 8, 9] as [UInt64]) func rememberedPersonPhasesScoreAsRunningThemAll(seed: UInt64) throws {
        let folder = try TemporaryFolder(prefix: "memo-rules-")
        try folder.write("""
            return rule { id = "columns", summary = "penalty per working day and per shift type run", severity = "penalty",
              validate_person = function(person, shifts, schedule, report)
                local days, types = shifts.days, shifts.types
                for i = 2, shifts.n do
                  if days[i] == days[i - 1] + 1 and types[i] ~= types[i - 1] then
                    report{ message = person.name .. ": type change", person = person, penalty = 2 }
                  end
                end
              end }
            """, to: "columns.lua")
        try folder.write("""
            return rule { id = "elements", summary = "a night costs", severity = "penalty",
              validate_person = function(person, shifts, schedule, report)
                for i = 1, shifts.n do
                  local s = shifts[i]
                  if s.type.symbol == "N" then report{ message = "night", shift = s, penalty = 1 } end
                end
              end }
            """, to: "elements.lua")
        try folder.write("""
            return rule { id = "query", summary = "more than four shifts is an error", severity = "error",
              validate_person = function(person, shifts, schedule, report)
                if schedule:count{ person = person } > 4 then report{ message = "too many", person = person } end
              end }
            """, to: "query.lua")
        let ward = try RandomWard(seed: seed)
        let rules = try engine([stockRules, folder.path])
        let problem = try SolveProblem(schedule: ward.schedule, window: ward.window, replan: true, seed: seed)
        let remembered = try MoveReplay(engine: rules, problem: problem)
        let plain = try MoveReplay(engine: rules, problem: problem, remembersPersonPhases: false)
        var rng = SeededGenerator(seed: seed)
        for step in 0..<120 {
            // Half the moves exchange the people of two slots of a day (their days stay).
            let slot = Int.random(in: 0..<problem.slots.count, using: &rng)
            let day = problem.slots[slot].date
            let sameDay = problem.slots.indices.filter { problem.slots[$0].date == day && $0 != slot }
            var move: [(slot: Int, person: Int)]
            if rng.chance(0.5), let other = sameDay.randomElement(using: &rng) {
                move = [(slot, remembered.assignment[other]), (other, remembered.assignment[slot])]
            } else {
                move = [(slot, Int.random(in: -1..<problem.people.count, using: &rng))]
            }
            // As the search's moves, each change changes something.
            move.removeAll { remembered.assignment[$0.slot] == $0.person }
            if move.isEmpty { continue }
            try remembered.apply(move)
            try plain.apply(move)
            #expect(remembered.assignment == plain.assignment)
            #expect(remembered.hard == plain.hard, "after move \(step + 1)")
            #expect(abs(remembered.penalty - plain.penalty) < 1e-9, "after move \(step + 1)")
        }
        let summary = ScoreSummary(try rules.validate(remembered.schedule), rules: rules.rules)
        #expect(remembered.hard == summary.hardViolations)
        #expect(abs(remembered.penalty - summary.softPenalty) < 1e-6)
        #expect(remembered.personPhaseCalls.remembered > 0)
        #expect(plain.personPhaseCalls == (0, 0))
    }

    /// Kept phase caches are a fast path: the INRC-II rules, which keep the horizon, the
    /// contracts, the history, the shift types' bounds and the requests in theirs, score every
    /// move on n030w4 as they do with a new cache on every call, and as a whole validation.
    @Test func keptPhaseCachesScoreAsNewOnes() throws {
        let files = try INRC2.Files.locate(instance: "\(repositoryRoot)/benchmarks/inrc2/n030w4", solution: nil, history: 1, weeks: [6, 2, 9, 1])
        let inrc2 = try INRC2.Problem.read(files) { try String(contentsOfFile: $0, encoding: .utf8) }
        let schedule = try Schedule().applying(.batch(inrc2.mutations(start: LocalDate("2024-01-01")!, settings: StoreSettings()))).schedule
        func engine(keeping: Bool) throws -> RuleEngine {
            var configuration = RuleEngineConfiguration(
                directories: ["\(repositoryRoot)/rules/examples/inrc2"], config: RulesConfig(settings: schedule.settings), now: { fixedNow })
            configuration.keepsPhaseCaches = keeping
            return try RuleEngine(configuration)
        }
        let window = try #require(try schedule.settingsHorizon())
        let problem = try SolveProblem(schedule: schedule, window: window, replan: true, seed: 3)
        let kept = try engine(keeping: true), fresh = try engine(keeping: false)
        let fast = try MoveReplay(engine: kept, problem: problem, remembersPersonPhases: false)
        let plain = try MoveReplay(engine: fresh, problem: problem, remembersPersonPhases: false)
        var rng = SeededGenerator(seed: 3)
        var moves = 0
        while moves < 150 {
            let slot = Int.random(in: 0..<problem.slots.count, using: &rng)
            let person = Int.random(in: -1..<problem.people.count, using: &rng)
            guard fast.assignment[slot] != person else { continue }
            try fast.apply([(slot, person)])
            try plain.apply([(slot, person)])
            moves += 1
            #expect(fast.hard == plain.hard, "after move \(moves)")
            #expect(fast.penalty == plain.penalty, "after move \(moves)")
        }
        let summary = ScoreSummary(try fresh.validate(fast.schedule), rules: fresh.rules)
        #expect(fast.hard == summary.hardViolations)
        #expect(fast.penalty == summary.softPenalty)
        #expect(fast.penalty > 0)
    }

    /// `shiftbench solve-model` fails unless its Swift yardstick of the INRC-II rules agrees with
    /// the Lua rules after every move and with `validate --score` at the start and the end; a
    /// short run of it.
    @Test func theSwiftYardstickAgreesWithTheINRC2Rules() throws {
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let shiftbench = folder.appendingPathComponent("shiftbench").path
        try #require(FileManager.default.isExecutableFile(atPath: shiftbench), "build shiftbench first (swift build --build-tests builds it)")
        let result = try runProgram("/usr/bin/env", ["-C", repositoryRoot, shiftbench, "solve-model", "--moves", "300", "--runs", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("| Swift |"))
    }
}
