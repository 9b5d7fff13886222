import Foundation
import ShiftCore
import ShiftStorage
import ShiftStorageSQLite

/// The SQLite store at scale (issue #6): a bulk import through `shiftctl import`, opening, the
/// file size, and `shiftctl schedule add` with all stock rules on a big store against a tiny one
/// (same run), with each process's peak RSS.
enum SQLiteBenchmarks {
    static func run(runs: Int, size: Int, rulesDirectory: String) throws {
        guard let shiftctl = siblingShiftctl(suite: "sqlite") else { return }
        print("## SQLite store: bulk import, open, and one change at \(size) shifts\n")
        print("Whole `shiftctl` processes with the stock rules (copied by `init`). The roster has one shift per person per day, five on and two off, the type turning after the days off, so the rules find nothing to reject. Peak RSS is the `shiftctl` process's own (`RUSAGE_CHILDREN` of a small python3 parent).\n")
        let scratch = try ScratchFolder("sqlite", rules: rulesDirectory)
        defer { scratch.remove() }
        let directory = scratch.path

        var report = Report(["step", "runs", "median", "min–max", "peak RSS (median)"])
        func row(_ name: String, _ results: [ProcessResult]) {
            let sample = Sample(seconds: results.map(\.seconds))
            let rss = Sample(seconds: results.map(\.peakRSSMiB)).median
            report.add([name, "\(results.count)", formatTime(sample.median), "\(formatTime(sample.min))–\(formatTime(sample.max))", String(format: "%.0f MiB", rss)])
        }

        // Two stores: the big one and a tiny one, each filled by one import. The big import is
        // timed three times, each into a new store (the last one is kept).
        var stores: [(name: String, shifts: Int)] = []
        for count in [10, size] {
            let schedule = try Generator.schedule(shifts: count, valid: true)
            let file = directory + "/import-\(count).json"
            try Data(StoreFileCodec.encode(schedule)).write(to: URL(fileURLWithPath: file))
            let name = "store-\(count).sqlite"
            var imports: [ProcessResult] = []
            for _ in 0..<(count == size ? 3 : 1) {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: directory + "/" + name + suffix) }
                _ = try spawn(shiftctl, ["--store", name, "init", "--time-zone", "Europe/Berlin", "--no-rules"], in: directory)
                imports.append(try spawn(shiftctl, ["--store", name, "--rules", "rules", "import", file.components(separatedBy: "/").last!], in: directory))
            }
            if count == size { row("`shiftctl import` of \(size) shifts into a new store (one batch, all stock rules)", imports) }
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
        let approvals = try approveClaims(shiftctl, store: big, runs: runs, in: directory)
        row("`shiftctl request approve` of a claim at \(size) shifts", approvals)
        print(report.markdown())
        print("\nApproving a claim at \(size) shifts takes \(String(format: "%.2f", Sample(seconds: approvals.map(\.seconds)).median / Sample(seconds: adds[size]!.map(\.seconds)).median))x a `schedule add` there (goal ≤ 2x, issue #32).")
        let ratio = Sample(seconds: adds[size]!.map(\.seconds)).median / Sample(seconds: adds[10]!.map(\.seconds)).median
        print("\n`schedule add` at \(size) shifts takes \(String(format: "%.2f", ratio))x its time at 10 shifts (same run). The store file is \(String(format: "%.0f", Double(bytes) / 1_048_576)) MB (\(String(format: "%.0f", Double(bytes) / Double(size))) bytes a shift, change log included)\(wal > 0 ? String(format: ", plus a %.1f MB write-ahead log", Double(wal) / 1_048_576) : "").\n")
    }

    /// `shiftctl request approve` of a claim, timed, `runs` times on `store`: each run adds an open
    /// shift years after the roster and has Person 1 claim it (not timed), then approves
    /// the claim, which the rules check as one mutation.
    static func approveClaims(_ shiftctl: String, store: String, runs: Int, in directory: String) throws -> [ProcessResult] {
        func id(_ arguments: [String]) throws -> String {
            let output = try runProcess(shiftctl, ["--store", store, "--rules", "rules", "--format", "json"] + arguments, in: directory)
            guard let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], let id = object["id"] as? String else {
                throw BenchmarkError(message: "shiftctl \(arguments.joined(separator: " ")) printed no id: \(output.prefix(300))")
            }
            return id
        }
        var results: [ProcessResult] = []
        for run in 0..<runs {
            // Far after the roster (a request is for a shift that has not started).
            let date = Generator.firstDay.adding(days: 12 * 365 + 2 * run).description
            let shift = try id(["schedule", "add", "--type", "E", "--date", date])
            let claim = try id(["request", "claim", shift, "--as", "Person 1"])
            results.append(try spawn(shiftctl, ["--store", store, "--rules", "rules", "request", "approve", claim], in: directory))
        }
        return results
    }

    /// A folder for a suite's stores and files, with the rules copied in as `rules`; removed at
    /// the end unless `SHIFTBENCH_KEEP=1` (to profile a step by hand).
    struct ScratchFolder {
        let path: String

        init(_ suite: String, rules: String) throws {
            path = NSTemporaryDirectory() + "shiftbench-\(suite)-\(getpid())"
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: rules, toPath: path + "/rules")
        }

        func remove() {
            if ProcessInfo.processInfo.environment["SHIFTBENCH_KEEP"] == nil {
                try? FileManager.default.removeItem(atPath: path)
            } else {
                FileHandle.standardError.write(Data("shiftbench: kept \(path)\n".utf8))
            }
        }
    }

    struct ProcessResult {
        var seconds: Double
        var peakRSSMiB: Double
        var exitCode: Int = 0
    }

    /// Runs a program to the end (output discarded) and returns its wall time and its own peak
    /// RSS; throws when it exits with a status not in `allowing` (0 unless told).
    ///
    /// A small python3 parent starts it and reads `RUSAGE_CHILDREN`: a child started straight
    /// from this process (posix_spawn shares its memory until exec) would inherit this process's
    /// high-water mark, the generated million shifts included. Without python3 the peak is not
    /// measured (shown as 0).
    static func spawn(_ executable: String, _ arguments: [String], in directory: String, allowing codes: Set<Int> = [0]) throws -> ProcessResult {
        let script = """
            import resource, subprocess, sys, time
            start = time.monotonic()
            with open(sys.argv[1], "wb") as errors:
                code = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=errors).returncode
            print(code, time.monotonic() - start, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
            """
        let errors = directory + "/last.err"
        let output: String
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") {
            output = try runProcess("/usr/bin/python3", ["-c", script, errors, executable] + arguments, in: directory)
        } else {
            let clock = ContinuousClock()
            let start = clock.now
            _ = try runProcess(executable, arguments, in: directory)
            output = "0 \((clock.now - start).seconds) 0"
        }
        let fields = output.split(separator: " ").map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) }
        guard fields.count == 3, let code = Int(fields[0]), let seconds = Double(fields[1]), let kib = Double(fields[2]) else {
            throw BenchmarkError(message: "could not read the measurement of shiftctl \(arguments.joined(separator: " ")): \(output)")
        }
        guard codes.contains(code) else {
            let message = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            throw BenchmarkError(message: "shiftctl \(arguments.joined(separator: " ")) exited \(code): \(message.prefix(2000))")
        }
        return ProcessResult(seconds: seconds, peakRSSMiB: kib / 1024, exitCode: code)
    }
}
