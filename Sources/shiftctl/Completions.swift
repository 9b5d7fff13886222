import ArgumentParser
import Foundation
import ShiftApp
import ShiftCore

/// Shell completion of what the store holds: people, shift types, locations and rotations.
/// The shell runs `shiftctl` to ask (argument-parser's `.custom`), passing the words typed so
/// far; a `--store`, `--rules` or `--no-rules` among them is honoured, as when the command runs.
/// A store or rules folder that cannot be read completes nothing (and prints nothing).
enum Completions {
    static var people: CompletionKind { .custom { names($0, starting: $2) { $0.people.map(\.displayName) } } }
    static var shiftTypes: CompletionKind { .custom { names($0, starting: $2) { $0.shiftTypes.map(\.symbol) } } }
    static var locations: CompletionKind { .custom { names($0, starting: $2) { $0.locations.map(\.name) } } }

    static var rotations: CompletionKind {
        .custom { words, _, prefix in
            let app = App(options: options(words))
            guard let schedule = try? app.workspace.loadSchedule(),
                  let engine = try? app.workspace.ruleEngine(for: schedule.settings) else { return [] }
            return matching(engine.rotations.map(\.id), prefix)
        }
    }

    private static func names(_ words: [String], starting prefix: String, _ pick: (Schedule) -> [String]) -> [String] {
        guard let schedule = try? App(options: options(words)).workspace.loadSchedule() else { return [] }
        return matching(pick(schedule), prefix)
    }

    /// The candidates that start with what was typed (ignoring case; bash offers whatever it
    /// gets).
    private static func matching(_ candidates: [String], _ prefix: String) -> [String] {
        let typed = unquoted(prefix.hasPrefix("'") || prefix.hasPrefix("\"") ? prefix + String(prefix.first!) : prefix).lowercased()
        return candidates.filter { $0.lowercased().hasPrefix(typed) }
    }

    /// `--store`, `--rules` and `--no-rules` as typed (the shell passes words with their quotes).
    static func options(_ words: [String]) -> GlobalOptions {
        var options = GlobalOptions()
        var index = 0
        while index < words.count {
            let word = words[index]
            let value: String? = word.contains("=") ? String(word.drop { $0 != "=" }.dropFirst())
                : index + 1 < words.count ? words[index + 1] : nil
            switch word.prefix(while: { $0 != "=" }) {
            case "--store": options.store = value.map(unquoted)
            case "--rules": if let value { options.rules.append(unquoted(value)) }
            case "--no-rules": options.noRules = true
            default: break
            }
            index += 1
        }
        return options
    }

    private static func unquoted(_ word: String) -> String {
        guard word.count >= 2, let first = word.first, first == word.last, first == "'" || first == "\"" else { return word }
        return String(word.dropFirst().dropLast())
    }
}
