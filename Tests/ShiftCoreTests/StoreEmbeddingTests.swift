import Foundation
import TestSupport
import Testing
@testable import ShiftCore

/// What the embedding API relies on: recorded change-log entries, checks made under the write
/// lock, and observing the whole schedule.
@Suite struct StoreEmbeddingTests {
    let f = Fixture()

    func entry(_ n: Int, at timestamp: Date = fixedNow, reason: String? = "from the app") -> ChangeLogEntry {
        ChangeLogEntry(
            id: ChangeLogEntryID(uuid(3000 + n)), timestamp: timestamp, userId: "app", userDisplayName: "The App",
            changeType: .updated, scheduledShiftDate: date("2026-03-02"), reason: reason)
    }

    /// A recorded entry before entity changes in one batch: each change stays its own (a
    /// recorded entry once took the slot of the next entity's net change).
    @Test func aRecordedEntryAndEntityChangesInOneBatchStayApart() async throws {
        let (store, _) = try await f.store()
        let shift = f.shift(1, f.day, "2026-03-02", f.bob)
        let result = try await store.apply(.batch([
            .recordChangeLogEntry(entry(1)), .scheduleShift(shift), .reassignShift(shift.id, to: f.carol.id, reason: "swap"),
            .recordChangeLogEntry(entry(2)), .updatePerson(Person(id: f.bob.id, displayName: "Robert")),
        ]))
        var moved = shift
        moved.personID = f.carol.id
        #expect(result.changes.count == 4)
        #expect(result.changes.contains(.shift(before: nil, after: moved, reason: "swap")))
        #expect(result.changes.filter { $0.entity == .changeLog }.count == 2)
        #expect(result.logEntries.map(\.id).prefix(2) == [entry(1).id, entry(2).id])
        #expect(await store.schedule.shift(shift.id) == moved)
    }

    /// An entry recorded and then pruned within one batch is neither kept nor reported.
    @Test func anEntryRecordedThenPrunedInOneBatchIsNotReported() async throws {
        let (store, _) = try await f.store()
        let result = try await store.apply(.batch([
            .recordChangeLogEntry(entry(1, at: fixedNow - 86_400)), .pruneChangeLog(before: fixedNow - 3600),
        ]))
        #expect(!result.logEntries.contains { $0.id == entry(1).id })
        #expect(await !store.schedule.changeLog.contains(id: entry(1).id))
    }

    @Test func aRecordedEntryIsAppendedCommittedAndReported() async throws {
        let (store, repository) = try await f.store()
        let precise = Date(timeIntervalSince1970: 1_790_000_000.123_456)
        let result = try await store.apply(.recordChangeLogEntry(entry(1, at: precise)))
        let stored = try #require(repository.snapshot.changeLog.last)
        #expect(stored.id == ChangeLogEntryID(uuid(3001)))
        #expect(stored.timestamp == Timestamp.truncated(precise), "kept to whole milliseconds, as the store file does")
        #expect(result.logEntries == [stored], "an incremental backend learns of it from the commit")
        #expect(result.changes == [.changeLogRecorded(stored)])
        #expect(result.changes.first?.entity == .changeLog && result.changes.first?.action == .added)
    }

    @Test func aRecordedEntryWithAnIdInUseIsRefused() async throws {
        let (store, repository) = try await f.store()
        try await store.apply(.recordChangeLogEntry(entry(1)))
        let before = repository.snapshot
        await #expect(throws: ScheduleError.duplicateID(entity: .changeLog, id: uuid(3001).lowercasedString, field: "changeLogEntry.id")) {
            try await store.apply(.recordChangeLogEntry(entry(1)))
        }
        await #expect(throws: ScheduleError.invalidValue(field: "batch[1].changeLogEntry.reason", reason: "contains the control character U+1B")) {
            try await store.apply(.batch([.recordChangeLogEntry(entry(2)), .recordChangeLogEntry(entry(3, reason: "\u{1B}[31m"))]))
        }
        #expect(repository.snapshot == before)
    }

    @Test func rulesSeeARecordedEntryAndCanRejectIt() async throws {
        struct NoAppEntries: ScheduleValidator {
            let name = "no-app-entries"
            func evaluate(_ proposal: Proposal) throws -> [Violation] {
                proposal.changes.compactMap { change in
                    guard case .changeLogRecorded = change else { return nil }
                    return Violation(ruleID: "no_app_entries", severity: .error, message: "not here")
                }
            }
        }
        let (store, repository) = try await f.store(validators: [NoAppEntries()])
        let before = repository.snapshot
        await #expect(throws: ScheduleError.rejected(violations: [Violation(ruleID: "no_app_entries", severity: .error, message: "not here")])) {
            try await store.apply(.recordChangeLogEntry(entry(1)))
        }
        #expect(repository.snapshot == before)
    }

    @Test func aPreconditionSeesTheScheduleAsCommittedByOtherWritersAndCanStopTheChange() async throws {
        struct Stop: Error, Equatable {}
        let (first, repository) = try await f.store()
        let second = try ScheduleStore(repository: repository, actingUser: alice, environment: testEnvironment())
        try await second.apply(.scheduleShift(f.shift(1, f.day, "2026-03-02", f.bob)))

        let seen = await first.schedule.shiftCount
        #expect(seen == 0, "the first store has not read the other writer's commit yet")
        await #expect(throws: Stop()) {
            try await first.apply(.removeLocation(f.ward.id)) { schedule in
                if schedule.shiftCount > 0 { throw Stop() }
            }
        }
        #expect(repository.snapshot.location(f.ward.id) != nil, "nothing was written")
        try await first.apply(.addPerson(Person(id: PersonID(uuid(40)), displayName: "Dave"))) { schedule in
            #expect(schedule.shiftCount == 1)
        }
        #expect(repository.snapshot.person(PersonID(uuid(40))) != nil, "a precondition that passes lets the change commit")
    }

    @Test func observingTheScheduleYieldsItNowAndAfterEachCommit() async throws {
        let (store, _) = try await f.store()
        var schedules = await store.observe().makeAsyncIterator()
        #expect(await schedules.next()?.shiftCount == 0)
        try await store.apply(.scheduleShift(f.shift(1, f.day, "2026-03-02", f.bob)))
        #expect(await schedules.next()?.shiftCount == 1)
        try await store.apply(.addPerson(Person(id: PersonID(uuid(40)), displayName: "Dave")))
        let latest = await schedules.next()
        #expect(latest?.personCount == 3)
        #expect(latest?.shiftCount == 1)
    }
}
