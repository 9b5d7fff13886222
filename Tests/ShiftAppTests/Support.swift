import Foundation
import ShiftCore
import ShiftStorage
import TestSupport
import Testing

/// What one run of the built `shiftctl` printed and returned.
struct CLIResult {
    let status: Int32
    let stdout: String
    let stderr: String
}

/// A temporary folder for one test in which to run `shiftctl`, removed by `remove()` or, at the
/// latest, when the last reference goes.
final class Sandbox: Sendable {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder(prefix: "shiftctl-test-") }

    var path: String { folder.path }

    func remove() { folder.remove() }

    var store: String { path + "/schedule.json" }

    func bytes(_ file: String = "schedule.json") -> Data? { FileManager.default.contents(atPath: folder.file(file)) }

    func write(_ text: String, to file: String) throws { try folder.write(text, to: file) }

    /// Runs `shiftctl` in this folder with a small, fixed environment.
    @discardableResult
    func run(_ arguments: String..., environment extra: [String: String] = [:]) throws -> CLIResult {
        try run(arguments: arguments, environment: extra)
    }

    /// `launcher`: a command that runs `shiftctl` for us (`runuser -u nobody --`).
    func run(arguments: [String], environment extra: [String: String] = [:], launcher: [String] = []) throws -> CLIResult {
        let process = shiftctl(arguments, environment: extra, launcher: launcher)
        // Files, not pipes: nothing can block on a full pipe buffer.
        let outURL = URL(fileURLWithPath: path + "/.stdout-\(UUID().uuidString)")
        let errURL = URL(fileURLWithPath: path + "/.stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return CLIResult(
            status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }

    /// A store with the stock rules, a location, day and night shift types and three people.
    static func withTeam() throws -> Sandbox {
        let sandbox = try Sandbox()
        for arguments in [
            ["init", "--time-zone", "Europe/Berlin"],
            ["location", "add", "Ward A"],
            ["type", "add", "D", "--title", "Day", "--time", "07:00-19:00", "--location", "Ward A"],
            ["type", "add", "N", "--title", "Night", "--time", "19:00-07:00", "--location", "Ward A"],
            ["person", "add", "Alice"], ["person", "add", "Bob"], ["person", "add", "Bobby"],
        ] {
            let result = try sandbox.run(arguments: arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
        return sandbox
    }

    /// Reads the store file directly.
    func schedule() throws -> Schedule {
        try JSONFileRepository(path: store).load().0
    }

    /// `shiftctl` (through `launcher`, if any) set up to run in this folder with a small, fixed
    /// environment, not started yet.
    func shiftctl(_ arguments: [String], environment extra: [String: String], launcher: [String] = []) -> Process {
        let process = Process()
        if let program = launcher.first {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = launcher.dropFirst() + [CLI.executable.path] + arguments
        } else {
            process.executableURL = CLI.executable
            process.arguments = arguments
        }
        process.currentDirectoryURL = URL(fileURLWithPath: path)
        var environment = ["PATH": "/usr/bin:/bin", "HOME": path, "USER": "tester", "COLUMNS": "80", "TZ": "UTC"]
        environment.merge(Sandbox.sanitizerOptions) { $1 }
        environment.merge(extra) { $1 }
        process.environment = environment
        return process
    }
}

enum CLI {
    /// The `shiftctl` built next to the test bundle.
    static let executable: URL = {
        if let override = ProcessInfo.processInfo.environment["SHIFTCTL_BIN"] { return URL(fileURLWithPath: override) }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("shiftctl")
    }()
}

/// Parses a JSON document printed by the CLI.
func json(_ text: String) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
    return try #require(object as? [String: Any])
}
