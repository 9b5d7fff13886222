import Foundation
import Testing
import ShiftCore
@testable import ShiftStorage
import ShiftStorageSQLite
import ShiftStoragePostgres
import TestSupport

/// One backend under test: how to make a repository over fresh storage, and how to open the same
/// storage again (a second process, or a restart).
struct Backend: CustomTestStringConvertible, Sendable {
    let name: String
    /// Whether writers exclude each other with a lock (the file stores); PostgreSQL's writers run
    /// side by side in SERIALIZABLE transactions instead.
    var locksWriters = true
    let make: @Sendable (Schedule) throws -> (repository: any ScheduleRepository, reopen: @Sendable () -> any ScheduleRepository, keepAlive: AnyObject?)
    var testDescription: String { name }

    static let memory = Backend(name: "memory") { schedule in
        let repository = InMemoryRepository(schedule)
        return (repository, { repository }, nil)
    }

    static let jsonFile = Backend(name: "json file") { schedule in
        let directory = try TemporaryFolder()
        let path = directory.file("schedule.json")
        let repository = JSONFileRepository(path: path)
        try repository.write(StoreFileCodec.encode(schedule))
        return (repository, { JSONFileRepository(path: path) }, directory)
    }

    /// The JSON file store opened through its index file (kept from the first shift on).
    static let jsonIndexed = Backend(name: "json file through its index") { schedule in
        let directory = try TemporaryFolder()
        let path = directory.file("schedule.json")
        let repository = JSONFileRepository(path: path, indexThreshold: 0)
        try repository.write(StoreFileCodec.encode(schedule))
        return (repository, { JSONFileRepository(path: path, indexThreshold: 0) }, directory)
    }

    static let sqlite = Backend(name: "sqlite") { schedule in
        let directory = try TemporaryFolder()
        let path = directory.file("schedule.sqlite")
        let repository = try SQLiteRepository(path: path, createIfMissing: true)
        try repository.write(schedule)
        return (repository, { try! SQLiteRepository(path: path) }, directory)
    }

    /// A new schedule of its own in the test server's database (`SHIFT_TEST_POSTGRES`).
    static let postgres = Backend(name: "postgres", locksWriters: false) { schedule in
        let url = try PostgresTestServer.freshScheduleURL()
        let repository = try PostgresRepository(url: url, createIfMissing: true)
        try repository.write(schedule)
        return (repository, { try! PostgresRepository(url: url) }, nil)
    }

    /// Every backend; PostgreSQL when the tests have a server (or must have one: CI).
    static let all: [Backend] = [.memory, .jsonFile, .jsonIndexed, .sqlite] + (PostgresTestServer.enabled ? [.postgres] : [])
}

/// The contract every repository keeps.
@Suite struct RepositoryConformanceTests {
    let base = try! Schedule(settings: StoreSettings(timeZoneIdentifier: "Europe/Berlin"))
    let type = ShiftType(id: ShiftTypeID(uuid(2)), symbol: "D", title: "Day", duration: ShiftDuration("07:00-19:00")!)
    let person = Person(id: PersonID(uuid(10)), displayName: "Bob")

    private func shift(_ n: Int, _ day: String = "2026-03-02") -> ScheduledShift {
        ScheduledShift(id: ShiftID(uuid(100 + n)), shiftTypeID: type.id, date: date(day), personID: person.id)
    }

    @Test(arguments: Backend.all) func committedMutationsSurviveReopening(_ backend: Backend) async throws {
        let (repository, reopen, keep) = try backend.make(base)
        let store = try ScheduleStore(repository: repository, actingUser: tester, environment: testEnvironment())
        try await store.apply(.batch([.addShiftType(type), .addPerson(person)]))
        try await store.apply(.scheduleShift(shift(1)))
        try await store.apply(.reassignShift(shift(1).id, to: nil, reason: "open it up"))
        let (reloaded, _) = try reopen().load()
        #expect(reloaded == (await store.schedule))
        #expect(reloaded.changeLog.count == 2)
        #expect(reloaded.shifts(ShiftQuery(unassignedOnly: true)).count == 1, "indexes are rebuilt on load")
        withExtendedLifetime(keep) {}
    }

    @Test(arguments: Backend.all) func rejectedMutationsWriteNothing(_ backend: Backend) async throws {
        let (repository, reopen, keep) = try backend.make(base)
        let store = try ScheduleStore(repository: repository, actingUser: tester, environment: testEnvironment())
        try await store.apply(.batch([.addShiftType(type), .addPerson(person), .scheduleShift(shift(1))]))
        let revision = try repository.revision()
        let persisted = try reopen().load().0
        await #expect(throws: ScheduleError.self) {
            try await store.apply(.batch([.scheduleShift(shift(2)), .scheduleShift(shift(1))]))
        }
        #expect(try repository.revision() == revision)
        #expect(try reopen().load().0 == persisted)
        withExtendedLifetime(keep) {}
    }

    @Test(arguments: Backend.all.filter(\.locksWriters)) func theWriteLockIsExclusive(_ backend: Backend) async throws {
        let (repository, reopen, keep) = try backend.make(base)
        let other = reopen()
        #expect(try repository.tryLockForWriting())
        #expect(try !other.tryLockForWriting())
        repository.unlockForWriting()
        #expect(try other.tryLockForWriting())
        other.unlockForWriting()
        withExtendedLifetime(keep) {}
    }

    @Test(arguments: Backend.all.filter(\.locksWriters)) func aWriterWaitsForTheLockAndTimesOutClearly(_ backend: Backend) async throws {
        let (repository, reopen, keep) = try backend.make(base)
        let holder = reopen()
        #expect(try holder.tryLockForWriting())
        var environment = testEnvironment()
        environment.lockTimeout = .milliseconds(100)
        let store = try ScheduleStore(repository: repository, actingUser: tester, environment: environment)
        await #expect(throws: ScheduleError.lockTimeout(store: repository.location, seconds: 0.1)) {
            try await store.apply(.addPerson(person))
        }
        holder.unlockForWriting()
        try await store.apply(.addPerson(person))
        withExtendedLifetime(keep) {}
    }

    @Test(arguments: Backend.all.filter { !$0.locksWriters }) func writersOfTwoRepositoriesRunSideBySide(_ backend: Backend) async throws {
        let (repository, reopen, keep) = try backend.make(base)
        let other = reopen()
        #expect(try repository.tryLockForWriting())
        #expect(try other.tryLockForWriting(), "no lock across repositories: each writes in a transaction of its own")
        #expect(try !repository.tryLockForWriting(), "one transaction at a time within a repository")
        repository.unlockForWriting()
        other.unlockForWriting()
        withExtendedLifetime(keep) {}
    }

    @Test(arguments: Backend.all) func interleavedWritersLoseNothing(_ backend: Backend) async throws {
        let (repository, reopen, keep) = try backend.make(base)
        let first = try ScheduleStore(repository: repository, actingUser: tester, environment: testEnvironment())
        let second = try ScheduleStore(repository: reopen(), actingUser: tester, environment: testEnvironment())
        try await first.apply(.batch([.addShiftType(type), .addPerson(person)]))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 0..<20 {
                let target = n.isMultiple(of: 2) ? first : second
                let item = shift(n, "2026-03-\(String(format: "%02d", n + 1))")
                group.addTask { try await target.apply(.scheduleShift(item)) }
            }
            try await group.waitForAll()
        }
        let (final, _) = try reopen().load()
        #expect(final.shiftCount == 20)
        #expect(final.changeLog.count == 20)
        withExtendedLifetime(keep) {}
    }

    @Test(arguments: Backend.all) func theRevisionMovesOnEachCommit(_ backend: Backend) async throws {
        let (repository, _, keep) = try backend.make(base)
        let store = try ScheduleStore(repository: repository, actingUser: tester, environment: testEnvironment())
        let start = try repository.revision()
        let result = try await store.apply(.addPerson(person))
        #expect(result.revision != start)
        #expect(try repository.revision() == result.revision)
        withExtendedLifetime(keep) {}
    }

    @Test(arguments: Backend.all) func aBulkCreationIsOneLogEntryThatSurvivesReopening(_ backend: Backend) async throws {
        let (repository, reopen, keep) = try backend.make(base)
        let store = try ScheduleStore(repository: repository, actingUser: tester, environment: testEnvironment())
        try await store.apply(.batch([.addShiftType(type), .addPerson(person)]))
        let count = ChangeLogEntry.batchThreshold + 20
        let shifts = (0..<count).map { n in
            ScheduledShift(id: ShiftID(uuid(1_000 + n)), shiftTypeID: type.id, date: LocalDate(dayNumber: 20_000 + Int32(n)), personID: person.id)
        }
        try await store.apply(.batch(shifts.map(Mutation.scheduleShift)), reason: "import")
        try await store.apply(.batch([.scheduleShift(shift(1, "2020-01-01")), .unscheduleShift(shifts[0].id)]))
        let (reloaded, _) = try reopen().load()
        let log = Array(reloaded.changeLog)
        #expect(log.map(\.changeType) == [.created, .created, .deleted])
        #expect(log[0].createdShifts == CreatedShifts(shiftIDs: shifts.map(\.id), lastDate: shifts.last!.date))
        #expect(log[0].scheduledShiftDate == shifts[0].date && log[0].reason == "import" && log[0].newShiftSnapshot == nil)
        #expect(log[1].createdShifts == nil && log[1].newShiftSnapshot?.shiftID == shift(1).id, "a small change keeps its snapshot")
        #expect(log[2].oldShiftSnapshot?.shiftID == shifts[0].id, "removing a shift of the batch logs what it was")
        withExtendedLifetime(keep) {}
    }
}
