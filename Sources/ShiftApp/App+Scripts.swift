import Foundation
import ShiftCore
import ShiftRules

// run: script plugins.

/// How many entities of one kind a batch adds, updates and removes.
public struct ChangeCountOutput: Encodable, Sendable, Equatable {
    public var added = 0
    public var updated = 0
    public var removed = 0
    enum CodingKeys: String, CodingKey { case added, updated, removed }

    static func byKind(_ changes: [Change]) -> [String: ChangeCountOutput] {
        var counts: [String: ChangeCountOutput] = [:]
        for change in changes {
            let key = change.kindKey
            switch change.action {
            case .added: counts[key, default: ChangeCountOutput()].added += 1
            case .updated: counts[key, default: ChangeCountOutput()].updated += 1
            case .removed: counts[key, default: ChangeCountOutput()].removed += 1
            }
        }
        return counts
    }
}

/// One batch of a script's changes and what became of it.
public struct ScriptBatchOutput: Encodable, Sendable {
    /// `checkpoint` (accepted by `ops.commit()` during the run) or `tail` (the changes after the last one; all of them without commits).
    public let kind: String
    /// `written`, `rejected` (by the rules, nothing of it written), `not written` (an earlier batch was rejected),
    /// `would write` / `would be rejected` (`--dry-run`).
    public let status: String
    public let changes: [String: ChangeCountOutput]
    public let violations: [ViolationOutput]
    enum CodingKeys: String, CodingKey { case kind, status, changes, violations }
}

/// `shiftctl run`'s report.
public struct ScriptRunOutput: Encodable, Sendable {
    public let script: String
    public let file: String
    public let dryRun: Bool
    /// True when every batch was written (or, in a dry run, would be).
    public let ok: Bool
    /// Batches written (0 in a dry run).
    public let written: Int
    /// `ops.commit()` calls the rules refused during the run (rolled back, never written).
    public let refusedCommits: Int
    /// Changes per kind over the batches written (dry run: that would be written).
    public let changes: [String: ChangeCountOutput]
    public let batches: [ScriptBatchOutput]
    /// Every violation: warnings of written batches, and the errors that rejected one.
    public let violations: [ViolationOutput]
    enum CodingKeys: String, CodingKey { case script, file, dryRun, ok, written, refusedCommits, changes, batches, violations }
}

extension App {
    /// Runs a script plugin: its operations go through the funnel and the rules, as one batch
    /// unless it commits step by step with `ops.commit()` (then each checkpoint is written in order,
    /// then the rest). `dryRun` runs it and reports without writing.
    public func runScript(_ path: String, arguments: [String], dryRun: Bool) async throws -> CommandResult {
        let file = environment.absolute(path)
        guard FileManager.default.fileExists(atPath: file) else {
            throw AppError.fileError(path: path, reason: "no such script")
        }
        let store = try workspace.translatingStorageErrors { try ScheduleStore(repository: try workspace.repository()) }
        // Its operations are changes like any: the acting user's role is checked.
        try await workspace.setActingUser(of: store)
        let schedule = await store.schedule
        let engine = try workspace.checkingRuleEngine(for: schedule.settings)
        let user = await store.actingUser
        let outcome = try engine.runScript(file: file, displayName: path, arguments: arguments, schedule: schedule, user: user,
                                           now: environment.now())
        if dryRun { return try dryRunResult(outcome, engine: engine, user: user) }

        await store.setValidators([engine])
        var reports: [(ScriptBatch, String, [Violation], Schedule)] = []
        var rejected = false
        for batch in outcome.batches {
            if rejected {
                reports.append((batch, "not written", [], await store.schedule))
                continue
            }
            do {
                let result = try await store.apply(batch.mutation)
                reports.append((batch, "written", result.violations, await store.schedule))
            } catch let ScheduleError.rejected(violations) {
                rejected = true
                reports.append((batch, "rejected", violations, outcome.schedule))
            }
        }
        return scriptResult(outcome, reports, dryRun: false)
    }

    private func dryRunResult(_ outcome: ScriptOutcome, engine: RuleEngine, user: UserProfile) throws -> CommandResult {
        var reports: [(ScriptBatch, String, [Violation], Schedule)] = []
        for batch in outcome.batches {
            guard !batch.isCheckpoint else {
                reports.append((batch, "would write", batch.violations, outcome.schedule))
                continue
            }
            let before = outcome.checkpointSchedule
            let violations = try engine.evaluate(Proposal(
                mutation: batch.mutation, changes: batch.changes, before: before, after: outcome.schedule, user: user,
                timestamp: environment.now()))
            let refused = violations.contains { $0.severity == .error }
            reports.append((batch, refused ? "would be rejected" : "would write", violations, outcome.schedule))
        }
        return scriptResult(outcome, reports, dryRun: true)
    }

    private func scriptResult(_ outcome: ScriptOutcome, _ reports: [(batch: ScriptBatch, status: String, violations: [Violation], schedule: Schedule)],
                              dryRun: Bool) -> CommandResult {
        let batches = reports.map { report in
            var namer = FindingNamer(schedule: report.schedule, pending: report.batch.mutation.shifts, directory: environment.currentDirectory)
            return ScriptBatchOutput(kind: report.batch.isCheckpoint ? "checkpoint" : "tail", status: report.status,
                                     changes: ChangeCountOutput.byKind(report.batch.changes),
                                     violations: report.violations.map { namer.output($0) })
        }
        let kept = reports.filter { $0.status == "written" || $0.status == "would write" }
        let rejected = reports.first { $0.status == "rejected" || $0.status == "would be rejected" }
        let totals = ChangeCountOutput.byKind(kept.flatMap(\.batch.changes))
        let output = ScriptRunOutput(
            script: outcome.id, file: outcome.file, dryRun: dryRun, ok: rejected == nil, written: dryRun ? 0 : kept.count,
            refusedCommits: outcome.refusedCommits, changes: totals, batches: batches, violations: batches.flatMap(\.violations))

        var text = dryRun ? "dry run (nothing written): " : ""
        text += "script \(outcome.id): " + Self.describe(ChangeCountOutput.byKind(outcome.batches.flatMap(\.changes)))
        let checkpoints = outcome.batches.filter(\.isCheckpoint).count
        if checkpoints > 0 || outcome.refusedCommits > 0 {
            text += " (\(checkpoints) checkpoint\(checkpoints == 1 ? "" : "s")"
            if outcome.refusedCommits > 0 { text += ", \(outcome.refusedCommits) commit\(outcome.refusedCommits == 1 ? "" : "s") refused and rolled back" }
            text += ")"
        }
        text += "\n"
        if reports.count > 1 {
            for (index, report) in reports.enumerated() {
                text += "  \(index + 1). \(report.batch.isCheckpoint ? "checkpoint" : "tail"): \(Self.describe(ChangeCountOutput.byKind(report.batch.changes))) — \(report.status)\n"
            }
        }
        text += ViolationReport.table(batches.flatMap(\.violations), weekStart: reports.first?.schedule.settings.weekStart ?? .monday)
        guard let rejected else { return CommandResult(text: text, json: output) }
        let errors = rejected.violations.filter { $0.severity == .error }.count
        let written = dryRun ? "nothing was written" : kept.isEmpty ? "nothing was written"
            : "the first \(kept.count) batch\(kept.count == 1 ? " was" : "es were") written, the rest was not"
        let note = (dryRun ? "the rules would reject the script's changes" : "rejected by the rules")
            + " (\(errors) violation\(errors == 1 ? "" : "s")); \(written)"
        return CommandResult(text: text, json: output, status: .violations, note: note)
    }

    /// `3 shifts added, 1 shift updated` (or `no changes`).
    static func describe(_ counts: [String: ChangeCountOutput]) -> String {
        let nouns = ["locations": ("location", "locations"), "shiftTypes": ("shift type", "shift types"), "people": ("person", "people"),
                     "shifts": ("shift", "shifts"), "demand": ("demand entry", "demand entries"),
                     "availability": ("availability entry", "availability entries"), "settings": ("settings", "settings"),
                     "changeLog": ("change-log prune", "change-log prunes")]
        var parts: [String] = []
        for key in ["locations", "shiftTypes", "people", "shifts", "demand", "availability", "settings", "changeLog"] {
            guard let count = counts[key], let (one, many) = nouns[key] else { continue }
            for (n, verb) in [(count.added, "added"), (count.updated, "updated"), (count.removed, "removed")] where n > 0 {
                parts.append("\(n) \(n == 1 ? one : many) \(verb)")
            }
        }
        return parts.isEmpty ? "no changes" : parts.joined(separator: ", ")
    }
}

extension Change {
    /// The key a change is counted under in JSON (`shifts`, `shiftTypes`…).
    var kindKey: String {
        switch entity {
        case .location: "locations"
        case .shiftType: "shiftTypes"
        case .person: "people"
        case .shift: "shifts"
        case .demand: "demand"
        case .availability: "availability"
        case .settings: "settings"
        case .changeLog: "changeLog"
        case .request: "requests"
        }
    }
}
