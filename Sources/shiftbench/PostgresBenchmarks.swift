import Foundation
import ShiftCore
import ShiftRules
import ShiftStorage
import ShiftStoragePostgres
import Synchronization

/// The PostgreSQL store (issue #31), on the server `SHIFTBENCH_POSTGRES` (else
/// `SHIFT_TEST_POSTGRES`) names, a `postgres://` URL of a database it may create schedules and
/// databases in (`scripts/with-postgres.sh shiftbench postgres` starts a throwaway one):
///
/// - `shiftctl migrate` of `size` shifts from a JSON store to the server (goal ≤ 30 s at 1M);
/// - `shiftctl schedule add` with all stock rules at `size` shifts against 10 (goal ≤ 2x);
/// - rule-checked mutations per second in process through the embedding API (`ScheduleStore`
///   over `PostgresRepository`, the stock rules), 1, 2, 4 and 8 writers on disjoint people
///   (goal: 4 writers ≥ 1.5x one);
/// - `pgbench`'s built-in TPC-B-like run on the same server in the same session: its ceiling.
///
/// Without a server it prints why and skips.
enum PostgresBenchmarks {
    static func run(runs: Int, size: Int, seconds: Double, rulesDirectory: String) async throws {
        print("## PostgreSQL store\n")
        guard let base = serverURL() else {
            print("skipped: no PostgreSQL server (set SHIFTBENCH_POSTGRES to a postgres:// URL of a database it may create schedules in, or run `scripts/with-postgres.sh shiftbench postgres`)\n")
            return
        }
        if let reason = unreachable(base) {
            print("skipped: the PostgreSQL server cannot be used: \(reason)\n")
            return
        }
        guard let shiftctl = siblingShiftctl(suite: "postgres") else { return }
        let tag = "b\(getpid())"
        let directory = NSTemporaryDirectory() + "shiftbench-postgres-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var schemas: [String] = []
        defer {
            for schema in schemas { _ = try? psql(base, "DROP SCHEMA IF EXISTS \(schema) CASCADE") }
            try? FileManager.default.removeItem(atPath: directory)
        }
        try FileManager.default.copyItem(atPath: rulesDirectory, toPath: directory + "/rules")
        func schedule(_ name: String) -> String {
            schemas.append("shiftscheduler_\(name)")
            return base + (base.contains("?") ? "&" : "?") + "schedule=\(name)"
        }
        print("Loopback server, same machine. Whole `shiftctl` processes with the stock rules for the commands; the writers run in this process, each with its own connection, store and Lua rule engine.\n")

        // Moving in: a JSON store of `size` shifts, migrated (read back and compared included).
        var report = Report(["step", "runs", "median", "min–max"])
        func row(_ name: String, _ sample: Sample) {
            report.add([name, "\(sample.seconds.count)", formatTime(sample.median), "\(formatTime(sample.min))–\(formatTime(sample.max))"])
        }
        var stores: [String] = []
        var migrations: [Double] = []
        for (position, count) in [10, size].enumerated() {
            let file = "store-\(position)-\(count).json"
            try Data(StoreFileCodec.encode(try Generator.schedule(shifts: count, valid: true))).write(to: URL(fileURLWithPath: directory + "/" + file))
            for run in 0..<(position == 1 ? Swift.min(runs, 3) : 1) {
                let url = schedule("\(tag)_\(position)_\(count)_\(run)")
                let result = try SQLiteBenchmarks.spawn(shiftctl, ["--store", file, "migrate", "--to", url], in: directory)
                if position == 1 { migrations.append(result.seconds) }
                if run == 0 { stores.append(url) }
            }
        }
        row("`shiftctl migrate` of \(size) shifts from JSON to the server (goal ≤ 30 s)", Sample(seconds: migrations))

        // One change on each store, interleaved so both see the same machine.
        var adds: [[Double]] = [[], []]
        for run in 0..<runs {
            for position in 0..<2 {
                let date = Generator.firstDay.adding(days: -10 - 2 * run).description
                adds[position].append(try SQLiteBenchmarks.spawn(shiftctl, [
                    "--store", stores[position], "--rules", "rules", "schedule", "add", "--type", "E", "--date", date, "--person", "Person 0",
                ], in: directory).seconds)
            }
        }
        row("`shiftctl schedule add` at 10 shifts", Sample(seconds: adds[0]))
        row("`shiftctl schedule add` at \(size) shifts", Sample(seconds: adds[1]))
        let approvals = try SQLiteBenchmarks.approveClaims(shiftctl, store: stores[1], runs: runs, in: directory).map(\.seconds)
        row("`shiftctl request approve` of a claim at \(size) shifts", Sample(seconds: approvals))
        print(report.markdown())
        print("\nApproving a claim at \(size) shifts takes \(String(format: "%.2f", Sample(seconds: approvals).median / Sample(seconds: adds[1]).median))x a `schedule add` there (goal ≤ 2x, issue #32).")
        let ratio = Sample(seconds: adds[1]).median / Sample(seconds: adds[0]).median
        print("\n`schedule add` at \(size) shifts takes \(String(format: "%.2f", ratio))x its time at 10 shifts (goal ≤ 2x, same run).\n")

        // Writers side by side.
        let throughputURL = schedule("\(tag)_writers")
        try await setUpWriters(throughputURL)
        var writers = Report(["writers", "mutations", "seconds", "mutations/s", "x one writer", "rejected", "conflicts retried", "gave up"])
        var single = 0.0
        for (round, count) in [1, 2, 4, 8].enumerated() {
            let (done, rejected, retried, gaveUp, elapsed) = try await mutations(writers: count, round: round, seconds: seconds, url: throughputURL, rules: directory + "/rules")
            let rate = Double(done) / elapsed
            if count == 1 { single = rate }
            writers.add(["\(count)", "\(done)", String(format: "%.1f", elapsed), String(format: "%.0f", rate), String(format: "%.2f", rate / single), "\(rejected)",
                         "\(retried)", "\(gaveUp)"])
        }
        print("Rule-checked `scheduleShift` mutations through `ScheduleStore.apply` (stock rules, one SERIALIZABLE transaction each, conflicts retried up to \(ScheduleStore.conflictAttempts) attempts; \"gave up\": mutations whose attempts all met a conflict), each writer on a person of its own, for \(String(format: "%.0f", seconds)) s (goal: 4 writers ≥ 1.5x one):\n")
        print(writers.markdown())
        print()

        try pgbench(base, seconds: seconds, tag: tag)
    }

    /// The server's URL, from the environment.
    static func serverURL() -> String? {
        let environment = ProcessInfo.processInfo.environment
        for name in ["SHIFTBENCH_POSTGRES", "SHIFT_TEST_POSTGRES"] {
            if let value = environment[name], !value.isEmpty { return value }
        }
        return nil
    }

    /// Why the server cannot be used, or nil when it answers.
    static func unreachable(_ base: String) -> String? {
        do {
            _ = try PostgresRepository(url: base + (base.contains("?") ? "&" : "?") + "schedule=shiftbench_probe")
            return nil
        } catch PostgresStoreError.notFound {
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// A schedule with the generator's shift types and eight people, one for each writer.
    static func setUpWriters(_ url: String) async throws {
        let repository = try PostgresRepository(url: url, createIfMissing: true, initialSettings: StoreSettings(timeZoneIdentifier: "Europe/Berlin"))
        let store = try ScheduleStore(repository: repository)
        try await store.apply(.batch(Generator.types.map { .addShiftType($0) }
            + (0..<8).map { .addPerson(Person(id: PersonID(Generator.id(5000 + $0)), displayName: "Writer \($0)")) }))
    }

    /// `writers` writers, each on its own person, each with its own repository, store and rule
    /// engine, scheduling shifts for `seconds`: five days on, two off, early shifts, so the
    /// rules accept every one.
    static func mutations(
        writers: Int, round: Int, seconds: Double, url: String, rules: String
    ) async throws -> (done: Int, rejected: Int, retried: Int, gaveUp: Int, seconds: Double) {
        var stores: [ScheduleStore] = []
        for _ in 0..<writers {
            let store = try ScheduleStore(repository: try PostgresRepository(url: url))
            await store.setValidators([try RuleEngine(RuleEngineConfiguration(directories: [rules]))])
            stores.append(store)
        }
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start + .milliseconds(Int(seconds * 1000))
        let counts = try await withThrowingTaskGroup(of: (Int, Int, Int).self) { group in
            for (writer, store) in stores.enumerated() {
                // Each writer on a thread of its own: the store's reads block their thread while
                // they wait for the server.
                group.addTask(executorPreference: WriterExecutor()) {
                    let person = PersonID(Generator.id(5000 + writer))
                    var done = 0
                    var rejected = 0
                    var gaveUp = 0
                    var n = 0
                    while clock.now < deadline {
                        let day = round * 20_000 + n / 5 * 7 + n % 5
                        n += 1
                        let shift = ScheduledShift(id: ShiftID(UUID()), shiftTypeID: Generator.early.id,
                                                   date: Generator.firstDay.adding(days: day), personID: person)
                        do {
                            try await store.apply(.scheduleShift(shift))
                            done += 1
                        } catch ScheduleError.rejected {
                            rejected += 1
                        } catch is any RetryableStoreError {
                            gaveUp += 1
                        }
                    }
                    return (done, rejected, gaveUp)
                }
            }
            var total = (0, 0, 0)
            for try await (done, rejected, gaveUp) in group { total = (total.0 + done, total.1 + rejected, total.2 + gaveUp) }
            return total
        }
        let elapsed = (clock.now - start).seconds
        var retried = 0
        for store in stores { retried += await store.conflictsRetried }
        return (counts.0, counts.1, retried, counts.2, elapsed)
    }

    /// `pgbench`'s TPC-B-like run (its default script) with 1 and 4 clients, in a database of its
    /// own that is dropped afterwards.
    static func pgbench(_ base: String, seconds: Double, tag: String) throws {
        guard let pgbench = tool("pgbench") else {
            print("pgbench: skipped, not installed (apt-get install postgresql-contrib or postgresql)\n")
            return
        }
        let location = try PostgresLocation(url: base)
        let database = "shiftbench_\(tag)"
        try psql(base, "CREATE DATABASE \(database)")
        defer { _ = try? psql(base, "DROP DATABASE IF EXISTS \(database)") }
        let connection = ["-h", location.host, "-p", "\(location.port)", "-U", location.user]
        _ = try runPgbench(pgbench, ["-i", "-q", "-s", "4"] + connection + [database], password: location.password)
        var report = Report(["clients", "tps (TPC-B-like)", "latency average"])
        for clients in [1, 4] {
            let output = try runPgbench(pgbench, ["-c", "\(clients)", "-j", "\(clients)", "-T", "\(Int(seconds.rounded(.up)))", "-n"] + connection + [database],
                                        password: location.password)
            let tps = output.split(separator: "\n").first { $0.hasPrefix("tps = ") }.map { $0.dropFirst(6).split(separator: " ")[0] } ?? "?"
            let latency = output.split(separator: "\n").first { $0.hasPrefix("latency average") }.map { $0.split(separator: "=").last!.trimmingCharacters(in: .whitespaces) } ?? "?"
            report.add(["\(clients)", String(tps), latency])
        }
        print("`pgbench` (scale 4, the built-in TPC-B-like script: five statements a transaction, READ COMMITTED) on the same server, the server's own ceiling for small write transactions:\n")
        print(report.markdown())
        print()
    }

    private static func runPgbench(_ pgbench: String, _ arguments: [String], password: String?) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: pgbench)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        if let password { environment["PGPASSWORD"] = password }
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        // A child inherits its parent thread's signal mask, and Swift's concurrency threads block
        // every signal: `pgbench -T` ends its run on SIGALRM, and would otherwise never end.
        var none = sigset_t()
        var previous = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let problems = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchmarkError(message: "pgbench \(arguments.joined(separator: " ")): \(problems)") }
        return text
    }

    /// Runs SQL on the server's database with `psql`.
    @discardableResult
    static func psql(_ url: String, _ sql: String) throws -> String {
        guard let psql = tool("psql") else { throw BenchmarkError(message: "psql is not installed") }
        return try runProcess(psql, ["-q", "-v", "ON_ERROR_STOP=1", url.replacingOccurrences(of: "postgres://", with: "postgresql://"), "-c", sql])
    }

    /// A PostgreSQL program: on the PATH, else in Debian's newest server folder.
    static func tool(_ name: String) -> String? {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
            + ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? [])
                .sorted { $0.compare($1, options: .numeric) == .orderedDescending }.map { "/usr/lib/postgresql/\($0)/bin" }
        return folders.map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// A task executor with a serial queue of its own, for one writer: its blocking waits for the
/// server hold that writer's thread only, not one of the few threads of the shared pool.
final class WriterExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "shiftbench.postgres.writer")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
