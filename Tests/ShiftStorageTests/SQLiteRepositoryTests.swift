import Foundation
import GRDB
import Synchronization
import TestSupport
import Testing
import ShiftCore
@testable import ShiftStorage
@testable import ShiftStorageSQLite

/// What only the SQLite store does: lossless columns, queries served by SQL, commits written as
/// deltas, and its refusals. The contract it shares with every store is in
/// `RepositoryConformanceTests`.
@Suite struct SQLiteRepositoryTests {
    private func makeStore(_ schedule: Schedule) throws -> (SQLiteRepository, String, TemporaryFolder) {
        let directory = try TemporaryFolder()
        let path = directory.file("schedule.sqlite")
        let repository = try SQLiteRepository(path: path, createIfMissing: true)
        try repository.write(schedule)
        return (repository, path, directory)
    }

    // MARK: Round trip

    @Test func aRichScheduleRoundTripsLosslessly() throws {
        let rich = try richSchedule()
        // As the JSON store reads it, so both stores agree on every value.
        let original = try StoreFileCodec.decode(StoreFileCodec.encode(rich), path: "rich.json").schedule
        let (_, path, directory) = try makeStore(original)

        let (loaded, _) = try SQLiteRepository(path: path).load()
        #expect(loaded.source != nil, "shifts and the log stay in the database")
        #expect(loaded.settings == original.settings)
        #expect(loaded.locations == original.locations)
        #expect(loaded.shiftTypes == original.shiftTypes)
        #expect(loaded.people == original.people)
        #expect(loaded.demand == original.demand)
        #expect(loaded.availability == original.availability)
        #expect(loaded.requests == original.requests)
        #expect(loaded.shifts() == original.shifts())
        #expect(Array(loaded.changeLog) == Array(original.changeLog))
        #expect(loaded == original)
        #expect(try loaded.materialized() == original)
        #expect(StoreFileCodec.encode(loaded) == StoreFileCodec.encode(original), "the JSON store writes the same bytes")
        #expect(loaded.shift(eventIdentifier: "imported-13@example.com")?.id == ShiftID(uuid(113)))
        withExtendedLifetime(directory) {}
    }

    @Test func oddValuesSurviveTheColumns() throws {
        let type = ShiftType(id: ShiftTypeID(uuid(2)), symbol: "Ø", title: "", duration: .allDay)
        var shift = ScheduledShift(id: ShiftID(uuid(100)), shiftTypeID: type.id, date: LocalDate.maximum)
        shift.notes = ""
        shift.attributes = [
            "": .string(""), "tiny": .number(Double.leastNonzeroMagnitude), "huge": .number(-1.7976931348623157e308), "third": .number(1.0 / 3),
            "nested": .list([.list([]), .bool(false), .string("\u{0}\u{1F600}\"\\")]),
        ]
        let early = ScheduledShift(id: ShiftID(uuid(101)), shiftTypeID: type.id, date: LocalDate.minimum)
        let entry = ChangeLogEntry(
            id: ChangeLogEntryID(uuid(70)), timestamp: Date(timeIntervalSince1970: -62_135_596_800.001), userId: "u",
            userDisplayName: "U", changeType: .deleted, scheduledShiftDate: LocalDate.minimum, reason: "")
        let original = try Schedule(
            settings: StoreSettings(timeZoneIdentifier: "Pacific/Chatham", extra: ["x": .list([])]), shiftTypes: [type],
            shifts: [shift, early], changeLog: [entry])
        let (repository, _, directory) = try makeStore(original)
        let (loaded, _) = try repository.load()
        #expect(loaded == original)
        #expect(loaded.shift(shift.id)?.notes == "", "an empty note is not a missing one")
        #expect(loaded.changeLog.first?.reason == "")
        withExtendedLifetime(directory) {}
    }

    @Test func durationsAreStoredAsTheirTextAndReadBack() {
        var durations: [ShiftDuration] = [.allDay]
        for (fromHour, toHour) in [(0, 0), (7, 19), (22, 6), (23, 23), (9, 17)] {
            for (fromMinute, toMinute) in [(0, 0), (5, 59), (30, 15)] {
                durations.append(.scheduled(from: HourMinuteTime(hour: fromHour, minute: fromMinute)!,
                                            to: HourMinuteTime(hour: toHour, minute: toMinute)!))
            }
        }
        for duration in durations {
            let text = DurationText.format(duration)
            #expect(text == duration.description)
            let parsed = Array(text.utf8).withUnsafeBufferPointer { DurationText.parse($0) }
            #expect(parsed == duration)
        }
        for odd in ["All-Day", "7:00-19:00", "07:00–19:00", "24:00-01:00", "07:60-08:00", "07:00 19:00"] {
            #expect(Array(odd.utf8).withUnsafeBufferPointer { DurationText.parse($0) } == nil, "\(odd) goes to the general parser")
        }
    }

    // MARK: Queries

    @Test func manyThreadsReadAtOnceWhileAWriterCommits() async throws {
        var random = SplitMix64(seed: 3)
        let memory = try randomSchedule(shifts: 4_000, logEntries: 200, using: &random)
        let (repository, _, directory) = try makeStore(memory)
        let (loaded, _) = try repository.load()
        let source = try #require(loaded.source)
        let range = try #require(memory.shiftDateRange)
        let requests = (0..<64).map { _ in randomSourceRequest(memory, range, using: &random) }
        let answers = requests.map { sourceAnswer($0, memory.shifts()) }
        let store = try ScheduleStore(repository: repository, actingUser: tester, environment: testEnvironment())
        let type = memory.shiftTypes[0].id
        // Commits dated after everything the readers ask about, so their answers stay the same.
        let writer = Task {
            for n in 0..<40 {
                try await store.apply(.scheduleShift(ScheduledShift(
                    id: ShiftID(uuid(700_000 + n)), shiftTypeID: type, date: range.upperBound.adding(days: 2_000 + n))))
            }
        }
        let mismatches = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<40 {
                let index = (worker * 40 + round) % requests.count
                if source.shifts(requests[index]) != answers[index] { mismatches.withLock { $0 += 1 } }
            }
        }
        try await writer.value
        #expect(mismatches.withLock { $0 } == 0)
        #expect(source.takeFailure() == nil, "no reader met a lock")
        #expect(source.shiftCount == memory.shiftCount + 40)
        withExtendedLifetime(directory) {}
    }

    @Test func theChangeLogIsServedInCommitOrder() throws {
        var random = SplitMix64(seed: 11)
        let memory = try randomSchedule(shifts: 50, logEntries: 1_500, using: &random)
        let (repository, _, directory) = try makeStore(memory)
        let (loaded, _) = try repository.load()
        let source = try #require(loaded.source)
        let log = Array(memory.changeLog)
        #expect(Array(loaded.changeLog) == log)
        #expect(source.changeLogCount(notBefore: nil) == log.count)
        for _ in 0..<100 {
            let cut = log[Int.random(in: 0..<log.count, using: &random)].timestamp.addingTimeInterval(
                Double(Int.random(in: -1...1, using: &random)) / 1000)
            let kept = log.filter { $0.timestamp >= cut }
            #expect(source.changeLogCount(notBefore: cut) == kept.count)
            let offset = Int.random(in: 0...kept.count, using: &random)
            let limit = Int.random(in: 1...300, using: &random)
            #expect(source.changeLogEntries(notBefore: cut, offset: offset, limit: limit) == Array(kept.dropFirst(offset).prefix(limit)))
            #expect(source.changeLogEntries(notBefore: nil, offset: offset, limit: limit) == Array(log.dropFirst(offset).prefix(limit)))

            let from = Bool.random(using: &random) ? nil : cut
            let to = Bool.random(using: &random) ? nil : cut.addingTimeInterval(Double(Int.random(in: 0...86_400_000, using: &random)) / 1000)
            let newestFirst = Bool.random(using: &random)
            let bounded = Bool.random(using: &random) ? nil : Int.random(in: 0...50, using: &random)
            #expect(source.changeLogEntries(from: from, to: to, newestFirst: newestFirst, limit: bounded)
                == memory.changeLog.entries(from: from, to: to, newestFirst: newestFirst, limit: bounded))
        }
        // A walk page by page, with notBefore, as the log's iterator pages through it.
        let cut = log[log.count / 3].timestamp
        var walked: [ChangeLogEntry] = []
        while true {
            let page = source.changeLogEntries(notBefore: cut, offset: walked.count, limit: 64)
            if page.isEmpty { break }
            walked += page
        }
        #expect(walked == log.filter { $0.timestamp >= cut })
        #expect(source.containsChangeLogEntry(log[7].id))
        #expect(!source.containsChangeLogEntry(ChangeLogEntryID(uuid(424_242))))
        #expect(source.takeFailure() == nil)
        withExtendedLifetime(directory) {}
    }

    // MARK: Commits

    @Test func aCommitWritesOnlyItsDeltaAndMovesTheGeneration() async throws {
        let (repository, path, directory) = try makeStore(try richSchedule())
        let store = try ScheduleStore(repository: repository, actingUser: tester, environment: testEnvironment())
        let before = try repository.revision()
        let ward = LocationID(uuid(1))
        let moved = try #require(await store.schedule.shift(ShiftID(uuid(101))))
        try await store.apply(.batch([
            .addLocation(Location(id: LocationID(uuid(5)), name: "Annex", attributes: ["floor": .number(2)])),
            .updateLocation(Location(id: ward, name: "Ward 3", address: "")),
            .scheduleShift(ScheduledShift(id: ShiftID(uuid(500)), shiftTypeID: ShiftTypeID(uuid(4)), date: date("2026-04-01"),
                                          notes: "new", eventIdentifier: "cal-500@example.com")),
            .reassignShift(moved.id, to: nil, reason: "sick"),
            .unscheduleShift(ShiftID(uuid(102))),
            .removeDemand(DemandID(uuid(51))),
            .updateSettings(StoreSettings(timeZoneIdentifier: "UTC", weekStart: .monday, changeLogRetention: .forever)),
        ]))
        let after = try repository.revision()
        #expect(after != before)
        let reopened = try SQLiteRepository(path: path)
        let (loaded, revision) = try reopened.load()
        #expect(revision == after)
        #expect(loaded == (await store.schedule))
        #expect(try loaded.materialized() == (await store.schedule).materialized())
        #expect(loaded.shiftCount == 40, "one added, one removed")
        #expect(loaded.changeLog.count == 2 + 3)
        #expect(try reopened.reading { try Meta.read($0) }.shiftCount == 40)
        withExtendedLifetime(directory) {}
    }

    /// `observe()` over SQLite is fed by GRDB's `ValueObservation`: a commit by another store
    /// over the same repository reaches this store's observers without a change of its own.
    @Test func anotherStoresCommitReachesTheObserversThroughValueObservation() async throws {
        let (repository, _, directory) = try makeStore(try richSchedule())
        let writer = try ScheduleStore(repository: repository, actingUser: tester, environment: testEnvironment())
        let watcher = try ScheduleStore(repository: repository, actingUser: tester, environment: testEnvironment())
        let shift = ScheduledShift(id: ShiftID(uuid(700)), shiftTypeID: ShiftTypeID(uuid(4)), date: date("2026-05-01"))
        let updates = await watcher.observe()
        let heard = Task {
            for await schedule in updates where schedule.shift(shift.id) != nil { return true }
            return false
        }
        try await writer.apply(.scheduleShift(shift))
        let seen = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask { await heard.value }
            group.addTask {
                try await Task.sleep(for: .seconds(10))
                return false
            }
            let first = try await group.next() ?? false
            group.cancelAll()
            heard.cancel()
            return first
        }
        #expect(seen, "the watcher heard of the writer's commit")
        #expect(await watcher.schedule.shift(shift.id) == shift)
        withExtendedLifetime(directory) {}
    }

    @Test func aCustomCalendarUIDCanPassBetweenShiftsInOneCommit() async throws {
        let type = ShiftType(id: ShiftTypeID(uuid(2)), symbol: "D", title: "Day", duration: .allDay)
        let a = ScheduledShift(id: ShiftID(uuid(100)), shiftTypeID: type.id, date: date("2026-03-02"), eventIdentifier: "x@cal")
        let b = ScheduledShift(id: ShiftID(uuid(101)), shiftTypeID: type.id, date: date("2026-03-03"), eventIdentifier: "y@cal")
        let (repository, path, directory) = try makeStore(try Schedule(
            settings: StoreSettings(timeZoneIdentifier: "UTC"), shiftTypes: [type], shifts: [a, b]))
        let store = try ScheduleStore(repository: repository, actingUser: tester, environment: testEnvironment())
        func with(_ shift: ScheduledShift, _ uid: String) -> ScheduledShift {
            var copy = shift
            copy.eventIdentifier = uid
            return copy
        }
        try await store.apply(.batch([.updateShift(with(a, "tmp@cal")), .updateShift(with(b, "x@cal")), .updateShift(with(a, "y@cal"))]))
        let (loaded, _) = try SQLiteRepository(path: path).load()
        #expect(loaded.shift(eventIdentifier: "x@cal")?.id == b.id)
        #expect(loaded.shift(eventIdentifier: "y@cal")?.id == a.id)
        withExtendedLifetime(directory) {}
    }

    @Test func aRejectedMutationLeavesGenerationAndContentAlone() async throws {
        let (repository, path, directory) = try makeStore(try richSchedule())
        let store = try ScheduleStore(repository: repository, actingUser: tester, environment: testEnvironment())
        let revision = try repository.revision()
        let content = try dump(path)
        let fresh = ScheduledShift(id: ShiftID(uuid(600)), shiftTypeID: ShiftTypeID(uuid(2)), date: date("2026-05-01"))
        await #expect(throws: ScheduleError.self) {
            try await store.apply(.batch([.scheduleShift(fresh), .scheduleShift(fresh)]))
        }
        #expect(try repository.revision() == revision)
        #expect(try dump(path) == content)
        withExtendedLifetime(directory) {}
    }

    @Test func aSaveTheDatabaseRefusesWritesNothing() throws {
        let rich = try richSchedule()
        let (repository, path, directory) = try makeStore(rich)
        let revision = try repository.revision()
        let content = try dump(path)
        let (schedule, _) = try repository.load()
        let fresh = ScheduledShift(id: ShiftID(uuid(600)), shiftTypeID: ShiftTypeID(uuid(2)), date: date("2026-05-01"))
        let existing = try #require(rich.shift(ShiftID(uuid(100))))
        let day = try #require(rich.shiftType(ShiftTypeID(uuid(2))))
        let refused: [[Change]] = [
            // The second insert hits an id the store has: the first must not stay.
            [.shift(before: nil, after: fresh, reason: nil), .shift(before: nil, after: existing, reason: nil)],
            // An update of a row that is not there.
            [.shift(before: fresh, after: fresh, reason: nil)],
            // Removing a shift type that shifts still use: the foreign key check at commit fails.
            [.shift(before: nil, after: fresh, reason: nil), .shiftType(before: day, after: nil)],
        ]
        for changes in refused {
            #expect(throws: StorageError.self) {
                try repository.save(schedule, summary: CommitSummary(mutation: .batch([]), changes: changes, logEntries: []))
            }
            #expect(try repository.revision() == revision)
            #expect(try dump(path) == content)
        }
        withExtendedLifetime(directory) {}
    }

    @Test func aBulkCommitAppendsWithTheIndexesRebuilt() async throws {
        var random = SplitMix64(seed: 9)
        let memory = try randomSchedule(shifts: 12_000, logEntries: 0, using: &random)
        let catalog = try Schedule(
            settings: memory.settings, locations: memory.locations, shiftTypes: memory.shiftTypes, people: memory.people)
        let (repository, path, directory) = try makeStore(catalog)
        let (schedule, _) = try repository.load()
        let shifts = memory.shifts()
        let revision = try repository.revision()

        // One id twice: the unique index, built after the rows went in, fails the commit.
        let twice = shifts.map { Change.shift(before: nil, after: $0, reason: nil) } + [.shift(before: nil, after: shifts[5], reason: nil)]
        #expect(throws: StorageError.self) {
            try repository.save(schedule, summary: CommitSummary(mutation: .batch([]), changes: twice, logEntries: []))
        }
        #expect(try repository.revision() == revision)
        #expect(try SQLiteRepository(path: path).load().0.shiftCount == 0)

        let store = try ScheduleStore(repository: repository, actingUser: tester, environment: testEnvironment())
        try await store.apply(.batch(shifts.map { .scheduleShift($0) }))
        let (loaded, _) = try SQLiteRepository(path: path).load()
        #expect(loaded.shifts() == shifts)
        #expect(loaded.changeLog.count == 1, "the batch is one entry")
        #expect(loaded.changeLog.first?.createdShifts?.shiftIDs == shifts.map(\.id))
        #expect(loaded.shifts(ShiftQuery(personID: memory.people[2].id)) == memory.shifts(ShiftQuery(personID: memory.people[2].id)))
        #expect(loaded.shift(eventIdentifier: "ext-101@example.com") == memory.shift(eventIdentifier: "ext-101@example.com"))
        withExtendedLifetime(directory) {}
    }

    @Test func pruningDeletesWhatTheScheduleInMemoryDrops() async throws {
        let rich = try richSchedule()
        let old = ChangeLogEntry(
            id: ChangeLogEntryID(uuid(80)), timestamp: Date(timeIntervalSince1970: 1_000), userId: "u", userDisplayName: "U",
            changeType: .updated, scheduledShiftDate: date("2026-03-02"))
        var older = old
        older.id = ChangeLogEntryID(uuid(81))
        let cutoff = Date(timeIntervalSince1970: 1_790_000_050)
        let mutations: [Mutation] = [
            .pruneChangeLog(before: cutoff),
            .batch([.recordChangeLogEntry(old), .pruneChangeLog(before: cutoff)]),
            .batch([.pruneChangeLog(before: cutoff), .recordChangeLogEntry(old), .recordChangeLogEntry(older)]),
        ]
        for mutation in mutations {
            let (repository, path, directory) = try makeStore(rich)
            let sqlite = try ScheduleStore(repository: repository, actingUser: tester, environment: testEnvironment())
            let memory = try ScheduleStore(repository: InMemoryRepository(rich), actingUser: tester, environment: testEnvironment())
            try await sqlite.apply(mutation)
            try await memory.apply(mutation)
            let reopened = try SQLiteRepository(path: path)
            let expected = Array(await memory.schedule.changeLog)
            #expect(Array(try reopened.load().0.changeLog) == expected, "\(mutation.name)")
            #expect(try reopened.reading { try Meta.read($0) }.changeLogCount == Int64(expected.count))
            withExtendedLifetime(directory) {}
        }
    }

    // MARK: Opening

    @Test func aMissingFileIsNotFoundUnlessCreated() throws {
        let directory = try TemporaryFolder()
        let path = directory.file("new.sqlite")
        #expect(throws: StorageError.notFound(path: path)) { try SQLiteRepository(path: path) }
        #expect(!FileManager.default.fileExists(atPath: path))
        let settings = StoreSettings(timeZoneIdentifier: "Asia/Tokyo", weekStart: .sunday)
        let (schedule, revision) = try SQLiteRepository(path: path, createIfMissing: true, initialSettings: settings).load()
        #expect(schedule.settings == settings)
        #expect(schedule.shiftCount == 0 && schedule.changeLog.isEmpty)
        #expect(try SQLiteRepository(path: path).revision() == revision)
        #expect(throws: StorageError.self) {
            try SQLiteRepository(path: directory.file("bad.sqlite"), createIfMissing: true, initialSettings: StoreSettings(timeZoneIdentifier: "Mars/Base"))
        }
    }

    @Test func theDatabaseIsOpenedForDurableSharedUse() throws {
        let (repository, _, directory) = try makeStore(try richSchedule())
        let (journal, synchronous, foreignKeys) = try repository.writing { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Int.fetchOne(db, sql: "PRAGMA synchronous"),
             try Int.fetchOne(db, sql: "PRAGMA foreign_keys"))
        }
        #expect(journal == "wal")
        #expect(synchronous == 2, "FULL: every acknowledged commit is on disk")
        #expect(foreignKeys == 1)
        withExtendedLifetime(directory) {}
    }

    @Test func aFileThatIsNotSQLiteIsRefusedAndLeftAlone() throws {
        let directory = try TemporaryFolder()
        let path = directory.file("schedule.sqlite")
        writeText("{\"format\": \"shiftscheduler\", \"version\": 2}\n", to: path)
        let bytes = readBytes(path)
        for create in [false, true] {
            #expect(throws: StorageError.notAStore(path: path, reason: "not a SQLite database")) {
                try SQLiteRepository(path: path, createIfMissing: create)
            }
        }
        #expect(readBytes(path) == bytes)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["schedule.sqlite"])
        let error = StorageError.notAStore(path: path, reason: "not a SQLite database")
        #expect(error.description.hasPrefix(path + ": not a ShiftScheduler store"))
    }

    @Test func anotherProgramsDatabaseIsRefusedAndLeftAlone() throws {
        let directory = try TemporaryFolder()
        let path = directory.file("other.db")
        try DatabaseQueue(path: path).write { try $0.execute(sql: "CREATE TABLE notes (body TEXT)") }
        let bytes = readBytes(path)
        #expect(throws: StorageError.notAStore(path: path, reason: "a SQLite database without ShiftScheduler's tables")) {
            try SQLiteRepository(path: path, createIfMissing: true)
        }
        #expect(readBytes(path) == bytes, "not even switched to WAL")
    }

    @Test func aDamagedDatabaseIsReportedWithItsPath() throws {
        let (_, path, directory) = try makeStore(try richSchedule())
        try DatabaseQueue(path: path).writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        var bytes = readBytes(path)
        // Keep the header, scribble over the pages.
        for index in stride(from: 100, to: bytes.count, by: 7) { bytes[index] = 0xA5 }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        try? FileManager.default.removeItem(atPath: path + "-wal")
        try? FileManager.default.removeItem(atPath: path + "-shm")
        #expect {
            _ = try SQLiteRepository(path: path).load()
        } throws: { error in
            guard let error = error as? StorageError else { return false }
            return "\(error)".hasPrefix(path + ":")
        }
        withExtendedLifetime(directory) {}
    }

    @Test func aVersionOneStoreIsMigratedWithItsLogAsItWas() async throws {
        let original = try richSchedule()
        let (_, path, directory) = try makeStore(original)
        // Back to the layout of version 1: no created_* columns, no requests, the migrations not applied.
        try await DatabaseQueue(path: path).write { db in
            try db.execute(sql: """
                ALTER TABLE change_log DROP COLUMN created_shift_ids;
                ALTER TABLE change_log DROP COLUMN created_last_date;
                DROP TABLE request_history; DROP TABLE requests;
                UPDATE meta SET version = 1;
                DELETE FROM grdb_migrations WHERE identifier IN ('v2-created-shifts', 'v3-requests');
                """)
        }
        let repository = try SQLiteRepository(path: path)
        #expect(Array(try repository.load().0.changeLog) == Array(original.changeLog), "every entry as it was")
        #expect(try await DatabaseQueue(path: path).read { try Int.fetchOne($0, sql: "SELECT version FROM meta") } == SQLiteSchema.currentVersion)
        let store = try ScheduleStore(repository: repository, actingUser: tester, environment: testEnvironment())
        let type = try #require(original.shiftTypes.first)
        let count = ChangeLogEntry.batchThreshold
        let shifts = (0..<count).map { n in
            ScheduledShift(id: ShiftID(uuid(5_000 + n)), shiftTypeID: type.id, date: LocalDate(dayNumber: 21_000 + Int32(n)))
        }
        try await store.apply(.batch(shifts.map(Mutation.scheduleShift)))
        let log = Array(try SQLiteRepository(path: path).load().0.changeLog)
        #expect(log.count == original.changeLog.count + 1)
        #expect(log.last?.createdShifts?.shiftIDs == shifts.map(\.id))
        withExtendedLifetime(directory) {}
    }

    @Test func aStoreFromANewerBuildIsRefused() throws {
        for aging in ["UPDATE meta SET version = 7", "INSERT INTO grdb_migrations VALUES ('v9-something-new')"] {
            let (_, path, directory) = try makeStore(try richSchedule())
            try DatabaseQueue(path: path).write { try $0.execute(sql: aging) }
            let newest = SQLiteSchema.currentVersion
            let version = aging.hasPrefix("UPDATE") ? 7 : newest + 1
            #expect(throws: StorageError.unsupportedVersion(path: path, version: version, newest: newest)) {
                try SQLiteRepository(path: path)
            }
            withExtendedLifetime(directory) {}
        }
    }

    @Test func aCatalogThatBreaksInvariantsIsInvalidContent() throws {
        let tamperings = [
            "UPDATE shift_types SET location_id = x'00112233445566778899aabbccddeeff'",
            "UPDATE shift_types SET duration = 'banana'",
            "UPDATE people SET attributes = '{\"a\": nope}'",
            "UPDATE settings SET time_zone = 'Mars/Base'",
        ]
        for tampering in tamperings {
            let (_, path, directory) = try makeStore(try richSchedule())
            var configuration = Configuration()
            configuration.foreignKeysEnabled = false
            try DatabaseQueue(path: path, configuration: configuration).write { try $0.execute(sql: tampering) }
            #expect("\(tampering)") {
                _ = try SQLiteRepository(path: path).load()
            } throws: { error in
                guard case let .invalidContent(errorPath, reason)? = error as? StorageError else { return false }
                return errorPath == path && !reason.isEmpty
            }
            withExtendedLifetime(directory) {}
        }
    }

    @Test func loadingReadsTheCatalogOnly() throws {
        var random = SplitMix64(seed: 5)
        let big = try randomSchedule(shifts: 100_000, logEntries: 2_000, using: &random)
        let (_, path, directory) = try makeStore(big)
        let statements = Mutex<[String]>([])
        let repository = try SQLiteRepository(
            path: path, createIfMissing: false, initialSettings: StoreSettings(), trace: { sql in statements.withLock { $0.append(sql) } })
        statements.withLock { $0.removeAll() }
        let clock = ContinuousClock()
        let start = clock.now
        let (schedule, _) = try repository.load()
        let elapsed = clock.now - start
        let during = statements.withLock { $0 }
        #expect(!during.isEmpty)
        // Beyond the catalog, only the date index's two ends, probed to refuse a damaged index
        // (`SQLiteScheduleSource.checkDateIndex`).
        let touched = during.filter { $0.range(of: #"\b(shifts|change_log)\b"#, options: .regularExpression) != nil }
            .filter { $0 != "SELECT (SELECT min(date) FROM shifts), (SELECT max(date) FROM shifts)" }
        #expect(touched.isEmpty, "\(touched)")
        #expect(elapsed < .seconds(1), "the catalog of a 100k-shift store loads in \(elapsed)")
        #expect(schedule.shiftCount == 100_000, "the count comes from the database")
        #expect(schedule.changeLog.count == 2_000)
        withExtendedLifetime(directory) {}
    }

    /// Not run by default: `SHIFT_SQLITE_BENCH=1 swift test --filter bulkWriteAndLoadAtAMillion`.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["SHIFT_SQLITE_BENCH"] != nil))
    func bulkWriteAndLoadAtAMillion() throws {
        let clock = ContinuousClock()
        var random = SplitMix64(seed: 1)
        var start = clock.now
        let big = try randomSchedule(shifts: 1_000_000, logEntries: 1_000_000, using: &random)
        print("built the schedule in memory: \(clock.now - start)")
        let directory = try TemporaryFolder()
        let path = directory.file("big.sqlite")
        let repository = try SQLiteRepository(path: path, createIfMissing: true)
        start = clock.now
        try repository.write(big)
        print("write 1M shifts + 1M log entries: \(clock.now - start)")
        start = clock.now
        try repository.write(big)
        print("write again over them: \(clock.now - start)")
        start = clock.now
        let (loaded, _) = try SQLiteRepository(path: path).load()
        print("load() at 1M: \(clock.now - start)")
        start = clock.now
        let count = loaded.shiftCount
        let week = loaded.shifts(ShiftQuery(from: date("2026-06-01"), to: date("2026-06-07")))
        let person = loaded.shifts(ShiftQuery(personID: loaded.people[0].id, limit: 100))
        let recent = loaded.changeLog.entries(newestFirst: true, limit: 50)
        print("count, a week (\(week.count)), a person's first 100, the newest 50 log entries: \(clock.now - start)")
        start = clock.now
        let all = loaded.shifts()
        print("all \(all.count) shifts read back: \(clock.now - start)")
        start = clock.now
        var walked = 0
        for _ in loaded.changeLog { walked += 1 }
        print("the whole log walked (\(walked)): \(clock.now - start)")
        let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        print("file: \(size / 1_048_576) MiB")
        #expect(count == 1_000_000 && walked == 1_000_000 && recent.count == 50 && person.count == 100)
    }

    // MARK: Helpers

    /// Every row of every table, in a fixed order: what a reader of the file would see.
    private func dump(_ path: String) throws -> [String] {
        try DatabaseQueue(path: path).read { db in
            var lines: [String] = []
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            for table in tables {
                for row in try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY 1") { lines.append("\(table) \(row)") }
            }
            return lines
        }
    }
}

/// Types at two locations, a few people, shifts over about two years (some open, some with
/// notes, attributes or a custom UID), and a log with snapshots in commit order.
func randomSchedule(shifts shiftCount: Int, logEntries: Int, using random: inout SplitMix64) throws -> Schedule {
    let locations = (0..<2).map { Location(id: LocationID(random.uuid()), name: "Site \($0)") }
    let types = (0..<4).map { n in
        ShiftType(id: ShiftTypeID(random.uuid()), symbol: "T\(n)", title: "Type \(n)",
                  duration: n == 3 ? .allDay : ShiftDuration(["06:00-14:00", "14:00-22:00", "22:00-06:00"][n])!,
                  locationID: n == 3 ? nil : locations[n % 2].id)
    }
    let people = (0..<6).map { Person(id: PersonID(random.uuid()), displayName: "Person \($0)") }
    let first = LocalDate("2026-01-01")!
    let span = max(30, min(730, shiftCount / 4))
    var shifts: [ScheduledShift] = []
    shifts.reserveCapacity(shiftCount)
    for n in 0..<shiftCount {
        var shift = ScheduledShift(
            id: ShiftID(random.uuid()), shiftTypeID: types[Int(random.next() % 4)].id,
            date: first.adding(days: Int(random.next() % UInt64(span))),
            personID: random.next() % 5 == 0 ? nil : people[Int(random.next() % 6)].id)
        if n % 97 == 0 { shift.notes = "note \(n)" }
        if n % 89 == 0 { shift.attributes = ["skill": .string("s\(n % 3)")] }
        if n % 101 == 0 { shift.eventIdentifier = "ext-\(n)@example.com" }
        shifts.append(shift)
    }
    var log: [ChangeLogEntry] = []
    log.reserveCapacity(logEntries)
    var millis: Int64 = 1_780_000_000_000
    for n in 0..<logEntries {
        // Mostly rising, sometimes a step back (entries an app recorded with their own time).
        millis += n % 17 == 0 ? -Int64(random.next() % 5_000) : Int64(random.next() % 60_000)
        let shift = shifts.isEmpty ? nil : shifts[Int(random.next() % UInt64(shifts.count))]
        let type = types[n % 4]
        let snapshot = shift.map {
            ShiftSnapshot(shiftID: $0.id, shiftTypeID: type.id, symbol: type.symbol, title: type.title, duration: type.duration,
                          date: $0.date, locationID: type.locationID, locationName: type.locationID == nil ? nil : "Site",
                          personID: $0.personID, personName: $0.personID == nil ? nil : "Someone")
        }
        log.append(ChangeLogEntry(
            id: ChangeLogEntryID(random.uuid()), timestamp: Date(timeIntervalSince1970: Double(millis) / 1000),
            userId: "user\(n % 3)", userDisplayName: "User \(n % 3)", changeType: ChangeType.allCases[n % 5],
            scheduledShiftDate: shift?.date ?? first, oldShiftSnapshot: n % 2 == 0 ? snapshot : nil, newShiftSnapshot: snapshot,
            reason: n % 7 == 0 ? "because \(n)" : nil))
    }
    return try Schedule(
        settings: StoreSettings(timeZoneIdentifier: "Europe/Berlin"), locations: locations, shiftTypes: types, people: people,
        shifts: shifts, changeLog: log)
}
