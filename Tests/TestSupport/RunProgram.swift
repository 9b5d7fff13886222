import Foundation

/// Runs a program (found on the PATH when not absolute) with no input and collects its exit
/// status and output. Output goes through files, so a chatty program cannot fill a pipe and
/// block.
public func runProgram(_ program: String, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
    let process = Process()
    if program.hasPrefix("/") {
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
    } else {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments
    }
    let folder = FileManager.default.temporaryDirectory.path
    let out = folder + "/run-out-\(UUID().uuidString)"
    let err = folder + "/run-err-\(UUID().uuidString)"
    _ = FileManager.default.createFile(atPath: out, contents: nil)
    _ = FileManager.default.createFile(atPath: err, contents: nil)
    defer {
        try? FileManager.default.removeItem(atPath: out)
        try? FileManager.default.removeItem(atPath: err)
    }
    process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
    process.standardInput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: FileManager.default.contents(atPath: out) ?? Data(), as: UTF8.self),
            String(decoding: FileManager.default.contents(atPath: err) ?? Data(), as: UTF8.self))
}
