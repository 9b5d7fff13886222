import Foundation
import ShiftCore
import ShiftRules
@testable import ShiftSolve
import TestSupport

func engine(_ directories: [String] = [stockRules], config: RulesConfig = RulesConfig(), workers: Int = 1) throws -> RuleEngine {
    var configuration = RuleEngineConfiguration(directories: directories, config: config, now: { fixedNow })
    configuration.workers = workers
    return try RuleEngine(configuration)
}

/// A ward made at random from a seed: shift types E, L, N, people with and without the skill
/// `nurse`, weekday demand (some of it needing the skill), a few open and assigned shifts and
/// availability entries of every kind, over two weeks from 2026-03-02.
struct RandomWard {
    let schedule: Schedule
    let window: ClosedRange<LocalDate>

    init(seed: UInt64, people count: Int = 7) throws {
        var random = SeededGenerator(seed: seed)
        var next = 0
        func id() -> UUID {
            next += 1
            return uuid(next)
        }
        let types = [("E", "06:00-14:00"), ("L", "14:00-22:00"), ("N", "22:00-06:00")].map {
            ShiftType(id: ShiftTypeID(id()), symbol: $0.0, title: $0.0, duration: ShiftDuration($0.1)!)
        }
        let names = ["Ann", "Ben", "Cleo", "Dan", "Eva", "Finn", "Gus", "Hana", "Ivo", "Jo"]
        let people = (0..<count).map { index in
            Person(id: PersonID(id()), displayName: names[index % names.count] + (index >= names.count ? "\(index)" : ""),
                   attributes: random.chance(0.6) ? ["skills": .list([.string("nurse")])] : [:])
        }
        let first = date("2026-03-02")
        window = first...first.adding(days: 13)
        var demand: [Demand] = []
        for weekday in Weekday.allCases {
            for type in types where random.chance(0.7) {
                let minimum = random.below(3)
                demand.append(Demand(id: DemandID(id()), day: .weekday(weekday), shiftTypeID: type.id,
                                     skill: random.chance(0.3) ? "nurse" : nil, minimum: minimum, optimal: minimum + random.below(2)))
            }
        }
        var shifts: [ScheduledShift] = []
        for _ in 0..<6 {
            let day = first.adding(days: random.below(14))
            let person = random.chance(0.5) ? people[random.below(people.count)].id : nil
            shifts.append(ScheduledShift(id: ShiftID(id()), shiftTypeID: types[random.below(3)].id, date: day, personID: person))
        }
        var availability: [Availability] = []
        for _ in 0..<6 {
            let day = first.adding(days: random.below(14))
            let kind = [AvailabilityKind.unavailable, .undesired, .desired][random.below(3)]
            availability.append(Availability(id: AvailabilityID(id()), personID: people[random.below(people.count)].id, from: day,
                                             to: day.adding(days: random.below(3)), shiftTypeID: random.chance(0.5) ? types[random.below(3)].id : nil,
                                             kind: kind, weight: Double(1 + random.below(4))))
        }
        schedule = try Schedule(settings: StoreSettings(timeZoneIdentifier: "Europe/Berlin"), shiftTypes: types, people: people,
                                shifts: shifts, demand: demand, availability: availability)
    }
}

/// A small solve: bounded by moves, so it ends the same way on any machine.
func solve(
    _ schedule: Schedule, window: ClosedRange<LocalDate>, engine: RuleEngine, seed: UInt64 = 1, workers: Int = 1, moves: Int = 3_000,
    replan: Bool = false, changePenalty: Double = 0, overstaff: Int = 0
) throws -> SolveResult {
    let problem = try SolveProblem(schedule: schedule, window: window, replan: replan, seed: seed, overstaff: overstaff)
    var options = SolveOptions()
    options.seed = seed
    options.workers = workers
    options.moveLimit = moves
    options.timeLimit = 600
    options.changePenalty = changePenalty
    options.roundMoves = 500
    // Small solves make few rounds: restart often enough that two workers do restart.
    options.restartRounds = 2
    return try Solver(engine: engine, problem: problem, options: options).solve()
}
