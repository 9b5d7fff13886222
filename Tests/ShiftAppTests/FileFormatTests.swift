import Foundation
import Testing

/// `--format` is the output format everywhere; `import` and `export` pick the file format with
/// `--file-format`, else from the file's extension.
@Suite struct FileFormatTests {
    @Test func formatJSONBeforeImportGivesTheResultAsJSON() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        try sandbox.write("date,type,person\n2026-03-02,D,Alice\n", to: "q3.csv")
        let result = try sandbox.run("--format", "json", "import", "q3.csv")
        #expect(result.status == 0, "\(result.stderr)")
        let output = try json(result.stdout)
        #expect(output["file"] as? String == "q3.csv")
        #expect((output["shifts"] as? [String: Any])?["added"] as? Int == 1)
    }

    @Test func theFileFormatComesFromItsOptionElseTheExtension() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        #expect(try sandbox.run("schedule", "add", "--type", "D", "--date", "2026-03-02", "--person", "Alice").status == 0)
        let csv = try sandbox.run("export", "-o", "all.csv", "--format", "json")
        #expect(csv.status == 0, "\(csv.stderr)")
        #expect(try json(csv.stdout)["format"] as? String == "csv")
        #expect(String(decoding: try #require(sandbox.bytes("all.csv")), as: UTF8.self).hasPrefix("date,type,person"))
        let ics = try sandbox.run("export", "--file-format", "ics")
        #expect(ics.stdout.hasPrefix("BEGIN:VCALENDAR"))
        #expect(try sandbox.run("export").stdout.hasPrefix("{"), "json when nothing says otherwise")

        try sandbox.write("date,type,person\n2026-03-03,N,Bob\n", to: "shifts.txt")
        let unknown = try sandbox.run("import", "shifts.txt")
        #expect(unknown.status == 2)
        #expect(unknown.stderr == "shiftctl: --file-format: cannot tell the format of shifts.txt from its extension; pass --file-format json, csv or ics\n")
        #expect(try sandbox.run("import", "shifts.txt", "--file-format", "csv").status == 0)
    }

    @Test func theOldFormatOptionForTheFileStillWorksWithANote() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        let old = try sandbox.run("export", "--format", "csv")
        #expect(old.status == 0)
        #expect(old.stdout.hasPrefix("date,type,person"))
        #expect(old.stderr == "shiftctl: note: --format csv names a file format; use --file-format csv (--format is the output format: text or json)\n")
        let clash = try sandbox.run("export", "--format", "csv", "--file-format", "ics")
        #expect(clash.status == 2)
        #expect(clash.stderr.hasPrefix("shiftctl: --format csv and --file-format ics disagree"), "\(clash.stderr)")
        #expect(!clash.stderr.contains("\n") || clash.stderr.filter { $0 == "\n" }.count == 1)
    }
}
