import Foundation
import ShiftCore
import Testing

/// Malformed input end to end through `shiftctl`: broken stores, junk import files and bad
/// command-line values. Each ends with exit status 2 and a clear message on stderr naming what is
/// wrong and where (one line, or for imports one line per problem and a summary), and the store
/// is what it was: byte for byte, and for SQLite also its logical content (a dump through SQLite,
/// which sees what the `-wal` file holds too).
///
/// Import and argument cases run against every backend; damaged JSON store files against the
/// JSON store; damaged databases (`sqliteStoreCases`) against the SQLite store.
@Suite struct MalformedInputTests {
    /// One malformed input: what to do to a fresh valid store (`prepare` gets the store's text and
    /// returns files to write, by name; `"STORE"` is the store itself), the command to run, and
    /// substrings the first line of stderr must hold.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let prepare: @Sendable (_ store: String) -> [String: [UInt8]]
        let arguments: [String]
        let says: [String]
        var testDescription: String { name }
    }

    static let store = "STORE"
    static let mutation = ["person", "add", "Zed"]

    static func storeCase(_ name: String, _ says: [String], _ make: @escaping @Sendable (String) -> [UInt8]) -> Case {
        Case(name: "store: " + name, prepare: { [store: make($0)] }, arguments: mutation, says: says)
    }

    static func storeEdit(_ name: String, _ says: [String], _ from: String, _ to: String) -> Case {
        storeCase(name, says) { Array($0.replacingOccurrences(of: from, with: to).utf8) }
    }

    static func importCase(_ name: String, _ file: String, _ text: [UInt8], _ says: [String]) -> Case {
        Case(name: "import: " + name, prepare: { _ in [file: text] }, arguments: ["import", file], says: [file] + says)
    }

    static func argumentCase(_ name: String, _ arguments: [String], _ says: [String]) -> Case {
        Case(name: "argument: " + name, prepare: { _ in [:] }, arguments: arguments, says: says)
    }

    static let shiftLine = #"{"id": "5e1f0000-0000-4000-8000-000000000009", "shiftTypeID": "TYPE", "date": "DATE"}"#

    static func withShift(_ date: String) -> @Sendable (String) -> [UInt8] {
        { text in
            let typeID = text.range(of: #"(?<="shiftTypes": \[\n    \{"id": ")[0-9a-f-]+"#, options: .regularExpression).map { String(text[$0]) } ?? "?"
            let shift = shiftLine.replacingOccurrences(of: "TYPE", with: typeID).replacingOccurrences(of: "DATE", with: date)
            return Array(text.replacingOccurrences(of: #""shifts": []"#, with: #""shifts": ["# + shift + "]").utf8)
        }
    }

    /// Damaged JSON store files (their text only means something to the JSON store).
    static let jsonStoreCases: [Case] = [
        storeCase("empty", ["schedule.json", "empty"]) { _ in [] },
        storeCase("truncated", ["schedule.json:", "unterminated"]) { Array($0.utf8.prefix(100)) },
        storeCase("truncated mid-key", ["schedule.json:", "the end of the file"]) { Array($0.utf8.prefix(1)) },
        storeCase("binary", ["schedule.json:1:1", "byte 0x"]) { _ in (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) | 0x80 } },
        storeCase("NUL bytes", ["schedule.json:1:1"]) { _ in [UInt8](repeating: 0, count: 512) },
        storeEdit("invalid UTF-8", ["schedule.json:", "invalid UTF-8"], #""timeZone": "UTC""#, "\"timeZone\": \"UTC\u{FFFD}\"")
            .withBytes { $0.replacingSequence([0xEF, 0xBF, 0xBD], with: [0xFF]) },
        storeCase("deeply nested", ["schedule.json:", "nesting deeper than 64"]) {
            Array($0.replacingOccurrences(of: #""extra": {"#, with: #""extra": {"deep": "# + String(repeating: "[", count: 100_000)
                + String(repeating: "]", count: 100_000) + ", ").utf8)
        },
        storeCase("nested arrays at the top", ["schedule.json:1:1", "JSON object"]) { _ in
            Array((String(repeating: "[", count: 200_000) + String(repeating: "]", count: 200_000)).utf8)
        },
        storeCase("huge string", ["schedule.json", "title", "longer than"]) {
            Array($0.replacingOccurrences(of: #""title": "D""#, with: #""title": ""# + String(repeating: "x", count: 20_000_000) + "\"").utf8)
        },
        storeEdit("future version", ["schedule.json", "version 99", "newer"], #""version": 4"#, #""version": 99"#),
        storeEdit("version zero", ["schedule.json:3:", "version 0"], #""version": 4"#, #""version": 0"#),
        storeEdit("version as a string", ["schedule.json:3:", "version", "whole number"], #""version": 4"#, #""version": "2""#),
        storeEdit("people as an object", ["schedule.json:", "expected an array"], #""people": []"#, #""people": {}"#),
        storeEdit("a number for a shift type", ["schedule.json:", "expected an object"], #""shiftTypes": ["#, #""shiftTypes": [7, "#),
        storeEdit("duplicate key", ["schedule.json:3:", "appears twice"], #""version": 4"#, #""version": 4, "version": 4"#),
        storeEdit("unknown field", ["schedule.json:", "unknown"], #""people": []"#, #""people": [], "peeple": []"#),
        storeCase("2026-02-30", ["schedule.json:", "shifts[0].date", "2026-02-30"], withShift("2026-02-30")),
        storeCase("2026-13-01", ["schedule.json:", "shifts[0].date", "2026-13-01"], withShift("2026-13-01")),
        storeEdit("24:00", ["schedule.json:", "shiftTypes[0].duration", "24:00"], "08:00-16:00", "24:00-08:00"),
        storeEdit("unknown time zone", ["schedule.json", "settings.timeZone", "Mars/Olympus"], #""timeZone": "UTC""#, #""timeZone": "Mars/Olympus""#),
        storeEdit("control character in a name", ["schedule.json", "people[0].displayName", "control character"],
                  #""people": []"#, #""people": [{"id": "5e1f0000-0000-4000-8000-000000000009", "displayName": "Bo\u001bb"}]"#),
    ]

    /// Bad import files and option values: the same for every backend.
    static let inputCases: [Case] = [
        importCase("CSV with 2026-02-30", "a.csv", Array("date,type,person\n2026-02-30,D,\n".utf8), [":2:", "2026-02-30"]),
        importCase("CSV with 2026-13-01", "a.csv", Array("date,type,person\n2026-13-01,D,\n".utf8), [":2:", "2026-13-01"]),
        importCase("CSV row too short", "a.csv", Array("date,type,person\n2026-03-01,D\n".utf8), [":2:", "2 fields"]),
        importCase("CSV quote never closed", "a.csv", Array("date,type,person\n\"2026-03-01,D,\n".utf8), [":2:", "never closed"]),
        importCase("CSV empty", "a.csv", [], [":1:", "empty"]),
        importCase("CSV binary", "a.csv", [0xFF, 0xFE, 0x00, 0x41, 0x80], ["UTF-8"]),
        importCase("CSV unknown column", "a.csv", Array("date,type,persn\n2026-03-01,D,\n".utf8), [":1:", "persn"]),
        importCase("CSV unknown type", "a.csv", Array("date,type,person\n2026-03-01,Q,\n".utf8), [":2:", "'Q'"]),
        importCase("CSV control character in a name", "a.csv", Array("date,type,person\n2026-03-01,D,\"Bo\u{1b}b\"\n".utf8), [":2:"]),
        importCase("ICS with 2026-02-30", "a.ics",
                   Array("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nDTSTART:20260230T080000Z\r\nSUMMARY:D\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n".utf8),
                   [":3:", "20260230"]),
        importCase("ICS with 24:00", "a.ics",
                   Array("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nDTSTART:20260301T240000Z\r\nSUMMARY:D\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n".utf8),
                   [":3:", "20260301T240000Z"]),
        importCase("ICS unknown time zone", "a.ics",
                   Array("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nDTSTART;TZID=Mars/Olympus:20260301T080000\r\nDTEND;TZID=Mars/Olympus:20260301T160000\r\nSUMMARY:D\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n".utf8),
                   [":3:", "Mars/Olympus"]),
        importCase("ICS truncated", "a.ics", Array("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nDTSTART:2026".utf8), [":"]),
        importCase("ICS binary", "a.ics", (0..<2048).map { UInt8(truncatingIfNeeded: $0 &* 40_503) | 0x80 }, ["UTF-8"]),
        importCase("ICS 100 000 unclosed events", "a.ics",
                   Array(("BEGIN:VCALENDAR\r\n" + String(repeating: "BEGIN:VEVENT\r\n", count: 100_000)).utf8), [":", "never closed"]),
        importCase("JSON import that is not a store", "a.json", Array("[1, 2".utf8), [":1:"]),

        argumentCase("date 2026-02-30", ["schedule", "add", "--type", "D", "--date", "2026-02-30"], ["--date", "2026-02-30"]),
        argumentCase("date 2026-13-01", ["schedule", "add", "--type", "D", "--date", "2026-13-01"], ["--date", "2026-13-01"]),
        argumentCase("time 24:00", ["type", "add", "X", "--time", "24:00-08:00"], ["--time", "24:00-08:00"]),
        argumentCase("unknown time zone", ["init", "--time-zone", "Mars/Olympus", "--store", otherStore], ["--time-zone", "Mars/Olympus"]),
        argumentCase("escape sequence in a name", ["person", "add", "Bo\u{1b}[2Jb"], ["person name", "control character"]),
        argumentCase("line break in a name", ["person", "add", "Bo\nb"], ["person name", "control character"]),
        argumentCase("escape sequence in an option value", ["--format", "x\u{1b}[2J", "person", "list"], ["x\\u{1B}[2J"]),
        argumentCase("unknown shift type", ["schedule", "add", "--type", "Q", "--date", "2026-03-01"], ["Q"]),
    ]

    /// A second store path for `init` cases, with the backend's extension.
    static let otherStore = "OTHER_STORE"

    @Test(arguments: StoreBackend.allCases, inputCases)
    func malformedInputIsRefusedWithExitTwoAndNothingWritten(_ backend: StoreBackend, _ input: Case) throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let store = try Self.validStore(backend, in: sandbox)
        if backend == .sqlite {
            let dump = SQLiteFile.dump(sandbox.path + "/" + store)
            #expect(dump.contains("\nshift_types ") && !dump.contains("unreadable"), "the dump reads the store: \(dump.prefix(500))")
        }
        for (name, bytes) in input.prepare("") {
            try Data(bytes).write(to: URL(fileURLWithPath: sandbox.path + "/" + name))
        }
        let other = "other." + (backend.fileName as NSString).pathExtension
        let arguments = input.arguments.map { $0 == Self.otherStore ? other : $0 }
        // Over SQLite, the command opens the store before it refuses the input: compare content.
        try Self.expectRefused(backend, sandbox, name: input.name, arguments: arguments, says: input.says, sameBytes: backend == .json)
    }

    @Test(arguments: jsonStoreCases)
    func damagedJSONStoresAreRefused(_ input: Case) throws {
        let backend = StoreBackend.json
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let store = try Self.validStore(backend, in: sandbox)
        let valid = String(decoding: try #require(sandbox.bytes(store)), as: UTF8.self)
        for (name, bytes) in input.prepare(valid) {
            try Data(bytes).write(to: URL(fileURLWithPath: sandbox.path + "/" + (name == Self.store ? store : name)))
        }
        try Self.expectRefused(backend, sandbox, name: input.name, arguments: input.arguments, says: input.says)
    }

    @Test(arguments: sqliteStoreCases)
    func damagedSQLiteStoresAreRefused(_ input: SQLiteCase) throws {
        let backend = StoreBackend.sqlite
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let store = try Self.validStore(backend, in: sandbox)
        try input.prepare(sandbox, sandbox.path + "/" + store)
        for arguments in input.commands {
            try Self.expectRefused(backend, sandbox, name: "\(input.name) (\(arguments.joined(separator: " ")))", arguments: arguments,
                                   says: input.says, sameBytes: input.sameBytes)
        }
    }

    /// A new store with one shift type (D, 08:00-16:00) and the stock rules in the sandbox; returns
    /// its file name. A SQLite store is checkpointed, so the whole database is in the store file
    /// and no `-wal` is left.
    ///
    /// The store is made once per backend by `shiftctl` and copied into each sandbox: that saves
    /// two `shiftctl` runs per case.
    static func validStore(_ backend: StoreBackend, in sandbox: Sandbox) throws -> String {
        let store = backend.fileName
        templatesLock.lock()
        defer { templatesLock.unlock() }
        if templates[backend] == nil {
            if templates.isEmpty { atexit { MalformedInputTests.removeTemplates() } }
            let folder = try Sandbox()
            for arguments in [["--store", store, "init", "--time-zone", "UTC"], ["--store", store, "type", "add", "D", "--time", "08:00-16:00"]] {
                let result = try folder.run(arguments: arguments)
                try #require(result.status == 0, "\(arguments): \(result.stderr)")
            }
            if backend == .sqlite { try SQLiteFile.checkpoint(folder.path + "/" + store) }
            templates[backend] = folder
        }
        let template = templates[backend]!.path
        for name in try FileManager.default.contentsOfDirectory(atPath: template) {
            try FileManager.default.copyItem(atPath: template + "/" + name, toPath: sandbox.path + "/" + name)
        }
        return store
    }

    /// The folders holding each backend's valid store, made on first use; guarded by
    /// `templatesLock`. A pthread mutex (`NSLock`) rather than `Mutex`: on Linux a contended
    /// `Mutex` is handed over by the kernel, where ThreadSanitizer does not see it, and cases that
    /// start at once were reported as racing here.
    nonisolated(unsafe) private static var templates: [StoreBackend: Sandbox] = [:]
    private static let templatesLock = NSLock()

    static func removeTemplates() {
        templatesLock.lock()
        defer { templatesLock.unlock() }
        for folder in templates.values { folder.remove() }
    }

    /// Runs `shiftctl --store <store> <arguments>` and checks that it was refused: exit 2, one line
    /// (an import: a line per problem and a summary) starting `shiftctl: ` that holds `says`,
    /// printable and bounded; the store's content what it was (a SQLite store's dump, and when
    /// `sameBytes` the file byte for byte); no file created but the backend's own companions.
    static func expectRefused(_ backend: StoreBackend, _ sandbox: Sandbox, name: String, arguments: [String], says: [String],
                              sameBytes: Bool = true, environment: [String: String] = [:]) throws {
        let store = backend.fileName
        let path = sandbox.path + "/" + store
        let before = sandbox.bytes(store)
        let dump = backend == .sqlite ? SQLiteFile.dump(path) : nil
        let files = Set(try FileManager.default.contentsOfDirectory(atPath: sandbox.path))

        let result = try sandbox.run(arguments: ["--store", store] + arguments, environment: environment)

        #expect(result.status == 2, "\(name): exit \(result.status): \(result.stderr)")
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        let first = lines.first.map(String.init) ?? ""
        #expect(lines.allSatisfy { $0.hasPrefix("shiftctl: ") }, "\(name): \(result.stderr)")
        if arguments.first == "import" {
            #expect(lines.last?.hasSuffix("nothing was imported") == true || lines.count == 1, "\(name): \(result.stderr)")
        } else {
            #expect(lines.count == 1, "\(name): one line: \(result.stderr.prefix(500))")
        }
        for text in says {
            #expect(first.contains(text), "\(name): '\(text)' in \(first.prefix(300))")
        }
        #expect(first.count < 600, "\(name): a readable line")
        #expect(!first.unicodeScalars.contains { $0.properties.generalCategory == .control }, "\(name): printable")
        if sameBytes {
            #expect(sandbox.bytes(store) == before, "\(name): the store file is byte for byte unchanged")
        }
        if let dump {
            let after = SQLiteFile.dump(path)
            #expect(after == dump, "\(name): the store's content is unchanged:\n\(after.prefix(300))\nwas\n\(dump.prefix(300))")
        }
        let now = Set(try FileManager.default.contentsOfDirectory(atPath: sandbox.path))
        if backend == .json {
            #expect(now == files, "\(name): no file written or removed: \(now.symmetricDifference(files).sorted())")
        } else {
            // SQLite may create its companions, and remove them again when it closes the store.
            let changed = now.symmetricDifference(files)
            #expect(changed.allSatisfy { backend.isCompanion($0, of: store) }, "\(name): no file written or removed: \(changed.sorted())")
        }
    }
}

extension MalformedInputTests.Case {
    /// The same case with the bytes it writes changed.
    func withBytes(_ change: @escaping @Sendable ([UInt8]) -> [UInt8]) -> Self {
        let prepare = self.prepare
        return .init(name: name, prepare: { prepare($0).mapValues(change) }, arguments: arguments, says: says)
    }
}

extension Array where Element == UInt8 {
    func replacingSequence(_ target: [UInt8], with replacement: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        var i = 0
        while i < count {
            if i + target.count <= count, Array(self[i..<i + target.count]) == target {
                result += replacement
                i += target.count
            } else {
                result.append(self[i])
                i += 1
            }
        }
        return result
    }
}
