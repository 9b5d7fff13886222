import Foundation
import ShiftCore
import ShiftStorage
import Testing

/// What one run of the built `shiftctl` printed and returned.
struct CLIResult {
    let status: Int32
    let stdout: String
    let stderr: String
}

/// A temporary folder for one test, removed by `remove()` or, at the latest, when the last
/// reference goes (a test that fails half-way leaves nothing behind in the temporary folder).
final class Sandbox: Sendable {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("shiftctl-test-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { remove() }

    func remove() { try? FileManager.default.removeItem(atPath: path) }

    var store: String { path + "/schedule.json" }

    func bytes(_ file: String = "schedule.json") -> Data? { FileManager.default.contents(atPath: path + "/" + file) }

    func write(_ text: String, to file: String) throws {
        let url = URL(fileURLWithPath: path + "/" + file)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    /// Runs `shiftctl` in this folder with a small, fixed environment.
    @discardableResult
    func run(_ arguments: String..., environment extra: [String: String] = [:]) throws -> CLIResult {
        try run(arguments: arguments, environment: extra)
    }

    /// `launcher`: a command that runs `shiftctl` for us (`runuser -u nobody --`).
    func run(arguments: [String], environment extra: [String: String] = [:], launcher: [String] = []) throws -> CLIResult {
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
}

enum CLI {
    /// The `shiftctl` built next to the test bundle.
    static let executable: URL = {
        if let override = ProcessInfo.processInfo.environment["SHIFTCTL_BIN"] { return URL(fileURLWithPath: override) }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("shiftctl")
    }()

    /// The repository root (holds Package.swift), found above this source file.
    static let repositoryRoot: String = {
        var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while url.path != "/" {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url.path }
            url = url.deletingLastPathComponent()
        }
        return FileManager.default.currentDirectoryPath
    }()
}

/// Parses a JSON document printed by the CLI.
func json(_ text: String) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
    return try #require(object as? [String: Any])
}
