import Dependencies
import Foundation
import ShiftCore
import ShiftDependencies
import ShiftStorage
import TestSupport
import Testing

@Suite struct ChangeLogClientTests {
    func entry(_ n: Int, hoursAgo: Double) -> ChangeLogEntry {
        ChangeLogEntry(
            id: ChangeLogEntryID(UUID(700 + n)), timestamp: fixedNow.addingTimeInterval(-hoursAgo * 3600), userId: "sync",
            userDisplayName: "Sync", changeType: .updated, scheduledShiftDate: date("2026-03-02"), reason: "entry \(n)")
    }

    @Test func savedEntriesAreFetchedNewestFirstInAllRecentAndRange() async throws {
        let (configuration, repository) = try memoryStore()
        try await withLiveClients(configuration) {
            @Dependency(\.changeLogClient) var changeLog
            @Dependency(\.calendarClient) var calendar
            try await changeLog.save(entry: entry(1, hoursAgo: 48))
            try await changeLog.save(entry: entry(2, hoursAgo: 24))
            _ = try await calendar.createShift(shiftTypeID: early.id, date: date("2026-03-02"), personID: bob.id, notes: nil)

            let all = try await changeLog.fetchAll()
            #expect(all.count == 3)
            #expect(all.map(\.reason) == [nil, "entry 2", "entry 1"])
            #expect(all == repository.snapshot.changeLog.reversed())
            #expect(try await changeLog.fetchRecent(limit: 2).map(\.reason) == [nil, "entry 2"])
            #expect(try await changeLog.fetchRecent(limit: 0).isEmpty)
            let range = try await changeLog.fetchInRange(from: fixedNow.addingTimeInterval(-30 * 3600), to: fixedNow.addingTimeInterval(-1))
            #expect(range.map(\.reason) == ["entry 2"])
        }
    }

    /// Over a JSON store, the newest entries are read without the rest of the log: a damaged
    /// oldest entry does not stop them, and a read of the whole log names it.
    @Test func recentEntriesOfAJSONStoreAreReadWithoutTheRest() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path + "/schedule.json"
        let entries = (1...5).map { entry($0, hoursAgo: Double(10 - $0)) }
        let schedule = try Schedule(settings: StoreSettings(timeZoneIdentifier: "Europe/Berlin"), changeLog: entries)
        var text = String(decoding: StoreFileCodec.encode(schedule), as: UTF8.self)
        let first = try #require(text.range(of: #""changeType": "updated""#))
        text.replaceSubrange(first, with: #""changeType": "invented""#)
        try JSONFileRepository(path: path).write(Array(text.utf8))
        let configuration = ScheduleConfiguration(
            backend: .jsonFile(path: path, createIfMissing: false, initialSettings: StoreSettings(timeZoneIdentifier: "Europe/Berlin")),
            rulesDirectories: [], defaultProfile: alice)
        try await withLiveClients(configuration) { () async throws -> Void in
            @Dependency(\.changeLogClient) var changeLog
            #expect(try await changeLog.fetchRecent(limit: 2).map(\.reason) == ["entry 5", "entry 4"])
            await #expect(throws: StorageError.self) { try await changeLog.fetchRecent(limit: 5) }
            await #expect(throws: StorageError.self) { try await changeLog.fetchAll() }
        }
    }

    @Test func anEntryWithAnIdInUseIsRefused() async throws {
        let (configuration, repository) = try memoryStore(rules: [])
        try await withLiveClients(configuration) {
            @Dependency(\.changeLogClient) var changeLog
            try await changeLog.save(entry: entry(1, hoursAgo: 1))
            let before = repository.snapshot
            await #expect(throws: ScheduleError.duplicateID(entity: .changeLog, id: UUID(701).uuidString.lowercased(), field: "changeLogEntry.id")) {
                try await changeLog.save(entry: entry(1, hoursAgo: 2))
            }
            #expect(repository.snapshot == before)
        }
    }

    @Test func deletingOlderEntriesAndAllEntriesSaysHowManyWent() async throws {
        let (configuration, repository) = try memoryStore(rules: [])
        try await withLiveClients(configuration) {
            @Dependency(\.changeLogClient) var changeLog
            for (n, hours) in [(1, 72.0), (2, 48), (3, 1)] { try await changeLog.save(entry: entry(n, hoursAgo: hours)) }
            #expect(try await changeLog.deleteOlderThan(date: fixedNow.addingTimeInterval(-24 * 3600)) == 2)
            #expect(repository.snapshot.changeLog.map(\.reason) == ["entry 3"])
            #expect(try await changeLog.deleteOlderThan(date: fixedNow.addingTimeInterval(-24 * 3600)) == 0)
            #expect(try await changeLog.deleteAll() == 1)
            #expect(repository.snapshot.changeLog.isEmpty)
        }
    }

    @Test func observingYieldsTheNewestEntriesWhenTheyChange() async throws {
        let (configuration, _) = try memoryStore(rules: [])
        try await withLiveClients(configuration) {
            @Dependency(\.changeLogClient) var changeLog
            @Dependency(\.persistenceClient) var persistence
            var recent = changeLog.observe(limit: 2).makeAsyncIterator()
            #expect(await recent.next() == [])
            try await persistence.savePerson(Person(id: PersonID(UUID(900)), displayName: "Dave"))
            try await changeLog.save(entry: entry(1, hoursAgo: 1))
            #expect(await recent.next()?.map(\.id) == [ChangeLogEntryID(UUID(701))], "a change that logs nothing yields nothing new")
        }
    }
}
