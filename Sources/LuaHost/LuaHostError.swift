import Foundation

/// Every error LuaHost reports. Each case names the chunk (e.g.
/// `rules/no_double_booking.lua`) and, where known, the line (0 = unknown).
public enum LuaHostError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The chunk did not compile (Lua syntax error, or a binary chunk).
    case syntax(chunk: String, line: Int, message: String)
    /// The script raised an error (`error(...)`, a failed operation, an
    /// error thrown by a host function that nobody caught). `message` has the
    /// `chunk:line:` prefix removed; `traceback` is Lua's stack traceback.
    case runtime(chunk: String, line: Int, message: String, traceback: String)
    /// The evaluation used up its instruction budget (`limit` units).
    case budgetExceeded(chunk: String, line: Int, limit: Int)
    /// The evaluation ran past its wall-clock limit.
    case timeLimitExceeded(chunk: String, line: Int, seconds: Double)
    /// The runtime's memory cap (`limit` bytes) refused an allocation.
    case memoryExceeded(chunk: String, limit: Int)
    /// A value could not be converted between Swift and Lua (nesting too
    /// deep, too many entries, a reference from another runtime, ...).
    case invalidValue(reason: String)
    /// The API was used in a way it does not support (for example calling
    /// into the runtime from inside a host function).
    case misuse(reason: String)
    /// The runtime could not be created.
    case setupFailed(reason: String)

    private static func place(_ chunk: String, _ line: Int) -> String {
        line > 0 ? "\(chunk):\(line)" : chunk
    }

    /// One line: `chunk:line: what happened`.
    public var description: String {
        switch self {
        case let .syntax(chunk, line, message):
            return "\(Self.place(chunk, line)): syntax error: \(message)"
        case let .runtime(chunk, line, message, _):
            return "\(Self.place(chunk, line)): \(message)"
        case let .budgetExceeded(chunk, line, limit):
            return "\(Self.place(chunk, line)): instruction budget exceeded (\(limit) units)"
        case let .timeLimitExceeded(chunk, line, seconds):
            return "\(Self.place(chunk, line)): time limit exceeded (\(seconds) s)"
        case let .memoryExceeded(chunk, limit):
            return "\(chunk): memory limit exceeded (\(limit) bytes)"
        case let .invalidValue(reason):
            return "invalid value: \(reason)"
        case let .misuse(reason):
            return "LuaHost misuse: \(reason)"
        case let .setupFailed(reason):
            return "cannot create Lua runtime: \(reason)"
        }
    }

    public var errorDescription: String? { description }
}

/// Throw this from a host function to raise a Lua error with exactly this
/// message (Lua adds the caller's `chunk:line:`). Any other error thrown by a
/// host function is raised with its `description`.
public struct LuaScriptError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
