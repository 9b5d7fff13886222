import Foundation
import TestSupport
import Testing

/// docs/cli.md is the user's reference: it must name every command and every option `--help` shows.
@Suite struct DocumentationTests {
    static let commands: [[String]] = [
        ["init"],
        ["location", "add"], ["location", "list"], ["location", "show"], ["location", "update"], ["location", "remove"],
        ["type", "add"], ["type", "list"], ["type", "show"], ["type", "update"], ["type", "remove"],
        ["person", "add"], ["person", "list"], ["person", "show"], ["person", "update"], ["person", "remove"], ["person", "link"],
        ["person", "unlink"],
        ["demand", "add"], ["demand", "list"], ["demand", "remove"],
        ["availability", "add"], ["availability", "list"], ["availability", "remove"],
        ["schedule", "add"], ["schedule", "list"], ["schedule", "remove"], ["schedule", "assign"], ["schedule", "unassign"],
        ["switch"],
        ["request", "swap"], ["request", "offer"], ["request", "claim"], ["request", "time-off"], ["request", "list"],
        ["request", "show"], ["request", "accept"], ["request", "approve"], ["request", "decline"], ["request", "cancel"],
        ["request", "auto-approve"], ["role", "grant"], ["role", "revoke"], ["role", "list"],
        ["log", "show"], ["log", "prune"], ["validate"], ["rules", "list"], ["rules", "test"],
        ["calendar"], ["export"], ["import"], ["migrate"], ["inrc2", "import"], ["inrc2", "export"],
        ["rotate"], ["rotations", "list"], ["rotations", "show"], ["solve"], ["run"],
    ]

    static let reference: String = {
        (try? String(contentsOfFile: repositoryRoot + "/docs/cli.md", encoding: .utf8)) ?? ""
    }()

    @Test(arguments: commands)
    func everyOptionInTheHelpIsDocumented(_ command: [String]) throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let help = try sandbox.run(arguments: ["help"] + command)
        #expect(help.status == 0, "\(help.stderr)")
        #expect(Self.reference.contains("shiftctl " + command.joined(separator: " ")), "docs/cli.md does not show `shiftctl \(command.joined(separator: " "))`")
        let options = Set(help.stdout.matches(of: /--[a-z][a-z-]+/).map { String($0.output) })
        #expect(!options.isEmpty)
        for option in options.sorted() where option != "--help" {
            #expect(Self.reference.contains("`" + option), "docs/cli.md does not document \(option) of \(command.joined(separator: " "))")
        }
    }

    @Test func theRootHelpListsEveryCommandGroup() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let help = try sandbox.run("--help")
        for group in Set(Self.commands.map { $0[0] }) {
            #expect(help.stdout.contains("  \(group)"), "root help lacks \(group)")
        }
    }
}
