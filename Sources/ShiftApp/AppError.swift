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
    /// Several entities share the name a reference gives in full (a store from before names had
    /// to differ): only an id tells them apart. `ids` are id prefixes.
    case sharedName(option: String, kind: String, kindPlural: String, name: String, ids: [String])
    /// The store path has an extension no backend handles yet.
    case unsupportedStore(path: String)
    /// There is no store at the path.
    case storeMissing(path: String)
    /// `init` found a store already there.
    case storeExists(path: String)
    /// A rules folder does not exist.
    case rulesFolderMissing(path: String, origin: String)
    /// A command that checks or changes the schedule found no enabled rule in force: no rules
    /// folder, folders without rules (`loaded` 0), or every loaded rule disabled. `origin` says
    /// where the folders came from (`--rules`, the store's setting).
    case noRulesInForce(folders: [String], origin: String, loaded: Int)
    /// `rules test` found no example to run: no rules (`rules` 0), or rules without examples.
    case nothingToTest(folders: [String], rules: Int)
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
        case let .sharedName(option, kind, kindPlural, name, ids):
            "\(option): \(ids.count) \(kindPlural) are called '\(name)' (\(ids.joined(separator: ", "))); name one by its id, "
                + "and give each \(kind) a name of \(kind == "person" ? "their" : "its") own: shiftctl \(Self.command(for: kind)) update \(ids.last ?? "ID") --name NEW"
        case let .unsupportedStore(path):
            "\(path): unsupported store type; name the store with one of \(StoreKind.extensionsText)"
        case let .storeMissing(path):
            "\(path): no schedule store here (create one with shiftctl init, or pass --store)"
        case let .storeExists(path):
            "\(path): a schedule store already exists here (pass --store to create another one)"
        case let .rulesFolderMissing(path, origin):
            "\(path): rules folder not found (from \(origin)); create it, fix the setting, or pass --rules"
        case let .noRulesInForce(folders, origin, loaded):
            if folders.isEmpty {
                "no rules loaded: no rules folder (\(origin)), so nothing would be checked; pass --rules DIR, or --no-rules to go ahead without rules"
            } else if loaded == 0 {
                "no rules loaded from \(folders.joined(separator: ", ")) (from \(origin)), so nothing would be checked; "
                    + "pass --rules with a folder of rules, or --no-rules to go ahead without rules"
            } else {
                "all \(loaded) rule\(loaded == 1 ? "" : "s") in \(folders.joined(separator: ", ")) (from \(origin)) "
                    + "\(loaded == 1 ? "is" : "are") disabled by the store's rules.disabled, so nothing would be checked; "
                    + "enable one, or pass --no-rules to go ahead without rules"
            }
        case let .nothingToTest(folders, rules):
            rules == 0
                ? "no rules to test in \(folders.isEmpty ? "(no rules folder)" : folders.joined(separator: ", ")); pass a folder of rules or a rule file: shiftctl rules test PATH"
                : "nothing to test: the \(rules) rule\(rules == 1 ? "" : "s") in \(folders.joined(separator: ", ")) \(rules == 1 ? "has" : "have") no examples (add examples = { … }: docs/rules.md)"
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
