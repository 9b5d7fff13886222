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

    @Test func theQuickStartRunsInAFolderOfItsOwn() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let block = try #require(Self.shellBlocks(in: "Quick start").first)
        // The build is this test's own; the rest runs as written, with HOME in the sandbox.
        let script = block.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("swift build") && !$0.hasPrefix("export PATH") }.joined(separator: "\n")
        let folder = CLI.executable.deletingLastPathComponent().path
        let result = try sandbox.run(arguments: [], environment: ["PATH": folder + ":/usr/bin:/bin"],
                                     launcher: ["/bin/bash", "--norc", "-e", "-c", script, "bash"])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("ok: no violations"), "\(result.stdout)")
        // Nothing lands where the reader stood (the repository, whose rules/ is the project's).
        let left = try FileManager.default.contentsOfDirectory(atPath: sandbox.path).filter { !$0.hasPrefix(".") }
        #expect(left.count == 1, "\(left)")
        let store = try #require(left.first.map { sandbox.path + "/" + $0 + "/schedule.json" })
        #expect(FileManager.default.fileExists(atPath: store))
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
