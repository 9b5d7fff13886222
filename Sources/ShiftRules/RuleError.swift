import Foundation
import LuaHost

/// Why rules could not be loaded or run. Each message is one line naming the file (and line
/// where known) and what to do.
public enum RuleError: Error, Hashable, Sendable, CustomStringConvertible, LocalizedError {
    /// A rules folder given with `--rules` or in the store's settings does not exist.
    case directoryNotFound(path: String)
    /// A rule file could not be read.
    case unreadable(file: String, reason: String)
    /// A rule file failed to compile or to run its top level (`file:line: message`).
    case loadFailed(file: String, line: Int, message: String)
    /// The file ran but did not return a well-formed rule.
    case invalidRule(file: String, message: String)
    /// Two files declare the same rule id.
    case duplicateID(id: String, files: [String])
    /// A rule's check or validate failed while evaluating (the mutation is rejected).
    case evaluationFailed(ruleID: String, file: String, line: Int, message: String)
    /// The Lua runtime could not be set up.
    case runtimeSetup(message: String)

    public var description: String {
        switch self {
        case let .directoryNotFound(path):
            "\(path): rules folder not found (pass --rules DIR, or run shiftctl init to get the stock rules)"
        case let .unreadable(file, reason):
            "\(file): cannot read rule: \(reason)"
        case let .loadFailed(file, line, message):
            "\(Self.place(file, line)): \(message)"
        case let .invalidRule(file, message):
            "\(file): \(message)"
        case let .duplicateID(id, files):
            "rule id '\(id)' is declared by more than one file: \(files.joined(separator: ", ")); ids must be unique"
        case let .evaluationFailed(ruleID, file, line, message):
            "\(Self.place(file, line)): rule \(ruleID) failed: \(message)"
        case let .runtimeSetup(message):
            "cannot start Lua to run the rules: \(message)"
        }
    }

    public var errorDescription: String? { description }

    private static func place(_ file: String, _ line: Int) -> String { line > 0 ? "\(file):\(line)" : file }

    /// Maps a LuaHost error raised while loading a file.
    static func load(_ error: Error, file: String) -> RuleError {
        guard let lua = error as? LuaHostError else { return .loadFailed(file: file, line: 0, message: "\(error)") }
        switch lua {
        case let .syntax(chunk, line, message): return .loadFailed(file: chunk, line: line, message: "syntax error: \(message)")
        case let .runtime(chunk, line, message, _): return .loadFailed(file: chunk, line: line, message: message)
        case let .budgetExceeded(chunk, line, limit):
            return .loadFailed(file: chunk, line: line, message: "instruction budget exceeded (\(limit) units) while loading")
        case let .timeLimitExceeded(chunk, line, seconds):
            return .loadFailed(file: chunk, line: line, message: "time limit exceeded (\(seconds) s) while loading")
        case let .memoryExceeded(_, limit): return .loadFailed(file: file, line: 0, message: "memory limit exceeded (\(limit) bytes) while loading")
        default: return .loadFailed(file: file, line: 0, message: lua.description)
        }
    }

    /// Maps a LuaHost error raised while a rule ran.
    static func evaluation(_ error: Error, ruleID: String, file: String) -> RuleError {
        guard let lua = error as? LuaHostError else {
            if let rule = error as? RuleError { return rule }
            return .evaluationFailed(ruleID: ruleID, file: file, line: 0, message: "\(error)")
        }
        switch lua {
        case let .runtime(chunk, line, message, _): return .evaluationFailed(ruleID: ruleID, file: chunk, line: line, message: message)
        case let .budgetExceeded(chunk, line, limit):
            return .evaluationFailed(ruleID: ruleID, file: chunk, line: line, message: "instruction budget exceeded (\(limit) units)")
        case let .timeLimitExceeded(chunk, line, seconds):
            return .evaluationFailed(ruleID: ruleID, file: chunk, line: line, message: "time limit exceeded (\(seconds) s)")
        case let .memoryExceeded(_, limit):
            return .evaluationFailed(ruleID: ruleID, file: file, line: 0, message: "memory limit exceeded (\(limit) bytes)")
        case let .syntax(chunk, line, message): return .evaluationFailed(ruleID: ruleID, file: chunk, line: line, message: message)
        default: return .evaluationFailed(ruleID: ruleID, file: file, line: 0, message: lua.description)
        }
    }
}
