import Foundation
import ShiftCore
import ShiftRules
import ShiftSolve

// solve.

/// `shiftctl solve --format json`.
public struct SolveOutput: Encodable, Sendable {
    public struct PlannedShift: Encodable, Sendable {
        public let id: String
        public let date: String
        public let type: String
        public let person: String?
        /// Who held it before (reassigned and unassigned shifts).
        public let previous: String?
        enum CodingKeys: String, CodingKey { case id, date, type, person, previous }
    }

    public struct Unfilled: Encodable, Sendable {
        public struct Candidate: Encodable, Sendable {
            public let person: String
            public let rules: [String]
        }
        /// `demand` (below its minimum) or `open` (an open shift left open).
        public let kind: String
        public let date: String
        public let type: String
        public let skill: String?
        public let candidates: [Candidate]
        enum CodingKeys: String, CodingKey { case kind, date, type, skill, candidates }
    }

    public let dryRun: Bool
    public let written: Bool
    public let from: String
    public let to: String
    public let stop: String
    public let seconds: Double
    public let moves: Int
    public let movesPerSecond: Double
    public let workers: Int
    public let seed: UInt64
    public let before: ScoreOutput
    public let after: ScoreOutput
    public let changePenalty: Double
    public let added: [PlannedShift]
    public let assigned: [PlannedShift]
    public let reassigned: [PlannedShift]
    public let unassigned: [PlannedShift]
    /// Shifts added beyond their demand's optimal number (`--overstaff`).
    public let overstaffed: Int
    public let unfilled: [Unfilled]
    /// Rules evaluated whole on every move (no person or day phase).
    public let slowRules: [String]
    /// The planning period the plan records (`horizon.first`, `horizon.last`), when it changes it.
    public let horizon: [String]?
    /// What the funnel's rules refused when the plan was to be written (then nothing was).
    public var refused: [ViolationOutput] = []

    enum CodingKeys: String, CodingKey {
        case dryRun, written, from, to, stop, seconds, moves, movesPerSecond, workers, seed, before, after, changePenalty, added,
             assigned, reassigned, unassigned, overstaffed, unfilled, slowRules, horizon, refused
    }
}

/// What `solve` takes besides the window.
public struct SolveRequest: Sendable {
    public var from: String?
    public var to: String?
    public var replan = false
    /// Slots each demand entry gets beyond its optimal number (`SolveProblem`'s `overstaff`).
    public var overstaff = 0
    public var changePenalty: Double = 0
    public var timeLimit: Double = 30
    public var seed: UInt64 = 1
    public var workers: Int?
    public var moveLimit: Int?
    public var dryRun = false
    public var reason: String?

    public init() {}
}

extension SolveProgress {
    /// `12.4 s  best 0 hard, 2 warnings, soft 140  8,210 moves/s`.
    public var line: String {
        String(format: "%6.1f s  ", elapsed) + "\(phase == .construction ? "building" : "best") \(best)  "
            + "\(Int(movesPerSecond.rounded())) moves/s"
    }
}

extension App {
    /// Fills the window's open shifts and demand with people, the rules as the only model: a
    /// search, then one batch through the funnel (or nothing, with `dryRun`).
    public func solve(
        _ request: SolveRequest, control: SolveControl = SolveControl(), progress: @escaping @Sendable (SolveProgress) -> Void = { _ in }
    ) async throws -> CommandResult {
        let schedule = try load().materialized()
        let first = try optionalDate(request.from, option: "--from", in: schedule)
        let last = try optionalDate(request.to, option: "--to", in: schedule)
        let window = try solveWindow(schedule, first, last)
        guard request.timeLimit > 0 else { throw AppError.invalidValue(option: "--time-limit", message: "must be more than 0 seconds") }
        guard request.changePenalty >= 0 else { throw AppError.invalidValue(option: "--change-penalty", message: "must be 0 or more") }
        if let workers = request.workers, workers < 1 {
            throw AppError.invalidValue(option: "--workers", message: "must be 1 or more")
        }
        guard request.overstaff >= 0 else { throw AppError.invalidValue(option: "--overstaff", message: "must be 0 or more") }
        if let moves = request.moveLimit, moves < 1 { throw AppError.invalidValue(option: "--moves", message: "must be 1 or more") }
        let engine = try workspace.checkingRuleEngine(for: schedule.settings)
        let problem: SolveProblem
        do {
            problem = try SolveProblem(schedule: schedule, window: window, replan: request.replan, seed: request.seed,
                                   overstaff: request.overstaff)
        } catch let error as ScheduleError {
            throw AppError.invalidValue(option: "--from/--to", message: error.description)
        }
        var options = SolveOptions()
        options.timeLimit = request.timeLimit
        options.seed = request.seed
        options.changePenalty = request.changePenalty
        options.moveLimit = request.moveLimit
        if let workers = request.workers { options.workers = workers }
        let solved = try Solver(engine: engine, problem: problem, options: options).solve(control: control, progress: progress)
        if solved.problem.slots.isEmpty {
            let text = "nothing to solve: no open shifts or demand from \(window.lowerBound) to \(window.upperBound)"
                + (request.replan ? ", and no assigned shifts to re-plan" : "") + "\n"
            return CommandResult(text: text, json: output(solved, request, before: ScoreSummary([]), after: ScoreSummary([]), written: false,
                                                         schedule: schedule))
        }

        let before = ScoreSummary(try engine.validate(problem.schedule), rules: engine.rules)
        let after = ScoreSummary(try engine.validate(solved.schedule), rules: engine.rules)
        let plan = mutations(solved, reason: request.reason ?? "shiftctl solve")
        var written = false
        var refused: [Violation] = []
        var finalSchedule = solved.schedule
        if !request.dryRun, !plan.isEmpty {
            do {
                let (_, committed) = try await workspace.apply(.batch(plan))
                finalSchedule = committed
                written = true
            } catch let rejection as RejectedChange {
                // The best roster still breaks a rule the funnel enforces: show it, write nothing.
                refused = rejection.violations
            }
        }
        var result = output(solved, request, before: before, after: after, written: written, schedule: finalSchedule)
        result.refused = refused.map { ViolationOutput($0, schedule: solved.schedule, directory: environment.currentDirectory) }
        let status: ExitStatus = after.hardViolations > 0 || !solved.unfilled.isEmpty || !refused.isEmpty ? .violations : .ok
        return CommandResult(text: text(result, solved, schedule: finalSchedule), json: result, status: status,
                             note: refused.isEmpty ? nil : "the rules refused the roster (\(refused.count) violation\(refused.count == 1 ? "" : "s")); nothing was written")
    }

    /// `--from`/`--to`, else the store's planning period (`horizon.first`, `horizon.last`).
    private func solveWindow(_ schedule: Schedule, _ first: LocalDate?, _ last: LocalDate?) throws -> ClosedRange<LocalDate> {
        let horizon: ClosedRange<LocalDate>?
        do { horizon = try schedule.settingsHorizon() } catch {
            throw AppError.invalidValue(option: "--from/--to", message: "\(error)")
        }
        guard let from = first ?? horizon?.lowerBound, let to = last ?? horizon?.upperBound else {
            throw AppError.invalidValue(
                option: first == nil ? "--from" : "--to",
                message: "give the window to plan with --from and --to (or set the store's horizon.first and horizon.last)")
        }
        try InputParsing.range(from: from, to: to)
        guard from.days(to: to) < 366 * 2 else {
            throw AppError.invalidValue(option: "--to", message: "a window of at most two years, please (\(from.days(to: to) + 1) days given)")
        }
        return from...to
    }

    /// The plan as one batch: the planning period, new shifts, then changed assignments.
    private func mutations(_ solved: SolveResult, reason: String) -> [Mutation] {
        var plan: [Mutation] = solved.problem.settingsChange.map { [.updateSettings($0)] } ?? []
        for (slot, person) in zip(solved.problem.slots, solved.assignment) where person != slot.initial {
            switch slot.origin {
            case .demand:
                var shift = slot.shift
                shift.personID = person
                plan.append(.scheduleShift(shift))
            case .open, .assigned:
                plan.append(.reassignShift(slot.shift.id, to: person, reason: reason))
            }
        }
        return plan
    }

    private func output(
        _ solved: SolveResult, _ request: SolveRequest, before: ScoreSummary, after: ScoreSummary, written: Bool, schedule: Schedule
    ) -> SolveOutput {
        func name(_ person: PersonID?) -> String? { person.flatMap { schedule.person($0)?.displayName } }
        func symbol(_ type: ShiftTypeID) -> String { schedule.shiftType(type)?.symbol ?? type.description }
        func planned(_ slot: SolveProblem.Slot, _ person: PersonID?) -> SolveOutput.PlannedShift {
            SolveOutput.PlannedShift(id: slot.shift.id.description, date: slot.date.description, type: symbol(slot.shift.shiftTypeID),
                                     person: name(person), previous: name(slot.initial))
        }
        var added: [SolveOutput.PlannedShift] = [], assigned: [SolveOutput.PlannedShift] = []
        var reassigned: [SolveOutput.PlannedShift] = [], unassigned: [SolveOutput.PlannedShift] = []
        for (slot, person) in zip(solved.problem.slots, solved.assignment) where person != slot.initial {
            switch slot.origin {
            case .demand: added.append(planned(slot, person))
            case .open: assigned.append(planned(slot, person))
            case .assigned: person == nil ? unassigned.append(planned(slot, person)) : reassigned.append(planned(slot, person))
            }
        }
        let unfilled = solved.unfilled.map { item in
            SolveOutput.Unfilled(
                kind: item.slot.origin.isDemand ? "demand" : "open", date: item.slot.date.description, type: symbol(item.slot.shift.shiftTypeID),
                skill: item.slot.skill,
                candidates: item.candidates.map { .init(person: name($0.person) ?? $0.person.description, rules: $0.rules) })
        }
        let horizon = solved.problem.settingsChange.map { settings in
            [Schedule.horizonFirstKey, Schedule.horizonLastKey].compactMap { settings.extra[$0]?.stringValue }
        }
        return SolveOutput(
            dryRun: request.dryRun, written: written, from: solved.problem.window.lowerBound.description,
            to: solved.problem.window.upperBound.description, stop: solved.stop.rawValue, seconds: solved.elapsed, moves: solved.moves,
            movesPerSecond: solved.elapsed > 0 ? Double(solved.moves) / solved.elapsed : 0, workers: solved.workers, seed: request.seed,
            before: ScoreOutput(before), after: ScoreOutput(after), changePenalty: solved.score.changePenalty, added: added, assigned: assigned,
            reassigned: reassigned, unassigned: unassigned, overstaffed: solved.problem.staffedBeyondOptimal(solved.assignment), unfilled: unfilled, slowRules: solved.unscopedRules, horizon: horizon)
    }

    private func text(_ result: SolveOutput, _ solved: SolveResult, schedule: Schedule) -> String {
        var text = result.dryRun ? "dry run (nothing written): " : ""
        text += "solved \(result.from) to \(result.to) in " + String(format: "%.1f s", result.seconds)
            + " (\(result.stop); \(result.moves) moves, \(Int(result.movesPerSecond.rounded())) a second, \(result.workers) worker\(result.workers == 1 ? "" : "s"))\n"
        func count(_ n: Int, _ what: String) -> String { "\(n) \(what)" }
        let added = count(result.added.count, "shifts added") + (result.overstaffed > 0 ? " (\(result.overstaffed) beyond the demand's optimal)" : "")
        text += "plan: " + [added, count(result.assigned.count, "open shifts assigned"),
                            count(result.reassigned.count, "reassigned"), count(result.unassigned.count, "unassigned")].joined(separator: ", ")
        text += result.changePenalty > 0 ? ", change penalty \(ViolationReport.number(result.changePenalty))\n" : "\n"
        if let horizon = result.horizon, horizon.count == 2 {
            text += "planning period: \(horizon[0]) to \(horizon[1]) (recorded as horizon.first/horizon.last, so validate judges demand over it)\n"
        }
        let days = solved.problem.days.count
        let roster = RosterOutput(schedule: schedule, from: solved.problem.window.lowerBound, days: min(days, 62))
        text += RosterRenderer(width: environment.width, colour: environment.usesColour).render(roster)
        if days > 62 { text += "(first 62 of \(days) days shown)\n" }

        var table = TextTable("RULE", "BEFORE", "AFTER")
        func cell(_ rule: ScoreOutput.Rule?) -> String {
            guard let rule, rule.count > 0 else { return "0" }
            return rule.counts + (rule.penalty > 0 ? ", penalty \(ViolationReport.number(rule.penalty))" : "")
        }
        for rule in Set(result.before.byRule.keys).union(result.after.byRule.keys).sorted() {
            table.add(rule, cell(result.before.byRule[rule]), cell(result.after.byRule[rule]))
        }
        text += "\n" + table.rendered
        func score(_ s: ScoreOutput) -> String {
            "\(s.hardViolations) hard, \(s.warnings) warnings, soft penalty \(ViolationReport.number(s.softPenalty))"
        }
        text += "score: \(score(result.before)) -> \(score(result.after))\n"
        if !result.slowRules.isEmpty {
            text += "slow rules (no person or day phase, evaluated whole on every move): \(result.slowRules.joined(separator: ", "))\n"
        }
        if !result.unfilled.isEmpty {
            text += "\nunfilled:\n"
            var unfilled = TextTable("DATE", "TYPE", "SKILL", "KIND", "BEST CANDIDATES AND THE RULES THAT REFUSE THEM")
            for item in result.unfilled {
                let why = item.candidates.map { "\($0.person) (\($0.rules.isEmpty ? "no rule objects" : $0.rules.joined(separator: ", ")))" }
                unfilled.add(item.date, item.type, item.skill ?? "-", item.kind,
                             why.isEmpty ? "(not examined: the time for explaining ran out)" : why.joined(separator: "; "))
            }
            text += unfilled.rendered
        }
        if result.written {
            text += "written: one batch of \(result.added.count + result.assigned.count + result.reassigned.count + result.unassigned.count) changes\n"
        } else if !result.refused.isEmpty {
            var table = TextTable("DATE", "PERSON", "TYPE", "SEVERITY", "RULE", "MESSAGE")
            for item in result.refused {
                table.add(item.date ?? "-", item.person ?? "-", item.type ?? "-", item.severity, item.rule, item.message)
            }
            text += "\nnot written: the rules refuse the best roster found; give the search more time (--time-limit) "
                + "or look at what stands in its way:\n" + table.rendered
        } else if !result.dryRun {
            text += "nothing to write: the schedule is already the best roster found\n"
        }
        return text
    }
}
