import Foundation
import Testing

/// Typos get help: the nearest command or option, and what a value must be. One line, exit 2.
@Suite struct UsageHelpTests {
    struct Case: Sendable, CustomStringConvertible {
        let arguments: [String]
        let says: String
        var description: String { arguments.joined(separator: " ") }
    }

    static let cases: [Case] = [
        Case(arguments: ["shedule", "list"], says: "no command 'shedule'; did you mean: schedule? (see shiftctl help)"),
        Case(arguments: ["schedule", "ad", "--type", "E"], says: "schedule: no command 'ad'; did you mean: add? (see shiftctl help schedule)"),
        Case(arguments: ["person", "lst"], says: "person: no command 'lst'; did you mean: list? (see shiftctl help person)"),
        Case(arguments: ["schedule", "add", "--tpye", "D"], says: "schedule add: no option '--tpye'; did you mean --type? (see shiftctl help schedule add)"),
        Case(arguments: ["--stroe", "x.json", "person", "list"], says: "no option '--stroe'; did you mean --store? (see shiftctl help)"),
        Case(arguments: ["schedule", "list", "--limit", "-3"], says: "--limit: -3 must be at least 1"),
        Case(arguments: ["log", "--limit", "many"], says: "--limit: 'many' is not valid: must be a whole number"),
        Case(arguments: ["calendar", "roster", "--days", "-1"], says: "--days: -1 must be at least 1"),
        Case(arguments: ["validate", "--limit", "-1"], says: "--limit must be 0 or more (see shiftctl help)"),
        Case(arguments: ["person", "list", "--format", "xml"], says: "--format: 'xml' is not one of text, json"),
        Case(arguments: ["demand", "add", "--type", "D", "--weekday", "mon", "--min", "two"], says: "--min: 'two' is not valid: must be a whole number"),
    ]

    @Test(arguments: cases)
    func aUsageErrorSaysWhatWasMeant(_ item: Case) throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        let before = try #require(sandbox.bytes())
        let result = try sandbox.run(arguments: item.arguments)
        #expect(result.status == 2)
        #expect(result.stderr == "shiftctl: " + item.says + "\n")
        #expect(result.stdout.isEmpty)
        #expect(sandbox.bytes() == before)
    }

    @Test func theTopLevelHelpShowsFormat() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let help = try sandbox.run("--help")
        #expect(help.stdout.contains("USAGE: shiftctl [--store <path>] [--rules <dir> ...] [--no-rules] [--as <user>] [--format text|json] <subcommand>"))
        #expect(help.stdout.contains("--format text|json is the output format of every command"))
    }
}
