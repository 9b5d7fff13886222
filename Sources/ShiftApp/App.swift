import Foundation
import ShiftCore

/// What `shiftctl` does, one method per command. Each returns a `CommandResult` (text, JSON,
/// exit status) or throws an error that `CommandRunner` turns into one line on stderr.
public struct App: Sendable {
    public let workspace: Workspace

    public init(options: GlobalOptions = GlobalOptions(), environment: AppEnvironment = .live) {
        workspace = Workspace(options: options, environment: environment)
    }

    var environment: AppEnvironment { workspace.environment }

    /// The schedule for read-only commands.
    func load() throws -> Schedule { try workspace.loadSchedule() }

    /// A date option in the store's time zone (`today` works).
    func date(_ text: String, option: String, in schedule: Schedule) throws -> LocalDate {
        try InputParsing.date(text, option: option, zone: schedule.zone, now: environment.now())
    }

    func optionalDate(_ text: String?, option: String, in schedule: Schedule) throws -> LocalDate? {
        try text.map { try date($0, option: option, in: schedule) }
    }

    /// Today in the store's time zone.
    func today(in schedule: Schedule) -> LocalDate {
        schedule.zone.localDateTime(at: environment.now()).date
    }

    /// Applies a mutation and reports it: `added location Ward A (4f1c2a3b)`, plus rule warnings.
    func commit<Item: Encodable & Sendable>(
        _ mutation: Mutation, action: String, kind: String, id: String, label: String,
        item: (Schedule) -> Item?
    ) async throws -> CommandResult {
        let (result, schedule) = try await workspace.apply(mutation)
        return report(result, in: schedule, action: action, kind: kind, id: id, label: label, item: item(schedule))
    }

    /// Reports a commit: `added location Ward A (4f1c2a3b)`, plus rule warnings.
    func report<Item: Encodable & Sendable>(
        _ result: CommitResult, in schedule: Schedule, action: String, kind: String, id: String, label: String, item: Item?
    ) -> CommandResult {
        let warnings = result.violations.map { ViolationOutput($0, schedule: schedule, directory: environment.currentDirectory) }
        var text = "\(action) \(kind) \(label) (\(shortID(id)))\n"
        for group in ViolationReport.grouped(warnings, weekStart: schedule.settings.weekStart) {
            let warning = warnings[group.items[0]]
            let when = ViolationReport.span(group.first, group.last).map { "\($0) " } ?? ""
            text += "\(warning.severity): \(when)\(warning.message) (\(warning.rule))" + (group.count > 1 ? " (×\(group.count))\n" : "\n")
        }
        let output = MutationOutput(action: action, kind: kind, id: id, item: item, warnings: warnings)
        return CommandResult(text: text, json: output)
    }

    /// `key: value` lines for `show`.
    static func fields(_ pairs: [(String, String)]) -> String {
        let width = pairs.map(\.0.count).max() ?? 0
        return pairs.map { TextWidth.pad($0.0 + ":", to: width + 1) + " " + $0.1 }.joined(separator: "\n") + "\n"
    }

    /// Applies `--attr` and `--remove-attr` to existing attributes.
    static func updated(_ attributes: Attributes, set: [String], remove: [String]) throws -> Attributes {
        var result = attributes
        for (key, value) in try InputParsing.attributes(set) { result[key] = value }
        for key in remove {
            guard result.removeValue(forKey: key) != nil else {
                throw AppError.invalidValue(option: "--remove-attr", message: "no attribute '\(key)' (have: \(attributes.keys.sorted().joined(separator: ", ")))")
            }
        }
        return result
    }
}
