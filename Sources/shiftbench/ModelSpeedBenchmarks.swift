import Foundation
import ShiftCore
import ShiftInterop
import ShiftRules
import ShiftSolve

/// The speed of the model `shiftctl solve` searches with (issue #30's goal "≥ 50,000 moves/s per
/// core on n120w8; ≤ 3x the rules in Swift"): a full n120w8 roster (a shared solution, imported
/// in process as `shiftctl inrc2 import --solution` imports it), then a
/// fixed, seeded sequence of moves, each scored incrementally and kept,
/// - by the eleven INRC-II Lua rules exactly as the search scores a move (`MoveReplay`: the
///   touched people's person phases, the touched days' day and demand phases), and
/// - by the same eleven constraints written in plain Swift (`INRC2Model`), re-evaluating the
///   same touched people and days.
/// Both run on one thread and are timed in that thread's CPU time (the machine is shared). Their
/// totals must agree after every move, and with a fresh `validate --score` at the start and the
/// end, or the suite fails.
enum ModelSpeedBenchmarks {
    static let instance = "n120w8"
    static let history = 0
    static let weeks = [0, 9, 9, 4, 5, 1, 0, 3]
    static let solution = "Solution_H_0-WD_0-9-9-4-5-1-0-3__Opt-f6fafa84"

    /// One move: slots of the problem and the person (index in `problem.people`) each gets.
    typealias Move = [(slot: Int, person: Int)]

    static func run(data: String, moves count: Int, runs: Int, seed: UInt64) throws {
        // The import `shiftctl inrc2 import --solution` makes, in process, and its rules.
        let folder = "\(data)/\(instance)"
        let files = try INRC2.Files.locate(instance: folder, solution: "\(folder)/\(solution)", history: history, weeks: weeks)
        let inrc2 = try INRC2.Problem.read(files) { try String(contentsOfFile: $0, encoding: .utf8) }
        let start = LocalDate("2024-01-01")!
        let schedule = try Schedule().applying(.batch(inrc2.mutations(start: start, settings: StoreSettings()))).schedule
        let rules = URL(fileURLWithPath: "rules/examples/inrc2").standardizedFileURL.path
        let engine = try RuleEngine(RuleEngineConfiguration(directories: [rules], config: RulesConfig(settings: schedule.settings)))
        guard let window = try schedule.settingsHorizon() else { throw BenchmarkError(message: "solve-model: the import recorded no horizon") }
        let problem = try SolveProblem(schedule: schedule, window: window, replan: true, seed: seed)

        var model = try INRC2Model(files: inrc2, problem: problem)
        let replay = try MoveReplay(engine: engine, problem: problem)
        let moves = generate(count, problem: problem, assignment: replay.assignment, seed: seed)

        // The start: the rules' incremental state, a whole validate, and the Swift model agree.
        let before = ScoreSummary(try engine.validate(problem.schedule))
        try check("the start", lua: (replay.hard, replay.penalty), validate: before, swift: model.total)

        // The rules, once over the sequence (it takes seconds), recording the total after each
        // move: as the search scores them, and with every person phase run (no memo).
        let (luaSeconds, luaTotals) = try timed(replay, moves)
        let (plainSeconds, plainTotals) = try timed(MoveReplay(engine: engine, problem: problem, remembersPersonPhases: false), moves)
        for (index, (remembered, run)) in zip(luaTotals, plainTotals).enumerated() where remembered.0 != run.0 || remembered.1 != run.1 {
            throw BenchmarkError(message: "solve-model: after move \(index + 1) (\(moves[index])) the rules with the memo say \(remembered.0) hard, cost \(remembered.1); run every time \(run.0) hard, cost \(run.1)")
        }
        let calls = replay.personPhaseCalls
        // The Swift model, `runs` times over the same sequence from the same start.
        var swiftTotals: [(Int, Double)] = []
        var swiftSeconds: [Double] = []
        var end = model
        for run in 0..<runs {
            var copy = model
            var totals: [(Int, Double)] = []
            totals.reserveCapacity(moves.count)
            swiftSeconds.append(threadCPUTime {
                for move in moves {
                    copy.apply(move)
                    totals.append(copy.total)
                }
            })
            if run == 0 {
                swiftTotals = totals
                end = copy
            }
        }
        model = end
        for (index, (lua, swift)) in zip(luaTotals, swiftTotals).enumerated() where lua.0 != swift.0 || lua.1 != swift.1 {
            throw BenchmarkError(message: "solve-model: after move \(index + 1) (\(moves[index])) the rules say \(lua.0) hard, cost \(lua.1); the Swift model \(swift.0) hard, cost \(swift.1)")
        }
        let after = ScoreSummary(try engine.validate(replay.schedule))
        try check("the end", lua: (replay.hard, replay.penalty), validate: after, swift: model.total)

        let swift = Sample(seconds: swiftSeconds)
        let luaRate = Double(moves.count) / luaSeconds, swiftRate = Double(moves.count) / swift.median
        let plainRate = Double(moves.count) / plainSeconds
        print("## The model's speed (goal: ≥ 50,000 moves/s per core on n120w8; ≤ 3x the rules in Swift)\n")
        print("n120w8 (history \(history), weeks \(weeks.map(String.init).joined(separator: ","))) from the shared solution \(solution); \(moves.count) seeded moves (seed \(seed)), each kept: half give one shift to a nurse free that day, half swap two nurses' shifts of a day. Each move is scored incrementally on one thread, in that thread's CPU time: by the eleven Lua rules exactly as `shiftctl solve` scores a move (person phases of the touched nurses, day and demand phases of the touched days), and by the same constraints in plain Swift over the same nurses and days (median of \(runs) runs). Both totals agree after every move and with `validate --score` at the start and the end. The rules are timed twice: as the search runs them, a person phase answered from memory when it would read what it read before (\(calls.remembered) of \(calls.remembered + calls.made) calls here), and with every call made.\n")
        var report = Report(["model", "moves/s per core", "µs a move", "÷ Swift", "start hard / cost", "end hard / cost"])
        let startText = "\(before.hardViolations) / \(Int(before.softPenalty))", endText = "\(after.hardViolations) / \(Int(after.softPenalty))"
        report.add(["Lua rules", String(format: "%.0f", luaRate), String(format: "%.1f", luaSeconds / Double(moves.count) * 1e6),
                    String(format: "%.1fx", swiftRate / luaRate), startText, endText])
        report.add(["Lua rules, every call made", String(format: "%.0f", plainRate), String(format: "%.1f", plainSeconds / Double(moves.count) * 1e6),
                    String(format: "%.1fx", swiftRate / plainRate), startText, endText])
        report.add(["Swift", String(format: "%.0f", swiftRate), String(format: "%.2f", swift.median / Double(moves.count) * 1e6),
                    "1.0x", startText, endText])
        print(report.markdown())
        print("")
    }

    /// Applies `moves` to `replay` in order, in this thread's CPU time, with the totals (hard
    /// violations, cost) after each.
    private static func timed(_ replay: MoveReplay, _ moves: [Move]) throws -> (Double, [(Int, Double)]) {
        var totals: [(Int, Double)] = []
        totals.reserveCapacity(moves.count)
        let seconds = try threadCPUTime {
            for move in moves {
                try replay.apply(move)
                totals.append((replay.hard, replay.penalty))
            }
        }
        return (seconds, totals)
    }

    private static func check(_ when: String, lua: (Int, Double), validate: ScoreSummary, swift: (Int, Double)) throws {
        guard lua.0 == validate.hardViolations, lua.1 == validate.softPenalty, swift.0 == validate.hardViolations, swift.1 == validate.softPenalty else {
            throw BenchmarkError(message: "solve-model: at \(when), validate --score says \(validate.hardViolations) hard, cost \(validate.softPenalty); the rules' incremental state \(lua.0) hard, cost \(lua.1); the Swift model \(swift.0) hard, cost \(swift.1)")
        }
    }

    /// `count` moves over the problem's assigned slots, from `seed`: half give one slot to a person
    /// who holds nothing that day, half swap the people of two slots of one day. Every move is
    /// kept, so each is drawn on the roster the ones before it left; no person ever holds two
    /// slots of a day. The same problem gives the same moves in every run.
    static func generate(_ count: Int, problem: SolveProblem, assignment start: [Int], seed: UInt64) -> [Move] {
        var rng = SplitMix(seed: seed)
        var assignment = start
        let days = problem.days.count, people = problem.people.count
        let first = problem.window.lowerBound
        let dayOf = problem.slots.map { first.days(to: $0.date) }
        // The slots by day and holder (people come in name order): the import gives shifts new
        // ids every run, so their order in the problem is not the same from run to run.
        let slots = problem.slots.indices.filter { problem.slots[$0].origin == .assigned && start[$0] >= 0 }
            .sorted { (dayOf[$0], start[$0]) < (dayOf[$1], start[$1]) }
        var byDay = [[Int]](repeating: [], count: days)
        var holds = [Int](repeating: -1, count: people * days)
        for slot in slots {
            byDay[dayOf[slot]].append(slot)
            holds[assignment[slot] * days + dayOf[slot]] = slot
        }
        var moves: [Move] = []
        moves.reserveCapacity(count)
        while moves.count < count {
            let slot = slots.randomElement(using: &rng)!
            let day = dayOf[slot], holder = assignment[slot]
            let move: Move
            if Bool.random(using: &rng) {
                let other = Int.random(in: 0..<people, using: &rng)
                guard holds[other * days + day] < 0 else { continue }
                move = [(slot, other)]
            } else {
                let partner = byDay[day].randomElement(using: &rng)!
                guard assignment[partner] != holder else { continue }
                move = [(slot, assignment[partner]), (partner, holder)]
            }
            for (s, _) in move { holds[assignment[s] * days + dayOf[s]] = -1 }
            for (s, p) in move {
                assignment[s] = p
                holds[p * days + dayOf[s]] = s
            }
            moves.append(move)
        }
        return moves
    }

    /// The CPU time of the calling thread while `body` runs.
    static func threadCPUTime(_ body: () throws -> Void) rethrows -> Double {
        func now() -> Double {
            var ts = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
            return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
        }
        let start = now()
        try body()
        return now() - start
    }
}

/// The eleven INRC-II constraints (docs/inrc2.md; the definitions of scripts/inrc2_reference.py)
/// in plain Swift, scored incrementally: the yardstick for the Lua rules' speed.
///
/// The roster is one cell per nurse and day (the shift type and skill worked, or none) and a count
/// of shifts per nurse and day (H1). Each nurse's costs (H1, H3, H4, S2–S7) and each day's (H2,
/// S1) are kept; a move re-evaluates the nurses and days it touched. Nurses are indexed as
/// `SolveProblem.people`, days from the horizon's first.
struct INRC2Model {
    struct Part {
        var hard = 0
        var cost = 0
    }

    struct Contract {
        var assignments: (Int, Int)
        var work: (Int, Int)
        var off: (Int, Int)
        var maximumWeekends: Int
        var completeWeekends: Bool
    }

    struct Nurse {
        var contract: Contract
        var skills: [Bool]
        var historyAssignments: Int
        var historyWeekends: Int
        var historyLast: Int
        var historyConsecutiveShifts: Int
        var historyConsecutiveWork: Int
        var historyConsecutiveOff: Int
        /// Shift-off requests: (day, shift type or -1 for any).
        var requests: [(day: Int, type: Int)]
    }

    struct Requirement {
        var code: Int
        var minimum: Int
        var optimal: Int
    }

    static let none = -1
    let days: Int
    let skillCount: Int
    /// Per shift type: its consecutive bounds, and which types may not follow it.
    let typeBounds: [(Int, Int)]
    let forbidden: [[Bool]]
    let nurses: [Nurse]
    /// Per day: the requirements (code = type × skills + skill).
    let requirements: [[Requirement]]
    /// Per problem slot: its day and code (-1 for slots this model does not hold).
    let slotDay: [Int]
    let slotCode: [Int]

    /// Per nurse × days + day: the code worked, or `none`; and the number of shifts.
    var cells: [Int]
    var counts: [Int]
    var slotNurse: [Int]
    var nurseParts: [Part]
    var dayParts: [Part]
    var hard = 0
    var cost = 0

    var total: (Int, Double) { (hard, Double(cost)) }

    init(files: INRC2.Problem, problem: SolveProblem) throws {
        let scenario = files.scenario
        days = 7 * files.weeks.count
        guard problem.days.count == days else { throw BenchmarkError(message: "solve-model: \(problem.days.count) days in the window, \(days) in the files") }
        let types = Dictionary(uniqueKeysWithValues: scenario.shiftTypes.enumerated().map { ($1.name, $0) })
        let skills = Dictionary(uniqueKeysWithValues: scenario.skills.enumerated().map { ($1, $0) })
        skillCount = scenario.skills.count
        typeBounds = scenario.shiftTypes.map { ($0.minimumConsecutive, $0.maximumConsecutive) }
        forbidden = scenario.shiftTypes.map { type in scenario.shiftTypes.map { type.forbiddenNext.contains($0.name) } }
        let contracts = Dictionary(uniqueKeysWithValues: scenario.contracts.map {
            ($0.name, Contract(assignments: ($0.minimumAssignments, $0.maximumAssignments), work: ($0.minimumConsecutiveWork, $0.maximumConsecutiveWork),
                               off: ($0.minimumConsecutiveOff, $0.maximumConsecutiveOff), maximumWeekends: $0.maximumWorkingWeekends,
                               completeWeekends: $0.completeWeekends))
        })
        let scenarioNurses = Dictionary(uniqueKeysWithValues: scenario.nurses.map { ($0.name, $0) })
        let histories = Dictionary(uniqueKeysWithValues: files.history.nurses.map { ($0.nurse, $0) })
        let schedule = problem.schedule
        var nurses: [Nurse] = []
        var index: [String: Int] = [:]
        for id in problem.people {
            guard let name = schedule.person(id)?.displayName, let nurse = scenarioNurses[name], let contract = contracts[nurse.contract],
                  let history = histories[name] else { throw BenchmarkError(message: "solve-model: a person of the store is no nurse of the files") }
            index[name] = nurses.count
            var skillSet = [Bool](repeating: false, count: skillCount)
            for skill in nurse.skills { if let s = skills[skill] { skillSet[s] = true } }
            nurses.append(Nurse(
                contract: contract, skills: skillSet, historyAssignments: history.assignments, historyWeekends: history.workingWeekends,
                historyLast: history.lastShiftType.flatMap { types[$0] } ?? Self.none, historyConsecutiveShifts: history.consecutiveShifts,
                historyConsecutiveWork: history.consecutiveWorkingDays, historyConsecutiveOff: history.consecutiveDaysOff, requests: []))
        }
        var requirements = [[Requirement]](repeating: [], count: days)
        for (week, data) in files.weeks.enumerated() {
            for requirement in data.requirements {
                guard let type = types[requirement.shiftType], let skill = skills[requirement.skill] else { continue }
                for (weekday, pair) in requirement.days.enumerated() where pair.minimum > 0 || pair.optimal > 0 {
                    requirements[7 * week + weekday].append(Requirement(code: type * skillCount + skill, minimum: pair.minimum, optimal: pair.optimal))
                }
            }
            for request in data.requests {
                guard let n = index[request.nurse] else { continue }
                nurses[n].requests.append((7 * week + request.day, request.shiftType.flatMap { types[$0] } ?? Self.none))
            }
        }
        self.nurses = nurses
        self.requirements = requirements

        var slotDay: [Int] = [], slotCode: [Int] = [], slotNurse: [Int] = []
        cells = [Int](repeating: Self.none, count: nurses.count * days)
        counts = [Int](repeating: 0, count: nurses.count * days)
        let personIndex = Dictionary(uniqueKeysWithValues: problem.people.enumerated().map { ($1, $0) })
        for slot in problem.slots {
            let day = problem.window.lowerBound.days(to: slot.date)
            let symbol = schedule.shiftType(slot.shift.shiftTypeID)?.symbol
            var skill = slot.skill
            if case let .string(value)? = slot.shift.attributes["skill"] { skill = value }
            guard let type = symbol.flatMap({ types[$0] }), let s = skill.flatMap({ skills[$0] }) else {
                throw BenchmarkError(message: "solve-model: a slot on \(slot.date) has no INRC-II shift type and skill")
            }
            slotDay.append(day)
            slotCode.append(type * skillCount + s)
            let nurse = slot.origin == .assigned ? slot.initial.flatMap { personIndex[$0] } ?? Self.none : Self.none
            slotNurse.append(nurse)
            if nurse >= 0 {
                cells[nurse * days + day] = type * skillCount + s
                counts[nurse * days + day] += 1
            }
        }
        self.slotDay = slotDay
        self.slotCode = slotCode
        self.slotNurse = slotNurse
        nurseParts = [Part](repeating: Part(), count: nurses.count)
        dayParts = [Part](repeating: Part(), count: days)
        for n in nurses.indices { nurseParts[n] = nursePart(n) }
        for d in 0..<days { dayParts[d] = dayPart(d) }
        hard = nurseParts.reduce(0) { $0 + $1.hard } + dayParts.reduce(0) { $0 + $1.hard }
        cost = nurseParts.reduce(0) { $0 + $1.cost } + dayParts.reduce(0) { $0 + $1.cost }
    }

    /// Gives each slot of `move` its nurse (-1: nobody), then re-evaluates the nurses and days
    /// touched.
    mutating func apply(_ move: [(slot: Int, person: Int)]) {
        var touchedNurses: [Int] = [], touchedDays: [Int] = []
        for (slot, _) in move {
            let old = slotNurse[slot], day = slotDay[slot]
            if old >= 0 {
                counts[old * days + day] -= 1
                if counts[old * days + day] == 0 { cells[old * days + day] = Self.none }
                if !touchedNurses.contains(old) { touchedNurses.append(old) }
            }
            if !touchedDays.contains(day) { touchedDays.append(day) }
        }
        for (slot, nurse) in move {
            slotNurse[slot] = nurse
            if nurse >= 0 {
                cells[nurse * days + slotDay[slot]] = slotCode[slot]
                counts[nurse * days + slotDay[slot]] += 1
                if !touchedNurses.contains(nurse) { touchedNurses.append(nurse) }
            }
        }
        for n in touchedNurses {
            let part = nursePart(n)
            hard += part.hard - nurseParts[n].hard
            cost += part.cost - nurseParts[n].cost
            nurseParts[n] = part
        }
        for d in touchedDays {
            let part = dayPart(d)
            hard += part.hard - dayParts[d].hard
            cost += part.cost - dayParts[d].cost
            dayParts[d] = part
        }
    }

    /// H2 and S1 of one day: the nurses covering each requirement's shift type and skill.
    func dayPart(_ day: Int) -> Part {
        var part = Part()
        var covered = [Int](repeating: 0, count: typeBounds.count * skillCount)
        for n in nurses.indices where cells[n * days + day] != Self.none { covered[cells[n * days + day]] += 1 }
        for requirement in requirements[day] {
            let have = covered[requirement.code]
            part.hard += max(0, requirement.minimum - have)
            part.cost += 30 * max(0, requirement.optimal - max(have, requirement.minimum))
        }
        return part
    }

    /// H1, H3, H4 and S2–S7 of one nurse.
    func nursePart(_ n: Int) -> Part {
        let nurse = nurses[n]
        let row = n * days
        var part = Part()
        var previous = nurse.historyLast
        var assignments = nurse.historyAssignments
        for d in 0..<days {
            let code = cells[row + d]
            part.hard += max(0, counts[row + d] - 1)
            assignments += counts[row + d]
            let type = code == Self.none ? Self.none : code / skillCount
            if code != Self.none, !nurse.skills[code % skillCount] { part.hard += 1 }
            if previous != Self.none, type != Self.none, forbidden[previous][type] { part.hard += 1 }
            previous = type
        }
        // S2: runs of one shift type (a day off ends them), then runs of working days; S3: days off.
        let last = nurse.historyLast
        part.cost += 15 * runCost(n, key: { $0 == Self.none ? Self.none : $0 / skillCount }, start: last,
                                  count: last == Self.none ? 0 : nurse.historyConsecutiveShifts,
                                  bounds: { $0 == Self.none ? (0, Int.max) : typeBounds[$0] })
        let working = nurse.historyConsecutiveWork > 0
        let startCount = working ? nurse.historyConsecutiveWork : nurse.historyConsecutiveOff
        let work = nurse.contract.work, off = nurse.contract.off
        part.cost += 30 * runCost(n, key: { $0 == Self.none ? 0 : 1 }, start: working ? 1 : 0, count: startCount,
                                  bounds: { $0 == 1 ? work : (0, Int.max) })
        part.cost += 30 * runCost(n, key: { $0 == Self.none ? 0 : 1 }, start: working ? 1 : 0, count: startCount,
                                  bounds: { $0 == 0 ? off : (0, Int.max) })
        // S4: shift-off requests met or not.
        for request in nurse.requests {
            let code = cells[row + request.day]
            if code != Self.none, request.type == Self.none || code / skillCount == request.type { part.cost += 10 }
        }
        // S5, S7: weekends.
        var weekends = 0
        for week in 0..<(days / 7) {
            let saturday = cells[row + 7 * week + 5] != Self.none, sunday = cells[row + 7 * week + 6] != Self.none
            if saturday || sunday { weekends += 1 }
            if nurse.contract.completeWeekends, saturday != sunday { part.cost += 30 }
        }
        part.cost += 30 * max(0, nurse.historyWeekends + weekends - nurse.contract.maximumWeekends)
        // S6: total assignments, history included.
        let (lo, hi) = nurse.contract.assignments
        part.cost += 20 * (max(0, lo - assignments) + max(0, assignments - hi))
        return part
    }

    /// Days outside the bounds over runs of equal keys of one nurse's cells: the first run continues
    /// the history's `count`; each day beyond the maximum counts on the day it is reached; a run
    /// that ends short of its minimum counts the missing days once, when it ends; a run still going
    /// on the last day is never short.
    func runCost(_ n: Int, key: (Int) -> Int, start: Int, count: Int, bounds: (Int) -> (Int, Int)) -> Int {
        var total = 0
        var current = start, length = count
        for d in 0..<days {
            let k = key(cells[n * days + d])
            if k == current {
                length += 1
            } else {
                let (lo, _) = bounds(current)
                if length > 0, length < lo { total += lo - length }
                current = k
                length = 1
            }
            if length > bounds(current).1 { total += 1 }
        }
        return total
    }
}
