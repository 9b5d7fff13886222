import Foundation
import TestSupport
import Testing

/// The README's quick start, run as a reader would: in a shell, from wherever they are.
@Suite struct ReadmeTests {
    static let readme = (try? String(contentsOfFile: repositoryRoot + "/README.md", encoding: .utf8)) ?? ""

    /// The `sh` code blocks of a section (up to the next heading of the same level or higher).
    static func shellBlocks(in section: String) -> [String] {
        guard let start = readme.range(of: "\n## " + section + "\n") else { return [] }
        let rest = readme[start.upperBound...]
        let body = rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest
        return body.components(separatedBy: "```sh\n").dropFirst().compactMap { $0.components(separatedBy: "\n```").first }
    }

    /// Runs `script` with bash in the sandbox (HOME), with the built `shiftctl` on the PATH.
    static func shell(_ script: String, in sandbox: Sandbox) throws -> CLIResult {
        let folder = CLI.executable.deletingLastPathComponent().path
        return try sandbox.run(arguments: [], environment: ["PATH": folder + ":/usr/bin:/bin"],
                               launcher: ["/bin/bash", "--norc", "-e", "-c", script, "bash"])
    }

    /// The quick start's first block as a reader runs it: the build is the test's own.
    static func runQuickStart(in sandbox: Sandbox) throws -> CLIResult {
        let block = try #require(shellBlocks(in: "Quick start").first)
        let script = block.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("swift build") && !$0.hasPrefix("export PATH") }.joined(separator: "\n")
        return try shell(script, in: sandbox)
    }

    @Test func theQuickStartRunsInAFolderOfItsOwn() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let result = try Self.runQuickStart(in: sandbox)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("ok: no violations"), "\(result.stdout)")
        // Nothing lands where the reader stood (the repository, whose rules/ is the project's).
        let left = try FileManager.default.contentsOfDirectory(atPath: sandbox.path).filter { !$0.hasPrefix(".") }
        #expect(left.count == 1, "\(left)")
        let store = try #require(left.first.map { sandbox.path + "/" + $0 + "/schedule.json" })
        #expect(FileManager.default.fileExists(atPath: store))
    }

    /// The transcript of a `###` subsection's first plain code block: each `$ ` command with the
    /// lines it printed.
    static func transcript(in subsection: String) -> [(command: String, output: [String])] {
        guard let start = readme.range(of: "\n### " + subsection + "\n"),
              let open = readme[start.upperBound...].range(of: "\n```\n"),
              let close = readme[open.upperBound...].range(of: "\n```") else { return [] }
        var steps: [(command: String, output: [String])] = []
        for line in readme[open.upperBound..<close.lowerBound].split(separator: "\n") {
            if line.hasPrefix("$ ") { steps.append((String(line.dropFirst(2)), [])) } else if !steps.isEmpty { steps[steps.count - 1].output.append(String(line)) }
        }
        return steps
    }

    /// A line of output with what differs from run to run (ids, dates, times, weekdays) named
    /// instead, and runs of spaces as one.
    static func normalized(_ line: some StringProtocol) -> String {
        String(line).replacing(/\b[0-9a-f]{8}\b/, with: "ID").replacing(/\d{4}-\d{2}-\d{2}/, with: "DATE")
            .replacing(/\d{4}-\d{2}\s+\d{2}/, with: "MONTH DAY").replacing(/\b\d{2}:\d{2}\b/, with: "TIME")
            .replacing(/\b(Mo|Tu|We|Th|Fr|Sa|Su)\b/, with: "WEEKDAY").split(separator: " ").joined(separator: " ")
    }

    /// The README's swap, on the quick start's store: each command runs as shown (with the ids
    /// this run made in place of the README's), fails where the README shows a refusal, and
    /// prints every line the README shows.
    @Test func theSwapFromRequestToApprovalRunsAsShown() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try #require(try Self.runQuickStart(in: sandbox).status == 0)
        let steps = Self.transcript(in: "A swap, from request to approval")
        #expect(steps.count >= 10, "\(steps)")
        var ids: [String: String] = [:]
        for step in steps {
            var command = step.command
            for token in Set(command.matches(of: /\b[0-9a-f]{4,8}\b/).map { String($0.output) }) {
                if let shown = ids.keys.first(where: { $0.hasPrefix(token) }) { command = command.replacing(token, with: ids[shown]!) }
            }
            let result = try Self.shell("cd ~/ward && " + command, in: sandbox)
            let printed = result.stdout + result.stderr
            let refused = step.output.first?.hasPrefix("shiftctl: ") == true
            #expect((result.status == 0) != refused, "\(command): \(printed)")
            let lines = Set(printed.split(separator: "\n").map(Self.normalized))
            for line in step.output { #expect(lines.contains(Self.normalized(line)), "\(command): '\(line)' not in \(printed)") }
            let shownIDs = step.output.flatMap { $0.matches(of: /\b[0-9a-f]{8}\b/).map { String($0.output) } }
            let madeIDs = printed.matches(of: /\b[0-9a-f]{8}\b/).map { String($0.output) }
            for (shown, made) in zip(shownIDs, madeIDs) { ids[shown] = made }
        }
    }

    /// zsh reads an unquoted `[nurse]` as a file pattern and stops with "no matches found".
    @Test func bracketsInTheReadmesCommandsAreQuoted() throws {
        let blocks = Self.readme.components(separatedBy: "```sh\n").dropFirst().compactMap { $0.components(separatedBy: "\n```").first }
        #expect(!blocks.isEmpty)
        for line in blocks.joined(separator: "\n").split(separator: "\n") {
            let unquoted = String(line).replacing(/'[^']*'|"[^"]*"/, with: "").split(separator: "#").first ?? ""
            #expect(!unquoted.contains("[") && !unquoted.contains("]"), "unquoted brackets: \(line)")
        }
    }
}
