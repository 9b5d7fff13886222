import Foundation

/// Why a command could not run: bad input or configuration (exit code 2). Each message names
/// what was wrong, where, and how to fix it; the CLI prints it as one line after `shiftctl: `.
public enum AppError: Error, Hashable, Sendable, CustomStringConvertible, LocalizedError {
    /// An option or argument has a value that cannot be used (`--date: '2026-02-30' is not a date (YYYY-MM-DD)`).
    case invalidValue(option: String, message: String)
    /// A reference names nothing; `suggestions` are close names.
    case unknownReference(option: String, kind: String, reference: String, suggestions: [String])
    /// A reference matches several entities (`candidates` as `name (id prefix…)`).
    case ambiguousReference(option: String, kindPlural: String, reference: String, candidates: [String])
    /// The store path has an extension no backend handles yet.
    case unsupportedStore(path: String)
    /// There is no store at the path.
    case storeMissing(path: String)
    /// `init` found a store already there.
    case storeExists(path: String)
    /// A rules folder does not exist.
    case rulesFolderMissing(path: String, origin: String)
    /// The stock rules that `init` copies could not be found.
    case stockRulesMissing(searched: [String])
    /// A file could not be read or written.
    case fileError(path: String, reason: String)

    public var description: String {
        switch self {
        case let .invalidValue(option, message):
            "\(option): \(message)"
        case let .unknownReference(option, kind, reference, suggestions):
            "\(option): no \(kind) '\(reference)'"
                + (suggestions.isEmpty ? " (list them with shiftctl \(Self.command(for: kind)) list)" : "; did you mean: " + suggestions.joined(separator: ", "))
        case let .ambiguousReference(option, kindPlural, reference, candidates):
            "\(option): '\(reference)' matches \(candidates.count) \(kindPlural): " + candidates.joined(separator: ", ")
                + "; use more letters or the id"
        case let .unsupportedStore(path):
            "\(path): unsupported store type; name the store with one of \(StoreKind.extensionsText)"
        case let .storeMissing(path):
            "\(path): no schedule store here (create one with shiftctl init, or pass --store)"
        case let .storeExists(path):
            "\(path): a schedule store already exists here (pass --store to create another one)"
        case let .rulesFolderMissing(path, origin):
            "\(path): rules folder not found (from \(origin)); create it, fix the setting, or pass --rules"
        case let .stockRulesMissing(searched):
            "cannot find the stock rules (looked in \(searched.joined(separator: ", "))); set SHIFTCTL_STOCK_RULES to the rules folder, or pass --no-rules"
        case let .fileError(path, reason):
            "\(path): \(reason)"
        }
    }

    public var errorDescription: String? { description }

    private static func command(for kind: String) -> String {
        switch kind {
        case "shift type": "type"
        case "shift": "schedule"
        default: kind
        }
    }
}
