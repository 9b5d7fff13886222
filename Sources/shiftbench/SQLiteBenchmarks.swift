import Foundation
import ShiftCore
import ShiftStorage
import ShiftStorageSQLite
#if canImport(Glibc)
import Glibc
#endif

/// The SQLite store at scale (issue #6): a bulk import through `shiftctl import`, opening, the
/// file size, and `shiftctl schedule add` with all stock rules on a big store against a tiny one
/// (same run), with each process's peak RSS.
enum SQLiteBenchmarks {
    static func run(runs: Int, size: Int, rulesDirectory: String) throws {
        let shiftctl = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("shiftctl").path
        guard FileManager.default.isExecutableFile(atPath: shiftctl) else {
            FileHandle.standardError.write(Data("shiftbench: sqlite: no shiftctl next to shiftbench (build it: swift build -c release)\n".utf8))
            return
        }
        print("## SQLite store: bulk import, open, and one change at \(size) shifts\n")
        print("Whole `shiftctl` processes with the stock rules (copied by `init`). The roster has one shift per person per day, five on and two off, the type turning after the days off, so the rules find nothing to reject. Peak RSS is the process's own (`wait4`).\n")
        let directory = NSTemporaryDirectory() + "shiftbench-sqlite-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer {
            // SHIFTBENCH_KEEP=1 keeps the stores and import files, to profile a step by hand.
            if ProcessInfo.processInfo.environment["SHIFTBENCH_KEEP"] == nil {
                try? FileManager.default.removeItem(atPath: directory)
            } else {
                FileHandle.standardError.write(Data("shiftbench: kept \(directory)\n".utf8))
            }
        }
        try FileManager.default.copyItem(atPath: rulesDirectory, toPath: directory + "/rules")

        var report = Report(["step", "runs", "median", "min–max", "peak RSS (median)"])
        func row(_ name: String, _ results: [ProcessResult]) {
            let sample = Sample(seconds: results.map(\.seconds))
            let rss = Sample(seconds: results.map(\.peakRSSMiB)).median
            report.add([name, "\(results.count)", formatTime(sample.median), "\(formatTime(sample.min))–\(formatTime(sample.max))", String(format: "%.0f MiB", rss)])
        }

        // Two stores: the big one and a tiny one, each filled by one import.
        var stores: [(name: String, shifts: Int)] = []
        for count in [10, size] {
            let schedule = try Generator.schedule(shifts: count, valid: true)
            let file = directory + "/import-\(count).json"
            try Data(StoreFileCodec.encode(schedule)).write(to: URL(fileURLWithPath: file))
            let name = "store-\(count).sqlite"
            _ = try spawn(shiftctl, ["--store", name, "init", "--time-zone", "Europe/Berlin", "--no-rules"], in: directory)
            let imported = try spawn(shiftctl, ["--store", name, "--rules", "rules", "import", file.components(separatedBy: "/").last!], in: directory)
            if count == size { row("`shiftctl import` of \(size) shifts into a new store (one batch, all stock rules)", [imported]) }
            stores.append((name, count))
        }
        let big = stores[1].name
        let bytes = (try? FileManager.default.attributesOfItem(atPath: directory + "/" + big)[.size] as? Int) ?? 0
        let wal = (try? FileManager.default.attributesOfItem(atPath: directory + "/" + big + "-wal")[.size] as? Int) ?? 0

        let open = try measure(runs: runs) { _ = try SQLiteRepository(path: directory + "/" + big).load() }
        report.add(["open (`SQLiteRepository.load`, in process) at \(size)", "\(runs)", formatTime(open.median),
                    "\(formatTime(open.min))–\(formatTime(open.max))", "–"])

        // One change on each store, interleaved so both see the same machine.
        var adds: [Int: [ProcessResult]] = [:]
        var lists: [ProcessResult] = []
        for run in 0..<runs {
            for store in stores {
                let date = Generator.firstDay.adding(days: -10 - 2 * run).description
                adds[store.shifts, default: []].append(try spawn(shiftctl, [
                    "--store", store.name, "--rules", "rules", "schedule", "add", "--type", "E", "--date", date, "--person", "Person 0",
                ], in: directory))
            }
            lists.append(try spawn(shiftctl, ["--store", big, "schedule", "list", "--from", "2026-02-02", "--to", "2026-02-02", "--person", "Person 1"], in: directory))
        }
        row("`shiftctl schedule add` at 10 shifts", adds[10]!)
        row("`shiftctl schedule add` at \(size) shifts", adds[size]!)
        row("`shiftctl schedule list` of one person's day at \(size) shifts", lists)
        print(report.markdown())
        let ratio = Sample(seconds: adds[size]!.map(\.seconds)).median / Sample(seconds: adds[10]!.map(\.seconds)).median
        print("\n`schedule add` at \(size) shifts takes \(String(format: "%.2f", ratio))x its time at 10 shifts (same run). The store file is \(String(format: "%.0f", Double(bytes) / 1_048_576)) MB (\(String(format: "%.0f", Double(bytes) / Double(size))) bytes a shift, change log included)\(wal > 0 ? String(format: ", plus a %.1f MB write-ahead log", Double(wal) / 1_048_576) : "").\n")
    }

    struct ProcessResult {
        var seconds: Double
        var peakRSSMiB: Double
    }

    /// Runs a program to the end (output discarded) and returns its wall time and its own peak
    /// RSS; throws when it exits with another status than 0.
    static func spawn(_ executable: String, _ arguments: [String], in directory: String) throws -> ProcessResult {
        let script = "cd '\(directory)' && exec \"$0\" \"$@\" >/dev/null 2>\"$0.err\""
        let argv = ["/bin/sh", "-c", script.replacingOccurrences(of: "$0.err", with: directory + "/last.err"), executable] + arguments
        var cArguments = argv.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        let clock = ContinuousClock()
        let start = clock.now
        var pid: pid_t = 0
        let status = posix_spawn(&pid, "/bin/sh", nil, nil, &cArguments, environ)
        guard status == 0 else { throw BenchmarkError(message: "cannot start \(executable): \(String(cString: strerror(status)))") }
        var exitStatus: Int32 = 0
        var usage = rusage()
        while wait4(pid, &exitStatus, 0, &usage) < 0 {
            guard errno == EINTR else { throw BenchmarkError(message: "wait4: \(String(cString: strerror(errno)))") }
        }
        let elapsed = (clock.now - start).seconds
        let code = (exitStatus >> 8) & 0xFF
        guard exitStatus & 0x7F == 0, code == 0 else {
            let message = (try? String(contentsOfFile: directory + "/last.err", encoding: .utf8)) ?? ""
            throw BenchmarkError(message: "shiftctl \(arguments.joined(separator: " ")) exited \(code): \(message.prefix(2000))")
        }
        return ProcessResult(seconds: elapsed, peakRSSMiB: Double(usage.ru_maxrss) / 1024)
    }
}
