import Foundation
import ShiftCore
import ShiftRules

// rotations list|show, rotate.

public struct RotateOutput: Encodable, Sendable {
    public let rotation: String
    public let from: String
    public let to: String
    public let dryRun: Bool
    public let scheduled: Int
    public let replaced: Int
    public let violations: [ViolationOutput]
    public let roster: RosterOutput

    enum CodingKeys: String, CodingKey { case rotation, from, to, dryRun, scheduled, replaced, violations, roster }
}

extension App {
    public func listRotations() throws -> CommandResult {
        let schedule = try load()
        let engine = try workspace.ruleEngine(for: schedule.settings)
        let items = engine.rotations
        var table = TextTable("ID", "TEAMS", "CYCLE", "SHIFTS", "H/WEEK", "SUMMARY")
        for item in items {
            table.add(item.id, item.teams.joined(separator: ","), item.cycleDays.map { "\($0) days" } ?? "generated",
                      item.shifts.keys.sorted().joined(separator: ","), item.averageWeeklyHours.map { String(format: "%.1f", $0) } ?? "",
                      item.summary)
        }
        return CommandResult(text: items.isEmpty ? "no rotations in the rules folders\n" : table.rendered,
                             json: ListOutput(key: "rotations", items: items))
    }

    /// One rotation's cycle as a grid: teams by days of the cycle.
    public func showRotation(_ name: String) throws -> CommandResult {
        let schedule = try load()
        let engine = try workspace.ruleEngine(for: schedule.settings)
        guard let info = engine.rotations.first(where: { $0.id == name }) else {
            throw AppError.invalidValue(option: "ROTATION", message: RotationError.unknownRotation(name: name, available: engine.rotations.map(\.id)).description)
        }
        var text = "\(info.id): \(info.summary)\n"
        if !info.source.isEmpty { text += "source: \(info.source)\n" }
        text += "file: \(relative(info.file))\n"
        if let cycle = info.cycleDays {
            text += "cycle: \(cycle) days" + (info.averageWeeklyHours.map { String(format: ", %.1f h a week on average per team", $0) } ?? "") + "\n\n"
            let nameWidth = max(4, info.teams.map(\.count).max() ?? 0)
            text += TextWidth.pad("day", to: nameWidth) + "  " + (1...cycle).map { String(format: "%2d", $0) }.joined(separator: " ") + "\n"
            for team in info.teams {
                let cells = (info.pattern[team] ?? "").map { rotationOffLetters.contains($0) ? " ·" : " " + String($0) }
                text += TextWidth.pad(team, to: nameWidth) + "  " + cells.joined(separator: " ") + "\n"
            }
        } else {
            text += "cycle: computed by its generate function\n"
        }
        text += "\n" + info.shifts.keys.sorted().map { "\($0) \(info.shifts[$0]!)" }.joined(separator: "  ") + "\n"
        return CommandResult(text: text, json: info)
    }

    /// Generates a rotation as one batch that every rule checks; `dryRun` shows it and writes nothing.
    /// `reason` (default `rotation NAME`) goes into the change log with each shift it writes.
    public func rotate(
        _ name: String, teams: [String], from: String, to: String, shifts: [String], anchor: String?, dryRun: Bool, replace: Bool,
        reason: String? = nil, progress: @Sendable (String) -> Void = { _ in }
    ) async throws -> CommandResult {
        let schedule = try load()
        let resolver = ReferenceResolver(schedule)
        let first = try date(from, option: "--from", in: schedule)
        let last = try date(to, option: "--to", in: schedule)
        try InputParsing.range(from: first, to: last)
        guard !teams.isEmpty else {
            throw AppError.invalidValue(option: "--team", message: "name at least one team, e.g. --team A=Alice,Bob")
        }
        var staffed: [(name: String, people: [PersonID])] = []
        for spec in teams {
            guard let equals = spec.firstIndex(of: "="), equals != spec.startIndex else {
                throw AppError.invalidValue(option: "--team", message: "'\(spec)' is not TEAM=person,person")
            }
            let members = spec[spec.index(after: equals)...].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard !members.isEmpty else { throw AppError.invalidValue(option: "--team", message: "team \(spec[..<equals]) has nobody") }
            staffed.append((String(spec[..<equals]), try members.map { try resolver.person($0, option: "--team").id }))
        }
        var letters: [String: ShiftTypeID] = [:]
        for spec in shifts {
            let parts = spec.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, parts[0].count == 1 else {
                throw AppError.invalidValue(option: "--shift", message: "'\(spec)' is not LETTER=TYPE (e.g. --shift D=Day)")
            }
            letters[parts[0]] = try resolver.shiftType(parts[1], option: "--shift").id
        }
        let engine = try workspace.checkingRuleEngine(for: schedule.settings)
        progress("generating \(name) from \(first) to \(last)…")
        let request = RotationRequest(rotation: name, teams: staffed, from: first, to: last,
                                      anchor: try optionalDate(anchor, option: "--anchor", in: schedule), shiftTypes: letters)
        let generated: [ScheduledShift]
        do {
            generated = try engine.generateRotation(request, in: schedule)
        } catch let error as RotationError {
            throw AppError.invalidValue(option: "ROTATION", message: error.description)
        }
        let people = staffed.flatMap(\.people)
        var removals: [Mutation] = []
        if replace {
            for person in Set(people) {
                for shift in schedule.shifts(ShiftQuery(from: first, to: last, personID: person)) {
                    removals.append(.unscheduleShift(shift.id, reason: reason.map { "replaced by rotation \(name): \($0)" } ?? "replaced by rotation \(name)"))
                }
            }
        }
        let mutation = Mutation.batch(removals + generated.map { .scheduleShift($0) })
        progress("checking \(generated.count) shifts against \(engine.rules.filter(\.enabled).count) rules…")

        let days = first.days(to: last) + 1
        if dryRun {
            let (proposed, changes) = try schedule.applying(mutation)
            let violations = try engine.evaluate(Proposal(
                mutation: mutation, changes: changes, before: schedule, after: proposed,
                user: workspace.actingUser(settings: schedule.settings), timestamp: environment.now()))
            return rotateResult(name, first, last, dryRun: true, generated: generated.count, replaced: removals.count,
                                violations: violations, schedule: proposed, people: people, days: days)
        }
        let (result, committed) = try await workspace.apply(mutation, reason: reason ?? "rotation \(name)")
        return rotateResult(name, first, last, dryRun: false, generated: generated.count, replaced: removals.count,
                            violations: result.violations, schedule: committed, people: people, days: days)
    }

    private func rotateResult(
        _ name: String, _ first: LocalDate, _ last: LocalDate, dryRun: Bool, generated: Int, replaced: Int,
        violations: [Violation], schedule: Schedule, people: [PersonID], days: Int
    ) -> CommandResult {
        let roster = RosterOutput(schedule: schedule, from: first, days: min(days, 62), people: people)
        let outputs = violations.map { ViolationOutput($0, schedule: schedule, directory: environment.currentDirectory) }
        let errors = violations.filter { $0.severity == .error }.count
        var text = dryRun ? "dry run (nothing written): " : ""
        text += "\(name) from \(first) to \(last): \(generated) shift\(generated == 1 ? "" : "s")"
        text += replaced > 0 ? ", replacing \(replaced)\n" : "\n"
        text += RosterRenderer(width: environment.width, colour: environment.usesColour).render(roster)
        if days > 62 { text += "(first 62 of \(days) days shown)\n" }
        if !outputs.isEmpty { text += "\n" + ViolationReport.table(outputs, weekStart: schedule.settings.weekStart) }
        if dryRun, errors > 0 { text += "the rules would reject this rotation (\(errors) error\(errors == 1 ? "" : "s"))\n" }
        let output = RotateOutput(rotation: name, from: first.description, to: last.description, dryRun: dryRun, scheduled: generated,
                                  replaced: replaced, violations: outputs, roster: roster)
        return CommandResult(text: text, json: output, status: dryRun && errors > 0 ? .violations : .ok)
    }
}
