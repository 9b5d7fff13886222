import Foundation
import Testing
import ShiftCore
import ShiftStoragePostgres
import Synchronization
import TestSupport

/// Nobody works two shifts on one day: a rule whose read must be covered by the transaction.
struct OneShiftADay: ScheduleValidator {
    let name = "one shift a day"

    func evaluate(_ proposal: Proposal) throws -> [Violation] {
        proposal.changes.compactMap { change -> Violation? in
            guard case let .shift(_, after?, _) = change, let person = after.personID else { return nil }
            let same = proposal.after.shifts(ShiftQuery(from: after.date, to: after.date, personID: person))
            guard same.count > 1 else { return nil }
            return Violation(ruleID: "one_shift_a_day", severity: .error, message: "double booking", shiftID: after.id,
                             personID: person, date: after.date, relatedShiftIDs: same.map(\.id).filter { $0 != after.id })
        }
    }
}

/// The PostgreSQL store beyond the shared contract: setting up, refusing what is not ours, and
/// writers on several connections at once.
@Suite(.enabled(if: PostgresTestServer.enabled, PostgresTestServer.skipReason))
struct PostgresRepositoryTests {
    let type = ShiftType(id: ShiftTypeID(uuid(2)), symbol: "D", title: "Day", duration: ShiftDuration("07:00-19:00")!)
    let night = ShiftType(id: ShiftTypeID(uuid(3)), symbol: "N", title: "Night", duration: ShiftDuration("19:00-07:00")!)
    let people = (0..<4).map { Person(id: PersonID(uuid(10 + $0)), displayName: "P\($0)") }
    let day = date("2026-03-02")

    private func newStore(_ url: String, validators: [any ScheduleValidator] = [OneShiftADay()]) throws -> ScheduleStore {
        try ScheduleStore(repository: try PostgresRepository(url: url), validators: validators, actingUser: tester,
                          environment: testEnvironment())
    }

    /// A new schedule with the shift types and people.
    private func setUp() async throws -> String {
        let url = try PostgresTestServer.freshScheduleURL()
        _ = try PostgresRepository(url: url, createIfMissing: true, initialSettings: StoreSettings(timeZoneIdentifier: "UTC"))
        try await newStore(url).apply(.batch([.addShiftType(type), .addShiftType(night)] + people.map { .addPerson($0) }))
        return url
    }

    private func shift(_ person: Int, _ date: LocalDate? = nil) -> ScheduledShift {
        ScheduledShift(id: ShiftID(UUID.random()), shiftTypeID: type.id, date: date ?? day, personID: people[person].id)
    }

    // MARK: Setting up

    @Test func aMissingScheduleIsNotCreatedUnlessAsked() throws {
        let url = try PostgresTestServer.freshScheduleURL()
        #expect(throws: PostgresStoreError.self) { try PostgresRepository(url: url) }
        _ = try PostgresRepository(url: url, createIfMissing: true)
        _ = try PostgresRepository(url: url)
    }

    @Test func aScheduleSetUpByANewerVersionIsRefused() throws {
        let url = try PostgresTestServer.freshScheduleURL()
        let repository = try PostgresRepository(url: url, createIfMissing: true)
        try PostgresTestServer.psql("INSERT INTO \(repository.target.schemaName).migrations (name) VALUES ('v9-from-the-future')")
        #expect {
            try PostgresRepository(url: url, createIfMissing: true)
        } throws: { error in
            guard case .newerSchema(_, ["v9-from-the-future"]) = error as? PostgresStoreError else { return false }
            return "\(error)".contains("upgrade ShiftScheduler")
        }
    }

    @Test func anotherApplicationsSchemaOrDatabaseIsRefusedAndLeftAsItIs() throws {
        let url = try PostgresTestServer.freshScheduleURL()
        let schema = try PostgresLocation(url: url).schemaName
        try PostgresTestServer.psql("CREATE SCHEMA \(schema); CREATE TABLE \(schema).invoices (id int)")
        #expect(throws: PostgresStoreError.self) { try PostgresRepository(url: url, createIfMissing: true) }

        let database = "other_" + UUID().uuidString.lowercased().prefix(8)
        try PostgresTestServer.psql("CREATE DATABASE \(database)")
        try PostgresTestServer.psql("CREATE TABLE accounts (id int)", database: database)
        let foreign = try PostgresTestServer.url(database: database)
        for _ in 0..<2 {
            #expect {
                try PostgresRepository(url: foreign, createIfMissing: true)
            } throws: { error in
                "\(error)".contains("another application's tables (public.accounts)")
            }
        }
    }

    @Test func anUnreachableServerOrMissingDatabaseIsOneClearLine() throws {
        let directory = try TemporaryFolder()
        let nowhere = "postgres://shift@\(directory.path.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)/x"
        #expect {
            try PostgresRepository(url: nowhere)
        } throws: { error in
            "\(error)".contains("cannot connect to the server") && !"\(error)".contains("\n")
        }
        try wrongPasswordIsOneClearLine()
        let missing = try PostgresTestServer.url(database: "no_such_database")
        #expect {
            try PostgresRepository(url: missing)
        } throws: { error in
            "\(error)".contains("no_such_database") && "\(error)".contains("does not exist")
        }
    }

    /// A role that must give its password (set up by scripts/postgres-test-cluster.sh, so only on
    /// a cluster it started), given the wrong one, then the right one.
    private func wrongPasswordIsOneClearLine() throws {
        guard ProcessInfo.processInfo.environment["SHIFT_TEST_POSTGRES_DIR"] != nil else { return }
        let base = try PostgresTestServer.requireURL()
        let asRole = { (password: String) in base.replacingOccurrences(of: "postgres://shift@", with: "postgres://shift_password:\(password)@") }
        #expect {
            try PostgresRepository(url: asRole("wrong"))
        } throws: { error in
            "\(error)".contains("cannot connect to the server") && "\(error)".contains("password authentication failed")
                && !"\(error)".contains("wrong") && !"\(error)".contains("\n")
        }
        // With the right one it gets in (and then finds no schedule of its own, or may not read
        // one: either way not a password failure).
        do { _ = try PostgresRepository(url: asRole("the-right-one")) } catch {
            #expect(!"\(error)".contains("password authentication failed"), "\(error)")
        }
    }

    @Test func schedulesOfOneDatabaseAreSeparate() async throws {
        let first = try await setUp()
        let second = try await setUp()
        try await newStore(first).apply(.scheduleShift(shift(0)))
        #expect(try PostgresRepository(url: first).load().0.shiftCount == 1)
        #expect(try PostgresRepository(url: second).load().0.shiftCount == 0)
    }

    // MARK: Concurrent writers

    @Test func concurrentBookingsOfOnePersonNeverCommitADoubleBooking() async throws {
        let url = try await setUp()
        let stores = try (0..<8).map { _ in try newStore(url) }
        let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
            for store in stores {
                let candidate = shift(0)
                group.addTask {
                    do {
                        try await store.apply(.scheduleShift(candidate))
                        return true
                    } catch ScheduleError.rejected {
                        return false
                    }
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 1, "exactly one booking commits; the others see it and are rejected")
        let final = try PostgresRepository(url: url).load().0
        #expect(final.shifts(ShiftQuery(from: day, to: day, personID: people[0].id)).count == 1)
        #expect(final.changeLog.count == 1)
    }

    /// Eight writers book the same three people on the same ten days, each slot (person, day)
    /// in an order of its own, as fast as they can: every slot ends with exactly one shift, every
    /// acknowledged booking is there, and every other attempt was rejected by the rule, so the
    /// rejections are exactly the conflicts (8 × 30 attempts, 30 commits, 210 rejections).
    @Test func eightWritersOnThreePeopleCommitOneBookingPerSlot() async throws {
        let url = try await setUp()
        let stores = try (0..<8).map { _ in try newStore(url) }
        let slots = (0..<3).flatMap { person in (0..<10).map { (person, $0) } }
        let outcomes = try await withThrowingTaskGroup(of: [(ScheduledShift, Bool)].self) { group in
            for (index, store) in stores.enumerated() {
                var random = SplitMix64(seed: UInt64(index + 1))
                let order = slots.shuffled(using: &random)
                group.addTask {
                    var results: [(ScheduledShift, Bool)] = []
                    for (person, offset) in order {
                        let candidate = ScheduledShift(id: ShiftID(UUID.random()), shiftTypeID: type.id, date: day.adding(days: offset),
                                                       personID: people[person].id)
                        do {
                            try await store.apply(.scheduleShift(candidate))
                            results.append((candidate, true))
                        } catch ScheduleError.rejected {
                            results.append((candidate, false))
                        }
                    }
                    return results
                }
            }
            return try await group.reduce(into: [(ScheduledShift, Bool)]()) { $0 += $1 }
        }
        let committed = outcomes.filter(\.1).map(\.0)
        #expect(outcomes.count == 240)
        #expect(committed.count == 30, "one booking per slot")
        #expect(outcomes.count - committed.count == 210, "every other attempt was rejected")
        let final = try PostgresRepository(url: url).load().0
        #expect(final.shiftCount == 30)
        for (person, offset) in slots {
            let there = final.shifts(ShiftQuery(from: day.adding(days: offset), to: day.adding(days: offset), personID: people[person].id))
            #expect(there.count == 1, "no double booking of P\(person) on day \(offset)")
        }
        for shift in committed { #expect(final.shift(shift.id) == shift, "an acknowledged booking is there") }
        #expect(final.changeLog.count == 30)
    }

    @Test func writersOnDifferentPeopleAllCommit() async throws {
        let url = try await setUp()
        let stores = try (0..<4).map { _ in try newStore(url) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, store) in stores.enumerated() {
                let shifts = (0..<5).map { shift(index, day.adding(days: $0)) }
                group.addTask { for item in shifts { try await store.apply(.scheduleShift(item)) } }
            }
            try await group.waitForAll()
        }
        let final = try PostgresRepository(url: url).load().0
        #expect(final.shiftCount == 20)
        #expect(final.changeLog.count == 20)
    }

    /// Two writers on different people, each adding a shift after the latest date, with their
    /// transactions interleaved (both have read before either writes): SERIALIZABLE sees no
    /// conflict between them, so neither runs again. A query that asked for the stored shifts'
    /// earliest and latest date made every such pair conflict, every time: both read the end of
    /// the date index, and both write there. (PostgreSQL may still cancel a transaction now and
    /// then for reasons of its own, such as summarising old transactions on a busy server, so a
    /// round or two of six may run twice.)
    @Test func writersOnDifferentPeopleAtTheEndOfTheScheduleDoNotConflict() async throws {
        let url = try await setUp()
        // Enough shifts that each person's part of the person index and the new ids' places in
        // the primary key lie on pages of their own (PostgreSQL locks what a read saw by page).
        var existing: [Mutation] = []
        for offset in 0..<1_200 {
            for person in 0..<2 { existing.append(.scheduleShift(shift(person, day.adding(days: offset)))) }
        }
        try await newStore(url, validators: []).apply(.batch(existing))
        // With statistics (autovacuum gathers them within a minute), a one-day query of one
        // person ties between the person index and the date index.
        try PostgresTestServer.psql("ANALYZE \(try PostgresLocation(url: url).schemaName).shifts")
        let stores = try (0..<2).map { _ in try newStore(url) }
        var rerun = 0
        for round in 0..<6 {
            let ids = [UUID(uuidString: String(format: "00000000-0000-4000-8000-%012x", round + 1))!,
                       UUID(uuidString: String(format: "ffffffff-ffff-4fff-bfff-%012x", 0xffff_ffff_fff0 - round))!]
            let attempts = (0..<2).map { _ in Tally() }
            let meeting = Rendezvous(parties: 2)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for person in 0..<2 {
                    let store = stores[person], tries = attempts[person]
                    let added = ScheduledShift(id: ShiftID(ids[person]), shiftTypeID: type.id, date: day.adding(days: 1_200 + round),
                                               personID: people[person].id)
                    group.addTask {
                        try await store.apply(.scheduleShift(added), precondition: { _ in tries.add() },
                                              confirmation: { await meeting.arrive() })
                    }
                }
                try await group.waitForAll()
            }
            if attempts.contains(where: { $0.value > 1 }) { rerun += 1 }
        }
        #expect(rerun <= 2, "\(rerun) of 6 rounds ran a transaction again")
        #expect(try PostgresRepository(url: url).load().0.shiftCount == 2_412)
    }

    @Test func applyingWhatAUserSawFailsCleanlyWhenItChangedUnderneath() async throws {
        let url = try await setUp()
        let booked = shift(1)
        try await newStore(url).apply(.scheduleShift(booked))
        // Two switches from the type both users saw (Day): one commits, the other finds Night.
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<2 {
                let store = try newStore(url)
                group.addTask {
                    do {
                        try await store.apply(.switchShift(booked.id, to: night.id, reason: nil), precondition: { schedule in
                            guard schedule.shift(booked.id)?.shiftTypeID == type.id else {
                                throw PostgresTestError("the shift is no longer a Day shift")
                            }
                        })
                        return true
                    } catch is PostgresTestError {
                        return false
                    }
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.filter { $0 }.count == 1 && results.count == 2)
        #expect(try PostgresRepository(url: url).load().0.changeLog.count == 2)
    }

    @Test func concurrentBookingProcessesNeverCommitADoubleBooking() async throws {
        let url = try PostgresTestServer.freshScheduleURL()
        // StoreWriter's worker and shift type, set up once.
        let worker = PersonID(UUID(uuidString: "5E1F0000-0000-4000-8000-000000000002")!)
        let work = ShiftType(id: ShiftTypeID(UUID(uuidString: "5E1F0000-0000-4000-8000-000000000001")!), symbol: "W", title: "Work",
                             duration: ShiftDuration("08:00-16:00")!)
        let repository = try PostgresRepository(url: url, createIfMissing: true, initialSettings: StoreSettings(timeZoneIdentifier: "UTC"))
        try await ScheduleStore(repository: repository, actingUser: tester, environment: testEnvironment())
            .apply(.batch([.addShiftType(work), .addPerson(Person(id: worker, displayName: "Worker"))]))
        let writers = try (0..<6).map { _ in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: ProcessTests.writerPath)
            process.arguments = ["--book", url, "2026-05-01"]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            return (process, output)
        }
        var outcomes: [String] = []
        for (process, output) in writers {
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            outcomes.append(text.hasPrefix("ok") ? "ok" : text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        #expect(outcomes.sorted() == ["ok"] + Array(repeating: "rejected", count: 5))
        let final = try PostgresRepository(url: url).load().0
        #expect(final.shifts(ShiftQuery(from: date("2026-05-01"), to: date("2026-05-01"), personID: worker)).count == 1)
    }

    /// `write` of a big schedule loads the shifts before their secondary indexes and builds those
    /// after: the schedule reads back the same, and the indexes are the schema's own again.
    @Test func shiftsLoadedBeforeTheirIndexesReadBackWithTheSchemasIndexes() throws {
        let url = try PostgresTestServer.freshScheduleURL()
        let repository = try PostgresRepository(url: url, createIfMissing: true, initialSettings: StoreSettings(timeZoneIdentifier: "UTC"))
        let schema = try PostgresLocation(url: url).schemaName
        let definitions = "SELECT indexdef FROM pg_indexes WHERE schemaname = '\(schema)' AND tablename = 'shifts' ORDER BY indexname"
        let before = try PostgresTestServer.psql(definitions)
        #expect(before.contains("shifts_by_person"))
        let schedule = try richSchedule()
        try repository.write(schedule, buildingIndexesAfter: true)
        #expect(try PostgresTestServer.psql(definitions) == before)
        #expect(try PostgresRepository(url: url).load().0 == schedule)
    }

    // MARK: Reading the change log

    /// Walking the log by key (each page after the last page's sequence number) reads what
    /// walking it by offset reads: across pages, after a prune, and from a cutoff on.
    @Test func theLogWalkedByKeyIsTheLogWalkedByOffset() async throws {
        let url = try await setUp()
        let store = try newStore(url, validators: [])
        let first = date("2027-01-01")
        // Batches of 50: a commit that creates 100 shifts or more is one entry of the log.
        for start in stride(from: 0, to: 5_000, by: 50) {
            try await store.apply(.batch((start..<start + 50).map { .scheduleShift(shift($0 % 4, first.adding(days: $0 / 4))) }))
        }
        try await store.apply(.scheduleShift(shift(0, date("2020-01-01"))))
        let repository = try PostgresRepository(url: url)
        let schedule = try repository.load().0
        let source = try #require(schedule.source)
        let entries = Array(schedule.changeLog)
        func byOffset(notBefore: Date?) -> [ChangeLogEntry] {
            var all: [ChangeLogEntry] = []
            while true {
                let page = source.changeLogEntries(notBefore: notBefore, offset: all.count, limit: 700)
                if page.isEmpty { return all }
                all += page
            }
        }
        #expect(entries.count == 5_001, "more than one page of 4096")
        #expect(entries == byOffset(notBefore: nil))
        var cursor: ChangeLogCursor?
        var paged: [ChangeLogEntry] = []
        repeat {
            let page = source.changeLogPage(notBefore: nil, after: cursor, limit: 333)
            paged += page.entries
            cursor = page.next
            if page.entries.isEmpty { break }
        } while true
        #expect(paged == entries, "pages of another size")
        #expect(cursor?.position == entries.count)

        let cutoff = entries[2_500].timestamp
        var fromCutoff: [ChangeLogEntry] = []
        cursor = nil
        while true {
            let page = source.changeLogPage(notBefore: cutoff, after: cursor, limit: 1_000)
            if page.entries.isEmpty { break }
            fromCutoff += page.entries
            cursor = page.next
        }
        #expect(!fromCutoff.isEmpty)
        #expect(fromCutoff == byOffset(notBefore: cutoff), "from a cutoff on")
        #expect(source.takeFailure() == nil)
    }

    // MARK: Observing

    /// Books a shift for `person` through one store and returns the ids a second store's
    /// observer of that person's shifts then sees (none if it saw nothing).
    private func bookAndObserve(_ url: String, person: Int) async throws -> (booked: ShiftID, seen: [ShiftID]) {
        let watcher = try newStore(url)
        let writer = try newStore(url)
        let stream = await watcher.observe(ShiftQuery(personID: people[person].id))
        let found = Task {
            for await shifts in stream where !shifts.isEmpty { return shifts.map(\.id) }
            return []
        }
        let booked = shift(person)
        try await writer.apply(.scheduleShift(booked))
        // Generous: it ends as soon as the commit arrives (a second or two), but under the
        // sanitizers the whole suite's load can hold this test's tasks back for minutes.
        let timeout = Task {
            try await Task.sleep(for: .seconds(300))
            found.cancel()
        }
        let seen = await found.value
        timeout.cancel()
        return (booked.id, seen)
    }

    @Test func observersSeeAnotherMachinesCommits() async throws {
        let (booked, seen) = try await bookAndObserve(try await setUp(), person: 2)
        #expect(seen == [booked], "the other store's commit reached the observer")
    }

    @Test func aTransactionLeftOpenElsewhereDoesNotHoldObserversBack() async throws {
        let url = try await setUp()
        // Another client holds a transaction id and sleeps, as a long report or a forgotten
        // session would; its transaction is older than the commit the watcher must see. It is
        // ended when the test ends; an hour outlasts a test held back by a busy machine.
        let marker = "held-" + UUID().uuidString.lowercased()
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        holder.arguments = ["psql", "-q", "-X", try PostgresTestServer.requireURL().replacingOccurrences(of: "postgres://", with: "postgresql://"),
                            "-c", "BEGIN; SELECT pg_current_xact_id(); SELECT '\(marker)', pg_sleep(3600); COMMIT"]
        holder.standardOutput = FileHandle.nullDevice
        holder.standardError = FileHandle.nullDevice
        try holder.run()
        let held = "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%\(marker)%' AND backend_xid IS NOT NULL AND pid <> pg_backend_pid()"
        defer {
            _ = try? PostgresTestServer.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%\(marker)%' AND pid <> pg_backend_pid()")
            holder.terminate()
        }
        var holding = false
        for _ in 0..<300 where !holding {
            holding = try PostgresTestServer.psql(held).trimmingCharacters(in: .whitespacesAndNewlines) == "1"
            if !holding { try await Task.sleep(for: .milliseconds(100)) }
        }
        try #require(holding, "the other client's transaction is open")

        // The observer waits at most five minutes: well short of the other transaction's hour.
        let (booked, seen) = try await bookAndObserve(url, person: 1)
        #expect(seen == [booked], "the commit reached the observer while the other transaction is open")
        #expect(try PostgresTestServer.psql(held).trimmingCharacters(in: .whitespacesAndNewlines) == "1", "the other transaction was still open")
    }
}

/// Holds each party's first arrival until all have arrived (or two seconds have passed); later
/// arrivals pass at once.
actor Rendezvous {
    private let parties: Int
    private var arrived = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(parties: Int) { self.parties = parties }

    func arrive() async {
        arrived += 1
        if arrived >= parties {
            for continuation in waiting { continuation.resume() }
            waiting.removeAll()
            return
        }
        await withCheckedContinuation { continuation in
            waiting.append(continuation)
            Task {
                try? await Task.sleep(for: .seconds(2))
                self.release()
            }
        }
    }

    private func release() {
        for continuation in waiting { continuation.resume() }
        waiting.removeAll()
    }
}

/// A count several tasks add to.
final class Tally: Sendable {
    private let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
