import Foundation
import TestSupport
import Testing

/// `make demo` runs scripts/demo.sh; it must pass with the shiftctl this build made (a roster by
/// `solve` included).
@Suite struct DemoScriptTests {
    @Test func theDemoTourExitsZeroAndShowsTheRejection() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [repositoryRoot + "/scripts/demo.sh", CLI.executable.path]
        process.environment = ["PATH": "/usr/bin:/bin", "TMPDIR": sandbox.path, "USER": "demo", "COLUMNS": "100"]
        let output = URL(fileURLWithPath: sandbox.path + "/demo.out")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        process.waitUntilExit()
        let text = String(decoding: try Data(contentsOf: output), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("=== Try to double-book Alice"))
        #expect(text.contains("no_double_booking"))
        #expect(text.contains("(exit status 1, as expected)"))
        #expect(text.contains("=== Staffing demand for May, and a roster made by solve"))
        #expect(text.contains("solved 2026-05-01 to 2026-05-31"))
        #expect(text.contains("demo finished: everything behaved as expected"))
    }
}
