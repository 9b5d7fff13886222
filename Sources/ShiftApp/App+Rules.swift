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
    public let examples: Int
    public let parameters: Attributes

    enum CodingKeys: String, CodingKey { case id, summary, severity, enabled, triggers, file, validatePhase, examples, parameters }

    init(_ rule: RuleInfo) {
        id = rule.id
        summary = rule.summary
        severity = rule.severity.rawValue
        enabled = rule.enabled
        triggers = rule.triggers.map(\.rawValue)
        file = rule.file
        validatePhase = rule.hasValidatePhase
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

public struct RulesTestOutput: Encodable, Sendable {
    public let passed: Int
    public let failed: Int
    public let examples: [ExampleOutput]

    enum CodingKeys: String, CodingKey { case passed, failed, examples }
}

extension App {
    /// Runs every rule's whole-schedule check. Exit 1 when any error-severity violation is found.
    public func validate(score: Bool, format: ValidateFormat) throws -> (result: CommandResult, format: OutputFormat) {
        // One read of the whole store, then the rules query memory.
        let schedule = try load().materialized()
        let engine = try workspace.ruleEngine(for: schedule.settings)
        let violations = try engine.validate(schedule)
        let report = ViolationReport(violations: violations, schedule: schedule, score: score ? ScoreSummary(violations, rules: engine.rules) : nil, rejected: false)
        let status: ExitStatus = report.errors > 0 ? .violations : .ok
        switch format {
        case .text:
            let rules = engine.rules.filter(\.enabled).count
            let text = report.text(okLine: "ok: no violations (\(rules) rule\(rules == 1 ? "" : "s"), \(schedule.shiftCount) shift\(schedule.shiftCount == 1 ? "" : "s"))")
            return (CommandResult(text: text, json: report, status: status), .text)
        case .json:
            return (CommandResult(text: "", json: report, status: status), .json)
        case .github:
            return (CommandResult(text: report.github(relativeTo: environment.currentDirectory), json: nil, status: status), .text)
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

    /// Runs the examples of the rules in `directory` (or the store's rules). Exit 1 when one fails.
    public func testRules(directory: String?) throws -> CommandResult {
        let folders: [String]
        let settings: StoreSettings
        if let directory {
            let path = environment.absolute(directory)
            guard Workspace.isDirectory(path) else { throw AppError.rulesFolderMissing(path: directory, origin: "rules test") }
            folders = [path]
            settings = (try? load().settings) ?? StoreSettings(timeZoneIdentifier: "UTC")
        } else {
            settings = try load().settings
            folders = try workspace.rulesDirectories(settings: settings)
        }
        let engine = try workspace.ruleEngine(for: settings, directories: folders)
        let results = engine.runExamples().map {
            ExampleOutput(rule: $0.ruleID, file: $0.file, name: $0.name, expectsViolation: $0.expectsViolation, passed: $0.passed, detail: $0.detail)
        }
        let failed = results.filter { !$0.passed }.count
        var text = ""
        for result in results {
            text += "\(result.passed ? "pass" : "FAIL")  \(result.rule): \(result.name)"
            text += result.passed || result.detail.isEmpty ? "\n" : " — \(result.detail) (\(relative(result.file)))\n"
        }
        text += "\(results.count - failed) passed, \(failed) failed (\(engine.rules.count) rules)\n"
        return CommandResult(text: text, json: RulesTestOutput(passed: results.count - failed, failed: failed, examples: results),
                             status: failed > 0 ? .violations : .ok)
    }

    /// A path relative to the working folder when it is inside it.
    func relative(_ path: String) -> String {
        let root = environment.currentDirectory
        return path.hasPrefix(root + "/") ? String(path.dropFirst(root.count + 1)) : path
    }
}
