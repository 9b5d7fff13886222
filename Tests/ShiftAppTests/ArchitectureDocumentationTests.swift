import Foundation
import TestSupport
import Testing

/// docs/architecture.md is the map of the code. Every file it names must exist, and every
/// `Type.member` a table row names must still be found in a file of that row: a moved file or a
/// renamed function fails here until the map follows.
@Suite struct ArchitectureDocumentationTests {
    static let page: String = {
        (try? String(contentsOfFile: repositoryRoot + "/docs/architecture.md", encoding: .utf8)) ?? ""
    }()

    /// Where repository paths start, and the top-level files a page may name.
    static let folders = ["Sources/", "Tests/", "rules/", "docs/", "scripts/", "benchmarks/", "Fuzz/", "Examples/"]
    static let topLevelFiles: Set<String> = ["Package.swift", "Makefile", "README.md", "CONTRIBUTING.md", "BENCHMARKS.md"]

    /// The repository path a code span names (`Sources/…`, `Package.swift`), or nil: a span
    /// with a space or of another kind (a type, a command) is not a path.
    static func path(inSpan span: String) -> String? {
        guard !span.contains(where: \.isWhitespace) else { return nil }
        var path = span
        // `file:12` names a line of the file.
        if let colon = path.lastIndex(of: ":"), path[path.index(after: colon)...].allSatisfy(\.isNumber) {
            path = String(path[..<colon])
        }
        guard folders.contains(where: path.hasPrefix) || topLevelFiles.contains(path) else { return nil }
        return path.hasSuffix("/") ? String(path.dropLast()) : path
    }

    /// The page without its fenced code blocks, and the repository paths written inside those.
    static func splitFences(_ text: String) -> (prose: String, fencedPaths: [String]) {
        var prose = ""
        var fenced: [String] = []
        var inFence = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                inFence.toggle()
                continue
            }
            if inFence {
                for token in line.split(whereSeparator: { $0.isWhitespace || "()[],;\"'`".contains($0) }) {
                    if let path = path(inSpan: String(token)) { fenced.append(path) }
                }
            } else {
                prose += line + "\n"
            }
        }
        return (prose, fenced)
    }

    /// The code spans of a piece of Markdown.
    static func spans(_ text: some StringProtocol) -> [String] {
        String(text).matches(of: /`([^`\n]+)`/).map { String($0.output.1) }
    }

    /// Every path the page names, from the repository root: code spans, fenced blocks, and
    /// links (which are relative to docs/).
    static func references(in text: String) -> [String] {
        let (prose, fenced) = splitFences(text)
        var paths = spans(prose).compactMap(path(inSpan:)) + fenced
        for link in prose.matches(of: /\]\(([^)\s]+)\)/) {
            var target = String(link.output.1)
            guard !target.contains("://"), !target.hasPrefix("#"), !target.hasPrefix("mailto:") else { continue }
            if let hash = target.firstIndex(of: "#") { target = String(target[..<hash]) }
            paths.append(normalized("docs/" + target))
        }
        return paths
    }

    /// `docs/../Makefile` → `Makefile` (Foundation resolves `..` in absolute paths only).
    static func normalized(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") where part != "." {
            if part == "..", let last = parts.last, last != ".." { parts.removeLast() } else { parts.append(part) }
        }
        return parts.joined(separator: "/")
    }

    static func exists(_ path: String, directory: Bool? = nil) -> Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: repositoryRoot + "/" + path, isDirectory: &isDirectory) else { return false }
        return directory.map { $0 == isDirectory.boolValue } ?? true
    }

    @Test func everyPathItNamesExists() {
        #expect(!Self.page.isEmpty, "docs/architecture.md is missing")
        let paths = Self.references(in: Self.page)
        #expect(paths.count > 50, "found only \(paths.count) references: is the extraction broken?")
        for path in Set(paths).sorted() {
            #expect(Self.exists(path), "docs/architecture.md names \(path), which does not exist")
        }
    }

    /// `ScheduleStore.apply`, `LuaRuntime.call(_:_:rewind:)`: a dotted name whose last part is
    /// the member to look for (`apply`, `call`). File names (`Package.swift`) are not members.
    static func member(inSpan span: String) -> String? {
        guard let match = span.wholeMatch(of: /(?:[A-Z][A-Za-z0-9]*\.)+([A-Za-z_][A-Za-z0-9_]*)(?:\([^)]*\))?/) else { return nil }
        let member = String(match.output.1)
        return ["swift", "md", "c", "h", "lua"].contains(member) ? nil : member
    }

    @Test func theFunctionsOfEachTableRowAreInItsFiles() throws {
        let (prose, _) = Self.splitFences(Self.page)
        var checked = 0
        for row in prose.split(separator: "\n") where row.hasPrefix("|") {
            let cells = Self.spans(row)
            let files = cells.compactMap(Self.path(inSpan:)).filter { Self.exists($0, directory: false) }
            guard !files.isEmpty else { continue }
            let texts = files.compactMap { file in
                FileManager.default.contents(atPath: repositoryRoot + "/" + file).map { String(decoding: $0, as: UTF8.self) }
            }
            for span in cells {
                guard let member = Self.member(inSpan: span) else { continue }
                checked += 1
                #expect(texts.contains { $0.contains(member) },
                        "docs/architecture.md: `\(span)` is in none of its row's files (\(files.joined(separator: ", ")))")
            }
        }
        #expect(checked > 30, "checked only \(checked) names: is the extraction broken?")
    }

    @Test func extractionFindsSpansLinksAndFencedPaths() {
        #expect(Self.path(inSpan: "Sources/ShiftCore/Store/ScheduleStore.swift") == "Sources/ShiftCore/Store/ScheduleStore.swift")
        #expect(Self.path(inSpan: "rules/no_double_booking.lua:14") == "rules/no_double_booking.lua")
        #expect(Self.path(inSpan: "Sources/shiftctl/") == "Sources/shiftctl")
        #expect(Self.path(inSpan: "Package.swift") == "Package.swift")
        #expect(Self.path(inSpan: "shiftctl schedule add") == nil)
        #expect(Self.path(inSpan: "ScheduleStore.apply") == nil)
        #expect(Self.member(inSpan: "LuaRuntime.call(_:_:rewind:)") == "call")
        #expect(Self.member(inSpan: "Shiftctl.ScheduleCommand.Add.run") == "run")
        #expect(Self.member(inSpan: "Package.swift") == nil)
        #expect(Self.member(inSpan: "runEach") == nil)
        let text = "a `Sources/X.swift` b\n```\nsee Sources/Y.swift here\n```\n[c](../Makefile) [d](solve.md#slots) [e](https://x.org/a)\n"
        let (prose, fenced) = Self.splitFences(text)
        #expect(fenced == ["Sources/Y.swift"])
        #expect(Self.spans(prose) == ["Sources/X.swift"])
        #expect(!prose.contains("Y.swift"))
        #expect(Self.references(in: text) == ["Sources/X.swift", "Sources/Y.swift", "Makefile", "docs/solve.md"])
    }
}
