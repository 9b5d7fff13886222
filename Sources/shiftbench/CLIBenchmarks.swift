import Foundation
import ShiftCore
import ShiftStorage

/// Wall time of whole `shiftctl` invocations (process start, store open, rules load, work, save)
/// on a generated JSON store with the stock rules.
enum CLIBenchmarks {
    static func run(runs: Int, shifts: Int, rulesDirectory: String) throws {
        guard let shiftctl = siblingShiftctl(suite: "cli") else { return }
        print("## shiftctl wall time on a \(shifts)-shift JSON store\n")
        print("Each run is a whole process: start, open the store, load and compile the stock rules, do the work, save. `schedule add` adds a valid shift (a person with nothing else that month), so every rule runs and the store is rewritten; `validate` checks the whole schedule.\n")
        let directory = NSTemporaryDirectory() + "shiftbench-cli-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.copyItem(atPath: rulesDirectory, toPath: directory + "/rules")
        var schedule = try Generator.schedule(shifts: shifts)
        let newcomer = Person(id: PersonID(Generator.id(999_999)), displayName: "Newcomer")
        schedule = try schedule.applying(.addPerson(newcomer)).schedule
        let store = directory + "/schedule.json"
        try JSONFileRepository(path: store).write(StoreFileCodec.encode(schedule))

        var report = Report(["command", "runs", "median", "min–max"])
        var day = 0
        let add = try measure(runs: runs) {
            day += 3
            try invoke(shiftctl, in: directory, ["schedule", "add", "--type", "E", "--date", Generator.firstDay.adding(days: day).description,
                                                   "--person", "Newcomer"])
        }
        report.add(["`shiftctl schedule add`", "\(runs)", formatTime(add.median), "\(formatTime(add.min))–\(formatTime(add.max))"])
        let validate = try measure(runs: runs) { try invoke(shiftctl, in: directory, ["validate"], allowViolations: true) }
        report.add(["`shiftctl validate`", "\(runs)", formatTime(validate.median), "\(formatTime(validate.min))–\(formatTime(validate.max))"])
        let list = try measure(runs: runs) { try invoke(shiftctl, in: directory, ["person", "list"]) }
        report.add(["`shiftctl person list` (open only)", "\(runs)", formatTime(list.median), "\(formatTime(list.min))–\(formatTime(list.max))"])
        print(report.markdown())
        print("\n`validate` exits 1 on this store (the generated rotation breaks rest rules at its weekly turnover), which is part of the work measured.\n")
    }

    private static func invoke(_ executable: String, in directory: String, _ arguments: [String], allowViolations: Bool = false) throws {
        _ = try runProcess(executable, arguments, in: directory, allowViolations: allowViolations)
    }
}

/// The `shiftctl` built next to `shiftbench`, or nil (with a message naming the suite) when there is none.
func siblingShiftctl(suite: String) -> String? {
    let shiftctl = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("shiftctl").path
    guard FileManager.default.isExecutableFile(atPath: shiftctl) else {
        FileHandle.standardError.write(Data("shiftbench: \(suite): no shiftctl next to shiftbench (build it: swift build -c release)\n".utf8))
        return nil
    }
    return shiftctl
}

/// Runs `shiftctl` (or another program) to the end and returns its standard output; throws with
/// its standard error when it exits with another status than 0 (or 1 with `allowViolations`).
func runProcess(_ executable: String, _ arguments: [String], in directory: String? = nil, allowViolations: Bool = false) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let output = Pipe()
    process.standardOutput = output
    let errors = Pipe()
    process.standardError = errors
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let status = process.terminationStatus
    guard status == 0 || (allowViolations && status == 1) else {
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        throw BenchmarkError(message: "\((executable as NSString).lastPathComponent) \(arguments.joined(separator: " ")) exited \(status): \(message)")
    }
    return String(decoding: data, as: UTF8.self)
}

struct BenchmarkError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
