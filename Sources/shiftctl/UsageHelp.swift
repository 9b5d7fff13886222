import ArgumentParser
import Foundation
import ShiftCore

/// Turns the argument parser's usage errors into a line that helps: a mistyped command or
/// option gets the nearest names ("did you mean"), a bad value says what it must be.
///
/// The parser knows that `shedule list` has "2 unexpected arguments", not that `schedule` was
/// meant; this walks the arguments through the command tree (`_dumpHelp`, the parser's own
/// description of every command and option) to find the first word that names nothing.
struct UsageHelp {
    /// One command of the tree: its name, subcommands and option names (`--type`, `-o`).
    struct Command: Decodable {
        var commandName: String
        var defaultSubcommand: String?
        var subcommands: [Command]?
        var arguments: [Argument]?

        struct Argument: Decodable {
            struct Name: Decodable {
                var kind: String
                var name: String
            }
            var kind: String
            var names: [Name]?
            var valueName: String?
            var allValues: [String]?

            /// `--type`, `-o`.
            var spellings: [String] {
                (names ?? []).map { ($0.kind == "short" ? "-" : $0.kind == "longWithSingleDash" ? "-" : "--") + $0.name }
            }
        }

        var options: [Argument] { (arguments ?? []).filter { $0.kind != "positional" } }

        /// The default subcommands from the command types: the dump leaves out those named by
        /// their type (`defaultSubcommand: Show.self` without a `commandName`).
        mutating func takeDefaults(from type: any ParsableCommand.Type) {
            defaultSubcommand = defaultSubcommand ?? type.configuration.defaultSubcommand?._commandName
            for child in type.configuration.subcommands {
                guard let index = subcommands?.firstIndex(where: { $0.commandName == child._commandName }) else { continue }
                subcommands?[index].takeDefaults(from: child)
            }
        }

        /// The subcommand that runs when none is named (`log` is `log show`).
        var fallback: Command? { defaultSubcommand.flatMap { name in subcommands?.first { $0.commandName == name } } }

        func option(_ spelling: String) -> Argument? {
            options.first { $0.spellings.contains(spelling) } ?? fallback?.option(spelling)
        }
    }

    private struct ToolInfo: Decodable { var command: Command }

    let root: Command

    init(root: Command) { self.root = root }

    /// The tree of `Shiftctl`, as the parser describes it.
    static func forShiftctl() -> UsageHelp? {
        guard var info = try? JSONDecoder().decode(ToolInfo.self, from: Data(Shiftctl._dumpHelp().utf8)) else { return nil }
        info.command.takeDefaults(from: Shiftctl.self)
        return UsageHelp(root: info.command)
    }

    /// A message for what went wrong in `arguments`, or nil when nothing here explains it.
    func diagnose(_ arguments: [String], parserMessage: String) -> String? {
        var node = root
        var path: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { break }
            if path.isEmpty, argument == "help" { return nil }
            if argument.hasPrefix("-"), argument.count > 1, Double(argument) == nil {
                let spelling = String(argument.prefix { $0 != "=" })
                guard let option = node.option(spelling) ?? root.option(spelling) else {
                    return unknownOption(spelling, in: node, path: path)
                }
                index += option.kind == "option" && !argument.contains("=") ? 2 : 1
                continue
            }
            if let subcommands = node.subcommands, !subcommands.isEmpty {
                guard let next = subcommands.first(where: { $0.commandName == argument }) else {
                    let names = subcommands.map(\.commandName)
                    guard let fallback = node.fallback, NearestNames.suggestions(for: argument, among: names).isEmpty else {
                        return unknownCommand(argument, among: names, path: path)
                    }
                    // A word for the default subcommand (`log` runs `log show`).
                    node = fallback
                    path.append(fallback.commandName)
                    index += 1
                    continue
                }
                node = next
                path.append(argument)
            }
            index += 1
        }
        return badValue(parserMessage, in: node)
    }

    private func unknownCommand(_ word: String, among names: [String], path: [String]) -> String {
        let near = NearestNames.suggestions(for: word, among: names.filter { $0 != "help" })
        let place = path.isEmpty ? "" : path.joined(separator: " ") + ": "
        let hint = near.isEmpty ? "commands: " + names.filter { $0 != "help" }.joined(separator: ", ") : "did you mean: " + near.joined(separator: ", ") + "?"
        return "\(place)no command '\(word)'; \(hint) (see shiftctl help\(path.isEmpty ? "" : " " + path.joined(separator: " ")))"
    }

    private func unknownOption(_ spelling: String, in node: Command, path: [String]) -> String {
        let known = (node.options + (path.isEmpty ? [] : root.options)).flatMap(\.spellings).filter { $0.hasPrefix("--") && $0 != "--help" }
        let near = NearestNames.suggestions(for: String(spelling.drop { $0 == "-" }), among: known.map { String($0.dropFirst(2)) })
        let place = path.isEmpty ? "" : path.joined(separator: " ") + ": "
        let hint = near.isEmpty ? "" : "; did you mean " + near.map { "--" + $0 }.joined(separator: " or ") + "?"
        return "\(place)no option '\(spelling)'\(hint) (see shiftctl help\(path.isEmpty ? "" : " " + path.joined(separator: " ")))"
    }

    /// `The value 'x' is invalid for '--format <format>'` → `--format: 'x' is not one of text, json`.
    private func badValue(_ message: String, in node: Command) -> String? {
        if let match = message.firstMatch(of: /^The value '(.*)' is invalid for '(-[^ ']+)[^']*'(?:: (.*))?/) {
            let (value, spelling) = (String(match.output.1), String(match.output.2))
            let option = node.option(spelling) ?? root.option(spelling)
            if let values = option?.allValues, !values.isEmpty {
                return "\(spelling): '\(value)' is not one of \(values.joined(separator: ", "))"
            }
            let must = match.output.3.map(String.init) ?? "must be \(Self.expected(option?.valueName))"
            return "\(spelling): '\(value)' is not valid: \(must)"
        }
        return nil
    }

    /// What a value must look like, from its value name in the help.
    private static func expected(_ valueName: String?) -> String {
        switch valueName?.lowercased() {
        case "seconds", "weight", "penalty": "a number"
        default: "a whole number"
        }
    }
}
