import Foundation
import ShiftCore
import ShiftStorageSQLite
import Synchronization
import Testing

/// Several `shiftctl` processes changing one store at the same time: every change a process
/// reports as done (exit 0) is in the store, nothing else is, and the change log has one entry
/// per change under the user who made it.
///
/// `SHIFT_WRITERS` (default 4) processes at once, `SHIFT_WRITES_PER_WRITER` (default 4) changes
/// each; `scripts/crash-soak.sh` runs a longer pass.
@Suite(.serialized) struct ConcurrentWriterTests {
    @Test(arguments: StoreBackend.allCases)
    func everyAcceptedChangeIsPresentAndLogged(_ backend: StoreBackend) throws {
        let writers = environmentCount("SHIFT_WRITERS", default: 4)
        let perWriter = environmentCount("SHIFT_WRITES_PER_WRITER", default: 4)
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let store = backend.fileName
        for arguments in [["--store", store, "init", "--time-zone", "UTC"], ["--store", store, "type", "add", "D", "--time", "08:00-16:00"]] {
            let result = try sandbox.run(arguments: arguments)
            try #require(result.status == 0, "\(arguments): \(result.stderr)")
        }
        let before = try backend.open(sandbox.path + "/" + store)
        let first = LocalDate("2031-01-01")!
        @Sendable func date(_ writer: Int, _ n: Int) -> String { first.adding(days: writer * perWriter + n).description }

        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: writers) { writer in
            for n in 0..<perWriter {
                do {
                    let result = try sandbox.run(arguments: [
                        "--store", store, "--as", "writer\(writer)", "schedule", "add", "--type", "D", "--date", date(writer, n),
                    ])
                    if result.status != 0 { failures.withLock { $0.append("writer \(writer) #\(n): \(result.status) \(result.stderr)") } }
                } catch {
                    failures.withLock { $0.append("writer \(writer) #\(n): \(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")

        let schedule = try backend.open(sandbox.path + "/" + store)
        let expected = Set((0..<writers).flatMap { w in (0..<perWriter).map { date(w, $0) } })
        #expect(Set(schedule.shifts().map(\.date.description)) == expected)
        #expect(schedule.shiftCount == writers * perWriter, "each change exactly once")
        let log = schedule.changeLog.dropFirst(before.changeLog.count)
        #expect(log.count == writers * perWriter, "the change log is complete")
        for writer in 0..<writers {
            let dates = Set(log.filter { $0.userId == "writer\(writer)" }.map(\.scheduledShiftDate.description))
            #expect(dates == Set((0..<perWriter).map { date(writer, $0) }), "writer \(writer)'s changes are logged under its name")
        }
    }

    /// One process with two repositories open on one SQLite store (as `shiftctl` has for every
    /// change: one to read, one to commit through) while another process opens and closes the
    /// store: every commit the first process acknowledges is in the store.
    ///
    /// Opening a repository must not touch the database file outside SQLite: closing any
    /// descriptor of it drops all of the process's POSIX locks on it, including SQLite's; the
    /// other process then believes it is the last connection when it closes, checkpoints and
    /// deletes the `-wal`, and this process's next commit goes into the deleted `-wal`.
    @Test func aSecondRepositoryInOneProcessLosesNoCommit() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let store = try MalformedInputTests.validStore(.sqlite, in: sandbox)
        let path = sandbox.path + "/" + store
        let reader = try SQLiteRepository(path: path)
        _ = try reader.load()
        let funnel = try ScheduleStore(repository: try SQLiteRepository(path: path))
        var acknowledged: [String] = []
        for name in ["One", "Two"] {
            // A commit that fails is not lost; one that returns must be there.
            if (try? await funnel.apply(.addPerson(Person(id: PersonID(UUID()), displayName: name)))) != nil { acknowledged.append(name) }
            // Another process opens the store, reads it and exits.
            #expect(try sandbox.run("--store", store, "person", "list").status == 0)
        }
        let listed = try sandbox.run("--store", store, "--format", "json", "person", "list")
        #expect(acknowledged == ["One", "Two"])
        for name in acknowledged {
            #expect(listed.stdout.contains("\"\(name)\""), "acknowledged commit \(name) is in the store: \(listed.stdout)")
        }
        withExtendedLifetime(reader) {}
    }
}
