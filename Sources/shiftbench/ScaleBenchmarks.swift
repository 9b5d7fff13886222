import Foundation
import ShiftCore
import ShiftInterop
import ShiftStorage

/// Every user path at two sizes and two people counts, as whole `shiftctl` processes (issue #34):
/// where the cost of one row, one shift or one call grows with the size of the store, a user with
/// a big roster falls off a cliff that the in-process suites never walk.
///
/// For each size (shifts) and people count, a valid roster (the stock rules find nothing) is
/// written as a CSV file (`date,type,person`) and as a store file, and:
/// - both are imported with the stock rules into a new JSON store and a new SQLite store;
/// - on the stores the CSV made: `validate`, `schedule add`, `schedule list` of one day,
///   `calendar roster` of a week, `export` of one person's iCalendar, `log --limit 20`, then
///   `migrate` to the other backend.
/// Then, at the biggest size: a store whose change log has an entry per shift (opening), a messy
/// roster where every second shift breaks the rest rule against a clean one (validation that
/// always reports), and the peers' million-shift roster validated as a JSON and a SQLite store
/// against the Python checker's whole run.
///
/// Growth is the cost per unit at the big size over the small one. The unit is a shift for the
/// paths that read or write a whole store (imports, `validate`, `migrate`, and every command on a
/// JSON store, which is read and rewritten whole by design) and one call for the rest (a SQLite
/// store reads what the command needs). A path whose growth is above 1.5x is flagged, and so is
/// a per-shift path whose cost per shift at the most people is above 1.5x its cost at the fewest.
enum ScaleBenchmarks {
    static let flagAbove = 1.5

    /// One measured path on one store backend.
    struct Path: Hashable {
        var name: String
        var unit: Unit
    }

    /// What a path's cost is divided by: a shift of the store, one call, or one shift of the one
    /// person the call is about (an export of one person grows with that person's roster).
    enum Unit: String, Hashable {
        case shift, call
        case personShift = "shift of the person"
    }

    struct Point: Hashable, Comparable {
        var shifts: Int
        var people: Int
        static func < (a: Point, b: Point) -> Bool { (a.shifts, a.people) < (b.shifts, b.people) }
    }

    static func run(runs: Int, sizes: [Int], peopleCounts: [Int], rulesDirectory: String, peersData: String) throws {
        guard let shiftctl = siblingShiftctl(suite: "scale") else { return }
        let sizes = Array(Set(sizes)).sorted()
        let peopleCounts = Array(Set(peopleCounts)).sorted()
        guard let small = sizes.first, let big = sizes.last, sizes.count >= 2, peopleCounts.count >= 1 else {
            throw BenchmarkError(message: "scale: needs two sizes (--sizes 100000,1000000)")
        }
        print("## Scale: every user path as a whole process at \(sizes.map(count).joined(separator: " and ")) shifts, \(peopleCounts.map(count).joined(separator: " and ")) people\n")
        print("Whole `shiftctl` processes with the stock rules (copied by `init`) on a valid roster (one shift a person a day, five on and two off; the stock rules find nothing). The CSV (`date,type,person`) and the store file of the same roster are each imported into a new JSON and a new SQLite store; the other commands run on the stores the CSV made, \(runs) runs each (median; peak RSS is the process's own). *Growth* is the cost per unit at \(count(big)) over \(count(small)) shifts: per shift for the paths that read or write a whole store (imports, `validate`, `migrate`, and every command on a JSON store, which is read and rewritten whole), per shift of the person for one person's export from SQLite, per call for the rest. *People* is the cost per shift at \(count(peopleCounts.last!)) people over \(count(peopleCounts.first!)) (at \(count(big)) shifts). ⚑ marks a growth or a people factor above \(flagAbove)x.\n")

        let scratch = try SQLiteBenchmarks.ScratchFolder("scale", rules: rulesDirectory)
        defer { scratch.remove() }
        let directory = scratch.path

        var results: [Path: [Point: [SQLiteBenchmarks.ProcessResult]]] = [:]
        var order: [Path] = []
        func record(_ path: Path, _ point: Point, _ result: SQLiteBenchmarks.ProcessResult) {
            if results[path] == nil { order.append(path) }
            results[path, default: [:]][point, default: []].append(result)
        }
        for shifts in sizes {
            for people in peopleCounts {
                let point = Point(shifts: shifts, people: people)
                progress("\(count(shifts)) shifts, \(count(people)) people")
                let folder = directory + "/\(shifts)-\(people)"
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                try FileManager.default.createSymbolicLink(atPath: folder + "/rules", withDestinationPath: directory + "/rules")
                let schedule = try Generator.schedule(shifts: shifts, people: people, valid: true)
                try writeInputs(schedule, in: folder)
                func shiftctlRun(_ arguments: [String], allowing codes: Set<Int> = [0]) throws -> SQLiteBenchmarks.ProcessResult {
                    try SQLiteBenchmarks.spawn(shiftctl, arguments, in: folder, allowing: codes)
                }
                func newStore(_ name: String) throws {
                    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: folder + "/" + name + suffix) }
                    _ = try shiftctlRun(["--store", name, "init", "--time-zone", "Europe/Berlin", "--no-rules"])
                }

                // Imports: the CSV into stores that hold the people and types, the store file
                // into empty ones.
                for backend in ["json", "sqlite"] {
                    let name = "csv.\(backend)"
                    try newStore(name)
                    _ = try shiftctlRun(["--store", name, "--no-rules", "import", "catalog.json"])
                    record(Path(name: "`import` CSV into \(backend == "json" ? "JSON" : "SQLite")", unit: .shift), point,
                           try shiftctlRun(["--store", name, "--rules", "rules", "import", "roster.csv"]))
                    let copy = "file.\(backend)"
                    try newStore(copy)
                    record(Path(name: "`import` store file into \(backend == "json" ? "JSON" : "SQLite")", unit: .shift), point,
                           try shiftctlRun(["--store", copy, "--rules", "rules", "import", "roster.json"]))
                    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: folder + "/" + copy + suffix) }
                }

                // The commands, interleaved over the two stores so both see the same machine.
                let day = Generator.firstDay.adding(days: 35)
                for run in 0..<runs {
                    for backend in ["json", "sqlite"] {
                        let store = ["--store", "csv.\(backend)", "--rules", "rules"]
                        let label = backend == "json" ? "JSON" : "SQLite"
                        let json = backend == "json"
                        record(Path(name: "`validate` (\(label))", unit: .shift), point, try shiftctlRun(store + ["validate"]))
                        let before = Generator.firstDay.adding(days: -10 - 2 * run).description
                        record(Path(name: "`schedule add` (\(label))", unit: json ? .shift : .call), point,
                               try shiftctlRun(store + ["schedule", "add", "--type", "E", "--date", before, "--person", "Person 0"]))
                        record(Path(name: "`schedule list` of one day (\(label))", unit: json ? .shift : .call), point,
                               try shiftctlRun(store + ["schedule", "list", "--from", day.description, "--to", day.description]))
                        record(Path(name: "`calendar roster` of a week (\(label))", unit: json ? .shift : .call), point,
                               try shiftctlRun(store + ["calendar", "roster", "--from", day.description, "--days", "7"]))
                        record(Path(name: "`export` one person's iCalendar (\(label))", unit: json ? .shift : .personShift), point,
                               try shiftctlRun(store + ["export", "--file-format", "ics", "--person", "Person 1", "-o", "person.ics"]))
                        record(Path(name: "`log --limit 20` (\(label))", unit: json ? .shift : .call), point,
                               try shiftctlRun(store + ["log", "--limit", "20"]))
                    }
                }
                record(Path(name: "`migrate` JSON to SQLite", unit: .shift), point,
                       try shiftctlRun(["--store", "csv.json", "migrate", "--to", "migrated.sqlite"]))
                record(Path(name: "`migrate` SQLite to JSON", unit: .shift), point,
                       try shiftctlRun(["--store", "csv.sqlite", "migrate", "--to", "migrated.json"]))
                try? FileManager.default.removeItem(atPath: folder + "/migrated.sqlite")
                try? FileManager.default.removeItem(atPath: folder + "/migrated.json")

                // The last point keeps its clean stores for the comparisons below.
                if shifts != big || people != peopleCounts.last! { try? FileManager.default.removeItem(atPath: folder) }
            }
        }

        var report = Report(["path"] + sizes.flatMap { size in peopleCounts.map { "\(count(size)), \(count($0)) people" } }
            + ["unit", "growth", "people", "peak RSS at \(count(big))"])
        var flagged: [String] = []
        for path in order {
            guard let points = results[path] else { continue }
            func median(_ point: Point) -> Double? { points[point].map { Sample(seconds: $0.map(\.seconds)).median } }
            func perUnit(_ point: Point) -> Double? {
                median(point).map { time in
                    switch path.unit {
                    case .shift: time / Double(point.shifts)
                    case .call: time
                    case .personShift: time / (Double(point.shifts) / Double(point.people))
                    }
                }
            }
            var row = [path.name]
            for size in sizes { for people in peopleCounts { row.append(median(Point(shifts: size, people: people)).map(formatTime) ?? "–") } }
            row.append(path.unit.rawValue)
            let growths = peopleCounts.compactMap { people -> Double? in
                guard let a = perUnit(Point(shifts: small, people: people)), let b = perUnit(Point(shifts: big, people: people)) else { return nil }
                return b / a
            }
            let growth = growths.max() ?? 0
            var cell = growths.map { String(format: "%.2fx", $0) }.joined(separator: " / ")
            if growth > flagAbove { cell += " ⚑"; flagged.append("\(path.name): growth \(String(format: "%.2fx", growth))") }
            row.append(cell)
            if path.unit == .shift, peopleCounts.count > 1, let few = perUnit(Point(shifts: big, people: peopleCounts.first!)),
               let many = perUnit(Point(shifts: big, people: peopleCounts.last!)) {
                let factor = many / few
                row.append(String(format: "%.2fx", factor) + (factor > flagAbove ? " ⚑" : ""))
                if factor > flagAbove { flagged.append("\(path.name): people \(String(format: "%.2fx", factor))") }
            } else {
                row.append("–")
            }
            let rss = peopleCounts.compactMap { points[Point(shifts: big, people: $0)] }.flatMap { $0 }.map(\.peakRSSMiB)
            row.append(rss.isEmpty ? "–" : String(format: "%.0f MiB", rss.max()!))
            report.add(row)
        }
        print(report.markdown())
        print("\n" + (flagged.isEmpty ? "Flagged: none (no path's cost per unit grows by more than \(flagAbove)x)." :
                        "Flagged: " + flagged.joined(separator: "; ") + ".") + "\n")

        // At the biggest size, with the most people: opening with a long change log, and a messy
        // roster against the clean one.
        let last = Point(shifts: big, people: peopleCounts.last!)
        let folder = directory + "/\(last.shifts)-\(last.people)"
        try openingWithLog(shiftctl, shifts: big, people: last.people, cleanFolder: folder, runs: runs)
        try messyAgainstClean(shiftctl, shifts: big, people: last.people, cleanFolder: folder, runs: runs)
        // SHIFTBENCH_KEEP keeps the biggest size's stores with the scratch folder, to look into.
        if ProcessInfo.processInfo.environment["SHIFTBENCH_KEEP"] == nil { try? FileManager.default.removeItem(atPath: folder) }
        try peersWholeRun(shiftctl, folder: directory, shifts: big, runs: runs, data: peersData)
    }

    /// The people, types and settings alone (`catalog.json`), the roster as CSV (`roster.csv`)
    /// and as a store file (`roster.json`).
    static func writeInputs(_ schedule: Schedule, in folder: String) throws {
        let catalog = try Schedule(settings: schedule.settings, shiftTypes: schedule.shiftTypes, people: schedule.people, shifts: [])
        try Data(StoreFileCodec.encode(catalog)).write(to: URL(fileURLWithPath: folder + "/catalog.json"))
        try Data(StoreFileCodec.encode(schedule)).write(to: URL(fileURLWithPath: folder + "/roster.json"))
        var symbols: [ShiftTypeID: String] = [:]
        for type in schedule.shiftTypes { symbols[type.id] = type.symbol }
        var names: [PersonID: String] = [:]
        for person in schedule.people { names[person.id] = person.displayName }
        var csv = "date,type,person\n"
        csv.reserveCapacity(schedule.shiftCount * 24)
        for shift in schedule.shifts() {
            csv += "\(shift.date),\(symbols[shift.shiftTypeID]!),\(shift.personID.flatMap { names[$0] } ?? "")\n"
        }
        try Data(csv.utf8).write(to: URL(fileURLWithPath: folder + "/roster.csv"))
    }

    /// Commands on the same roster whose change log has one entry per shift (the shape of a store
    /// built one change at a time, or of one written before bulk entries), against the same
    /// roster logged as one import: what the log costs a command that does not read it.
    static func openingWithLog(_ shiftctl: String, shifts: Int, people: Int, cleanFolder: String, runs: Int) throws {
        progress("opening with a \(count(shifts))-entry change log")
        try writeLoggedStore(shifts: shifts, people: people, path: cleanFolder + "/logged.json")
        _ = try SQLiteBenchmarks.spawn(shiftctl, ["--store", "logged.json", "migrate", "--to", "logged.sqlite"], in: cleanFolder)

        var report = Report(["command", "store", "change log", "median", "min–max", "peak RSS"])
        let day = Generator.firstDay.adding(days: 35).description
        let commands: [(String, [String])] = [
            ("`schedule list` of one day", ["schedule", "list", "--from", day, "--to", day]),
            ("`validate`", ["validate"]),
            ("`log --limit 20`", ["log", "--limit", "20"]),
        ]
        for (label, arguments) in commands {
            for (store, log) in [("csv.json", "1 entry"), ("logged.json", "\(count(shifts)) entries"),
                                 ("csv.sqlite", "1 entry"), ("logged.sqlite", "\(count(shifts)) entries")] {
                var results: [SQLiteBenchmarks.ProcessResult] = []
                for _ in 0..<runs {
                    results.append(try SQLiteBenchmarks.spawn(shiftctl, ["--store", store, "--rules", "rules"] + arguments, in: cleanFolder))
                }
                let sample = Sample(seconds: results.map(\.seconds))
                report.add([label, store.hasSuffix(".json") ? "JSON" : "SQLite", log, formatTime(sample.median),
                            "\(formatTime(sample.min))–\(formatTime(sample.max))",
                            String(format: "%.0f MiB", results.map(\.peakRSSMiB).max() ?? 0)])
            }
        }
        let sizes = ["roster.json", "csv.json", "logged.json", "csv.sqlite", "logged.sqlite"].map { name in
            "\(name) \(String(format: "%.0f", Double(fileSize(cleanFolder + "/" + name)) / 1_048_576)) MB"
        }
        print("### Opening a store with a long change log (\(count(shifts)) shifts, \(count(people)) people)\n")
        print("The same roster, logged as one import (`csv.*`) and as one entry per shift (`logged.*`, as a store built one change at a time). Store files: \(sizes.joined(separator: ", ")) (`roster.json` is the schedule with an empty log).\n")
        print(report.markdown())
        print()
        for name in ["logged.json", "logged.sqlite"] { try? FileManager.default.removeItem(atPath: cleanFolder + "/" + name) }
    }

    /// The roster with a change log of one `created` entry per shift, written as a JSON store.
    static func writeLoggedStore(shifts: Int, people: Int, path: String) throws {
        let schedule = try Generator.schedule(shifts: shifts, people: people, valid: true)
        var types: [ShiftTypeID: ShiftType] = [:]
        for type in schedule.shiftTypes { types[type.id] = type }
        var names: [PersonID: String] = [:]
        for person in schedule.people { names[person.id] = person.displayName }
        var rng = SplitMix(seed: 7)
        let start = Date(timeIntervalSince1970: 1_767_225_600)
        var entries: [ChangeLogEntry] = []
        entries.reserveCapacity(schedule.shiftCount)
        for (index, shift) in schedule.shifts().enumerated() {
            let type = types[shift.shiftTypeID]!
            entries.append(ChangeLogEntry(
                id: ChangeLogEntryID(rng.uuid()), timestamp: start.addingTimeInterval(Double(index)), userId: "planner",
                userDisplayName: "Planner", changeType: .created, scheduledShiftDate: shift.date,
                newShiftSnapshot: ShiftSnapshot(shiftID: shift.id, shiftTypeID: type.id, symbol: type.symbol, title: type.title,
                                                duration: type.duration, date: shift.date, personID: shift.personID,
                                                personName: shift.personID.flatMap { names[$0] })))
        }
        let logged = try Schedule(settings: schedule.settings, shiftTypes: schedule.shiftTypes, people: schedule.people,
                                  shifts: schedule.shifts(), changeLog: entries)
        try JSONFileRepository(path: path).write(StoreFileCodec.encode(logged))
    }

    /// `validate` of a roster where every second shift breaks the rest rule, against the clean
    /// roster of the same size and people: exit 1 with every finding counted, not a failure.
    static func messyAgainstClean(_ shiftctl: String, shifts: Int, people: Int, cleanFolder: String, runs: Int) throws {
        progress("a messy roster against a clean one")
        let schedule = try Generator.messySchedule(shifts: shifts, people: people)
        try JSONFileRepository(path: cleanFolder + "/messy.json").write(StoreFileCodec.encode(schedule))
        var clean: [SQLiteBenchmarks.ProcessResult] = []
        var messy: [SQLiteBenchmarks.ProcessResult] = []
        var errors = 0
        for _ in 0..<runs {
            clean.append(try SQLiteBenchmarks.spawn(shiftctl, ["--store", "csv.json", "--rules", "rules", "validate", "--score"], in: cleanFolder))
            let run = try SQLiteBenchmarks.spawn(shiftctl, ["--store", "messy.json", "--rules", "rules", "validate", "--score"],
                                                 in: cleanFolder, allowing: [1])
            messy.append(run)
        }
        // The counts, from one more run's report (the timed runs discard their output).
        let output = try runProcess(shiftctl, ["--store", "messy.json", "--rules", "rules", "--format", "json", "validate", "--score", "--limit", "0"],
                                    in: cleanFolder, allowViolations: true)
        if let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any] {
            errors = object["errors"] as? Int ?? 0
        }
        guard errors >= shifts / 2 - people else {
            throw BenchmarkError(message: "scale: the messy roster reported \(errors) errors; every second of its \(shifts) shifts breaks the rest rule")
        }
        let a = Sample(seconds: clean.map(\.seconds)), b = Sample(seconds: messy.map(\.seconds))
        print("### Validation that always reports (\(count(shifts)) shifts, \(count(people)) people)\n")
        var report = Report(["roster", "exit", "errors", "median", "min–max", "peak RSS"])
        report.add(["clean", "0", "0", formatTime(a.median), "\(formatTime(a.min))–\(formatTime(a.max))",
                    String(format: "%.0f MiB", clean.map(\.peakRSSMiB).max() ?? 0)])
        report.add(["every second shift breaks the 11 h rest", "1", "\(errors)", formatTime(b.median),
                    "\(formatTime(b.min))–\(formatTime(b.max))", String(format: "%.0f MiB", messy.map(\.peakRSSMiB).max() ?? 0)])
        print(report.markdown())
        print("\nMessy ÷ clean: **\(String(format: "%.2fx", b.median / a.median))** (`validate --score`, whole processes).\n")
        if ProcessInfo.processInfo.environment["SHIFTBENCH_KEEP"] == nil { try? FileManager.default.removeItem(atPath: cleanFolder + "/messy.json") }
    }

    /// The peers' roster (benchmarks/peers, the size nearest `shifts`) validated by `shiftctl` as a
    /// JSON and a SQLite store, whole processes, against the Python checker's whole run (start,
    /// CSV read, one check).
    static func peersWholeRun(_ shiftctl: String, folder: String, shifts: Int, runs: Int, data: String) throws {
        guard let size = PeerBenchmarks.sizes.min(by: { abs($0.people * $0.days - shifts) < abs($1.people * $1.days - shifts) }) else { return }
        progress("the peers' \(size.label) roster, whole runs")
        let peers = URL(fileURLWithPath: data).standardizedFileURL.path
        let rules = URL(fileURLWithPath: "rules/examples/peers").standardizedFileURL.path
        let cache = NSTemporaryDirectory() + "shiftbench-peers"
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        let csv = cache + "/roster_\(size.label).csv"
        if !FileManager.default.fileExists(atPath: csv) {
            _ = try runProcess("/usr/bin/env", ["python3", peers + "/gen_roster.py", "--people", "\(size.people)", "--days", "\(size.days)", "--out", csv])
        }
        let schedule = try TimedRosterCSV.schedule(from: Data(contentsOf: URL(fileURLWithPath: csv)))
        try JSONFileRepository(path: folder + "/peers.json").write(StoreFileCodec.encode(schedule))
        _ = try SQLiteBenchmarks.spawn(shiftctl, ["--store", "peers.json", "migrate", "--to", "peers.sqlite"], in: folder)
        defer {
            if ProcessInfo.processInfo.environment["SHIFTBENCH_KEEP"] == nil {
                for name in ["peers.json", "peers.sqlite"] { try? FileManager.default.removeItem(atPath: folder + "/" + name) }
            }
        }

        var python: [Double] = []
        var stores: [String: [PeerBenchmarks.ValidateRun]] = [:]
        for _ in 0..<runs {
            // The Python checker's whole run: its wall time less the one extra check --repeat 1 makes.
            let clock = ContinuousClock()
            let start = clock.now
            let output = try runProcess("/usr/bin/env", ["python3", peers + "/peer_python.py", csv, "--repeat", "1"])
            let wall = (clock.now - start).seconds
            guard let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], let warm = object["warm_s"] as? Double else {
                throw BenchmarkError(message: "peer_python.py printed no timings: \(output.prefix(300))")
            }
            python.append(wall - warm)
            for store in ["peers.json", "peers.sqlite"] {
                let begin = clock.now
                let output = try runProcess(shiftctl, ["--store", store, "validate", "--rules", rules, "--score", "--limit", "0", "--stats", "--format", "json"],
                                            in: folder, allowViolations: true)
                stores[store, default: []].append(try PeerBenchmarks.ValidateRun(json: output, wall: (clock.now - begin).seconds))
            }
        }
        let reference = Sample(seconds: python)
        var report = Report(["store", "wall", "min–max", "load", "rules", "check", "peak RSS", "÷ Python's whole run"])
        for store in ["peers.json", "peers.sqlite"] {
            let results = stores[store]!
            let wall = Sample(seconds: results.map(\.wall))
            report.add([store.hasSuffix(".json") ? "JSON" : "SQLite", formatTime(wall.median), "\(formatTime(wall.min))–\(formatTime(wall.max))",
                        formatTime(Sample(seconds: results.map(\.load)).median), formatTime(Sample(seconds: results.map(\.rules)).median),
                        formatTime(Sample(seconds: results.map(\.check)).median), String(format: "%.0f MiB", Sample(seconds: results.map(\.rss)).median),
                        String(format: "%.2fx", wall.median / reference.median)])
        }
        print("### `validate` of the peers' \(size.label) roster (\(schedule.shiftCount) shifts), whole runs, against Python's\n")
        print("`shiftctl validate --rules rules/examples/peers --score --limit 0 --stats` as a whole process; Python is `peer_python.py`'s whole run (interpreter start, CSV read, one check): **\(formatTime(reference.median))** (\(formatTime(reference.min))–\(formatTime(reference.max))).\n")
        print(report.markdown())
        print()
    }

    static func progress(_ text: String) { FileHandle.standardError.write(Data("shiftbench: scale: \(text)\n".utf8)) }

    static func count(_ n: Int) -> String {
        if n >= 1_000_000, n % 1_000_000 == 0 { return "\(n / 1_000_000)M" }
        if n >= 1_000, n % 1_000 == 0 { return "\(n / 1_000)k" }
        let formatter = NumberFormatter()
        formatter.numberStyle = .decimal
        formatter.groupingSeparator = ","
        return formatter.string(from: NSNumber(value: n)) ?? "\(n)"
    }

    static func fileSize(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }
}
