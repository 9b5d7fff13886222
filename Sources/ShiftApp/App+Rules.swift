import Foundation
import ShiftCore
import ShiftRules

/// Text, JSON or GitHub Actions annotations for `validate`.
public enum ValidateFormat: String, Sendable, CaseIterable {
    case text, json, github
}

public struct RuleOutput: Encodable, Sendable {
    public let id: String
    public let summary: String
    public let severity: String
    public let enabled: Bool
    public let triggers: [String]
    public let file: String
    public let validatePhase: Bool
    public let personPhase: Bool
    public let dayPhase: Bool
    public let demandPhase: Bool
    public let examples: Int
    public let parameters: Attributes

    enum CodingKeys: String, CodingKey { case id, summary, severity, enabled, triggers, file, validatePhase, personPhase, dayPhase, demandPhase, examples, parameters }

    init(_ rule: RuleInfo) {
        id = rule.id
        summary = rule.summary
        severity = rule.severity.rawValue
        enabled = rule.enabled
        triggers = rule.triggers.map(\.rawValue)
        file = rule.file
        validatePhase = rule.hasValidatePhase
        personPhase = rule.hasPersonPhase
        dayPhase = rule.hasDayPhase
        demandPhase = rule.hasDemandPhase
        examples = rule.exampleCount
        parameters = rule.parameters
    }
}

public struct ExampleOutput: Encodable, Sendable {
    public let rule: String
    public let file: String
    public let name: String
    public let expectsViolation: Bool
    public let passed: Bool
    public let detail: String

    enum CodingKeys: String, CodingKey { case rule, file, name, expectsViolation, passed, detail }
}

/// `validate --stats`: the size of the job and where its time went.
public struct ValidateStats: Encodable, Sendable {
    public let shifts: Int
    public let people: Int
    public let rules: Int
    /// Lua states that may check the schedule side by side.
    public let workers: Int
    /// Calls into the rules run as trials (without counting instructions), and how many of them
    /// were cut short and run again, counted (docs/lua-sandbox.md, "Trials").
    public let trials: Int
    public let trialsRunAgain: Int
    /// Reading the store into memory.
    public let loadSeconds: Double
    /// Loading and compiling the rules.
    public let rulesSeconds: Double
    /// Running the rules over the whole schedule.
    public let checkSeconds: Double
    /// Sorting the violations and naming their people and shift types.
    public let reportSeconds: Double
    /// The process's peak resident memory so far (Linux), nil where unknown.
    public let peakMemoryMiB: Double?

    enum CodingKeys: String, CodingKey {
        case shifts, people, rules, workers, trials, trialsRunAgain, loadSeconds, rulesSeconds, checkSeconds, reportSeconds, peakMemoryMiB
    }

    var text: String {
        func seconds(_ value: Double) -> String { String(format: "%.3f s", value) }
        return "stats: \(shifts) shifts, \(people) people, \(rules) rules, \(workers) workers, \(trials) trials (\(trialsRunAgain) run again); "
            + "load \(seconds(loadSeconds)), rules \(seconds(rulesSeconds)), "
            + "check \(seconds(checkSeconds)), report \(seconds(reportSeconds))"
            + (peakMemoryMiB.map { String(format: "; peak memory %.0f MiB", $0) } ?? "")
    }

    /// Peak resident set size (`VmHWM` in /proc/self/status).
    static func peakMemoryMiB() -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kib = Double(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
        return kib / 1024
    }
}

public struct RulesTestOutput: Encodable, Sendable {
    /// A rule that has no examples, so nothing tested it.
    public struct Untested: Encodable, Sendable {
        public let rule: String
        public let file: String
        enum CodingKeys: String, CodingKey { case rule, file }
    }

    public let passed: Int
    public let failed: Int
    public let examples: [ExampleOutput]
    public let untested: [Untested]

    enum CodingKeys: String, CodingKey { case passed, failed, examples, untested }
}

extension App {
    /// Runs every rule's whole-schedule check. Exit 1 when any error-severity violation is found.
    /// With no enabled rule in force it refuses (`AppError.noRulesInForce`), unless the user chose
    /// to run without rules: a roster nothing checked must not pass as clean.
    /// - Parameters:
    ///   - limit: print at most this many violations (counts and score still cover all of them).
    ///   - stats: report how long each step took (`load`, `rules`, `check`, `report`) and the
    ///     peak memory.
    public func validate(score: Bool, format: ValidateFormat, limit: Int? = nil, stats: Bool = false) throws -> (result: CommandResult, format: OutputFormat) {
        let clock = ContinuousClock()
        var timer = clock.now
        func lap() -> Double {
            let now = clock.now
            defer { timer = now }
            let (whole, fraction) = (now - timer).components
            return Double(whole) + Double(fraction) / 1e18
        }
        let opened = try load()
        var loadSeconds = lap()
        let engine = try workspace.checkingRuleEngine(for: opened.settings)
        let rulesSeconds = lap()
        // Over a store that reads on demand (SQLite, PostgreSQL), rules that go through every
        // shift get it read into memory once; person, day and demand phases read each person's
        // shifts (and each day's) from the store's indexes instead, so the whole schedule is
        // never built. A JSON store's index answers from memory: nothing is read twice. None of
        // them reads the change log.
        let answersFromMemory = opened.source?.answersFromMemory ?? true
        let schedule = engine.readsEveryShift && !answersFromMemory ? try opened.materialized(readingChangeLog: false) : opened
        loadSeconds += lap()
        let violations = try engine.validate(schedule)
        let checkSeconds = lap()
        var report = ViolationReport(
            violations: violations, schedule: schedule, score: score ? ScoreSummary(violations, rules: engine.rules) : nil, rejected: false,
            limit: limit, directory: environment.currentDirectory)
        if stats {
            let trials = engine.trialCounts
            report.stats = ValidateStats(
                shifts: schedule.shiftCount, people: schedule.personCount, rules: engine.rules.filter(\.enabled).count,
                workers: engine.configuration.workers, trials: trials.trials, trialsRunAgain: trials.reruns, loadSeconds: loadSeconds,
                rulesSeconds: rulesSeconds, checkSeconds: checkSeconds, reportSeconds: lap(), peakMemoryMiB: ValidateStats.peakMemoryMiB())
        }
        let status: ExitStatus = report.errors > 0 ? .violations : .ok
        let statsText = report.stats.map { $0.text + "\n" } ?? ""
        switch format {
        case .text:
            let rules = engine.rules.filter(\.enabled).count
            let shifts = "\(schedule.shiftCount) shift\(schedule.shiftCount == 1 ? "" : "s")"
            let okLine = rules > 0 ? "ok: no violations (\(rules) rule\(rules == 1 ? "" : "s"), \(shifts))"
                : "ok: no rules in force (\(workspace.options.noRules ? "--no-rules" : "the store's \(SettingsKey.noRules)")), nothing checked (\(shifts))"
            let text = report.text(okLine: okLine)
            return (CommandResult(text: text + statsText, json: report, status: status), .text)
        case .json:
            return (CommandResult(text: "", json: report, status: status), .json)
        case .github:
            return (CommandResult(text: report.github(relativeTo: environment.currentDirectory) + statsText, json: nil, status: status), .text)
        }
    }

    public func listRules() throws -> CommandResult {
        let schedule = try load()
        let engine = try workspace.ruleEngine(for: schedule.settings)
        let items = engine.rules.map(RuleOutput.init)
        var table = TextTable("ID", "SEVERITY", "ON", "EXAMPLES", "FILE", "SUMMARY")
        for rule in items {
            table.add(rule.id + (rule.enabled ? "" : " (off)"), rule.severity, rule.triggers.joined(separator: ","), String(rule.examples),
                      relative(rule.file), rule.summary)
        }
        let folders = try workspace.rulesDirectories(settings: schedule.settings)
        let text = items.isEmpty ? "no rules in \(folders.isEmpty ? "(no rules folder)" : folders.map(relative).joined(separator: ", "))\n" : table.rendered
        return CommandResult(text: text, json: ListOutput(key: "rules", items: items))
    }

    /// Runs the examples of the rules in `path` (a folder, or one rule file), else of the store's
    /// rules. Exit 1 when one fails; `AppError.nothingToTest` (exit 2) when there is no example to
    /// run, so a wrong folder cannot pass as tested. Rules without examples are listed as
    /// untested.
    public func testRules(directory path: String?) throws -> CommandResult {
        let (engine, folders) = try ruleEngineToTest(path)
        let results = engine.runExamples().map {
            ExampleOutput(rule: $0.ruleID, file: $0.file, name: $0.name, expectsViolation: $0.expectsViolation, passed: $0.passed, detail: $0.detail)
        }
        guard !results.isEmpty else { throw AppError.nothingToTest(folders: folders.map(relative), rules: engine.rules.count) }
        let untested = engine.rules.filter { $0.exampleCount == 0 }.map { RulesTestOutput.Untested(rule: $0.id, file: $0.file) }
        let failed = results.filter { !$0.passed }.count
        var text = ""
        for result in results {
            text += "\(result.passed ? "pass" : "FAIL")  \(result.rule): \(result.name)"
            text += result.passed || result.detail.isEmpty ? "\n" : " — \(result.detail) (\(relative(result.file)))\n"
        }
        for rule in untested { text += "untested  \(rule.rule): no examples (\(relative(rule.file)))\n" }
        text += "\(results.count - failed) passed, \(failed) failed"
            + (untested.isEmpty ? "" : ", \(untested.count) rule\(untested.count == 1 ? "" : "s") untested") + " (\(engine.rules.count) rules)\n"
        return CommandResult(text: text, json: RulesTestOutput(passed: results.count - failed, failed: failed, examples: results, untested: untested),
                             status: failed > 0 ? .violations : .ok)
    }

    /// The rules `rules test` runs: those of a folder or of one `.lua` file (no store needed;
    /// the store's rule settings apply when there is one), else the store's.
    private func ruleEngineToTest(_ path: String?) throws -> (RuleEngine, folders: [String]) {
        guard let path else {
            let settings = try load().settings
            return (try workspace.ruleEngine(for: settings), try workspace.rulesDirectories(settings: settings))
        }
        let absolute = environment.absolute(path)
        let settings = (try? load().settings) ?? StoreSettings(timeZoneIdentifier: "UTC")
        if Workspace.isDirectory(absolute) {
            return (try workspace.ruleEngine(for: settings, directories: [absolute]), [absolute])
        }
        guard FileManager.default.fileExists(atPath: absolute) else {
            throw AppError.fileError(path: path, reason: path.hasSuffix(".lua") ? "no such rule file" : "no such rules folder or rule file")
        }
        guard path.hasSuffix(".lua") else {
            throw AppError.invalidValue(option: "PATH", message: "\(path) is not a rules folder or a .lua rule file")
        }
        let engine = try workspace.ruleEngine(for: settings, directories: [], files: [absolute])
        guard !engine.rules.isEmpty else {
            throw AppError.invalidValue(option: "PATH", message: "\(path) is not a rule (rules test runs the examples of files that return rule { … })")
        }
        return (engine, [absolute])
    }

    /// A path relative to the working folder when it is inside it.
    func relative(_ path: String) -> String { workspace.relativePath(path) }
}
