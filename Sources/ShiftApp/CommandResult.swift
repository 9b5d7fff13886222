import Foundation
import ShiftCore
import ShiftRules
import ShiftStorage

/// How a command prints data: aligned text for people or one JSON document for scripts.
public enum OutputFormat: String, Sendable, CaseIterable, Codable {
    case text, json
}

/// Process exit codes.
public enum ExitStatus: Int32, Sendable {
    /// Everything worked.
    case ok = 0
    /// Rules found violations (a rejected change, `validate` findings, failing rule examples).
    case violations = 1
    /// Bad input or configuration; nothing was changed.
    case badInput = 2
}

/// What a command produced: text for people, a JSON value for scripts, and an exit status.
public struct CommandResult: Sendable {
    public var text: String
    public var json: (any Encodable & Sendable)?
    public var status: ExitStatus
    /// A one-line note for stderr (a rejection summary), printed whatever the format.
    public var note: String?

    public init(text: String, json: (any Encodable & Sendable)?, status: ExitStatus = .ok, note: String? = nil) {
        self.text = text
        self.json = json
        self.status = status
        self.note = note
    }

    /// Raw bytes for stdout (export), the same in every format.
    public static func raw(_ text: String) -> CommandResult { CommandResult(text: text, json: nil) }

    /// What to print on stdout for a format.
    public func rendered(_ format: OutputFormat) throws -> String {
        guard format == .json, let json else { return text }
        return try JSONOutput.encode(json)
    }
}

/// The one JSON encoder of the CLI: sorted keys, pretty printed, unescaped slashes.
public enum JSONOutput {
    public static func encode(_ value: any Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self) + "\n"
    }
}

/// Runs a command body and turns its result or error into output and an exit status.
public enum CommandRunner {
    /// What to write where, and the exit status.
    public struct Outcome: Sendable {
        public var stdout: String
        public var stderr: String
        public var status: ExitStatus
    }

    public static func run(format: OutputFormat, _ body: () async throws -> CommandResult) async -> Outcome {
        do {
            let result = try await body()
            let note = result.note.map { note in
                "shiftctl: " + note.split(separator: "\n", omittingEmptySubsequences: false).map { printable(String($0)) }.joined(separator: "\n") + "\n"
            } ?? ""
            return Outcome(stdout: try result.rendered(format), stderr: note, status: result.status)
        } catch let rejection as RejectedChange {
            return rejected(rejection.violations, schedule: rejection.schedule, pending: rejection.pending, directory: rejection.directory,
                            remark: rejection.remark, format: format)
        } catch let ScheduleError.rejected(violations) {
            return rejected(violations, schedule: nil, pending: [], directory: nil, remark: nil, format: format)
        } catch {
            return Outcome(stdout: "", stderr: "shiftctl: \(message(for: error))\n", status: .badInput)
        }
    }

    private static func rejected(_ violations: [Violation], schedule: Schedule?, pending: [ScheduledShift], directory: String?,
                                 remark: String?, format: OutputFormat) -> Outcome {
        let report = ViolationReport(violations: violations, schedule: schedule, pending: pending, score: nil, rejected: true,
                                     directory: directory)
        let errors = report.errors
        return Outcome(
            stdout: (try? CommandResult(text: report.text(), json: report).rendered(format)) ?? "",
            stderr: "shiftctl: rejected by the rules (\(errors) violation\(errors == 1 ? "" : "s")); nothing was written"
                + (remark.map { "; \($0)" } ?? "") + "\n",
            status: .violations)
    }

    /// One line for any error: the app's, the core's, the storage's or the rules' own message.
    public static func message(for error: any Error) -> String {
        let text: String = switch error {
        case let error as AppError: error.description
        case let error as ScheduleError: error.plainMessage
        case let error as StorageError: error.description
        case let error as RuleError: error.description
        case let error as CustomStringConvertible: error.description
        default: error.localizedDescription
        }
        return printable(text.replacingOccurrences(of: "\n", with: " "))
    }

    /// A message line safe to print on a terminal: errors quote what the user gave (a name, a
    /// line of an imported file), so control characters are shown as `\u{1B}` instead of being
    /// sent to the terminal (an escape sequence could clear the screen or rewrite the title).
    public static func printable(_ line: String) -> String {
        guard line.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return line }
        var result = ""
        for scalar in line.unicodeScalars {
            if scalar.properties.generalCategory == .control {
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
