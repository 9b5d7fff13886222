import Foundation
import TestSupport
import Testing
import ShiftCore
@testable import ShiftStorage

/// The JSON store's change log: left unread on opening, read when asked, and the version-2 log
/// (one entry per created shift) read and kept as it is.
@Suite struct JSONChangeLogTests {
    /// A version-2 store: two shifts created by one import, each with its own entry and snapshot.
    static let versionTwo = """
    {
      "format": "shiftscheduler",
      "version": 2,
      "settings": {"timeZone": "UTC", "weekStart": "monday", "changeLogRetention": "forever"},
      "locations": [],
      "shiftTypes": [
        {"id": "20000000-0000-4000-8000-000000000002", "symbol": "D", "title": "Day", "duration": "07:00-19:00"}
      ],
      "people": [
        {"id": "20000000-0000-4000-8000-00000000000a", "displayName": "Bob"}
      ],
      "shifts": [
        {"id": "20000000-0000-4000-8000-000000000064", "shiftTypeID": "20000000-0000-4000-8000-000000000002", "date": "2026-03-02", "personID": "20000000-0000-4000-8000-00000000000a"},
        {"id": "20000000-0000-4000-8000-000000000065", "shiftTypeID": "20000000-0000-4000-8000-000000000002", "date": "2026-03-03", "personID": "20000000-0000-4000-8000-00000000000a"}
      ],
      "demand": [],
      "availability": [],
      "changeLog": [
        {"id": "20000000-0000-4000-8000-0000000000c8", "timestamp": "2026-02-01T08:00:00.000Z", "userId": "alice", "userDisplayName": "Alice", "changeType": "created", "scheduledShiftDate": "2026-03-02", "newShiftSnapshot": {"shiftID": "20000000-0000-4000-8000-000000000064", "shiftTypeID": "20000000-0000-4000-8000-000000000002", "symbol": "D", "title": "Day", "duration": "07:00-19:00", "date": "2026-03-02", "personID": "20000000-0000-4000-8000-00000000000a", "personName": "Bob"}, "reason": "import"},
        {"id": "20000000-0000-4000-8000-0000000000c9", "timestamp": "2026-02-01T08:00:00.000Z", "userId": "alice", "userDisplayName": "Alice", "changeType": "created", "scheduledShiftDate": "2026-03-03", "newShiftSnapshot": {"shiftID": "20000000-0000-4000-8000-000000000065", "shiftTypeID": "20000000-0000-4000-8000-000000000002", "symbol": "D", "title": "Day", "duration": "07:00-19:00", "date": "2026-03-03", "personID": "20000000-0000-4000-8000-00000000000a", "personName": "Bob"}, "reason": "import"}
      ]
    }

    """

    @Test func aVersionTwoLogIsReadAsItIsAndKeptByTheMigration() async throws {
        let directory = try TemporaryFolder()
        let path = directory.file("schedule.json")
        writeText(Self.versionTwo, to: path)
        let repository = JSONFileRepository(path: path)
        let before = Array(try repository.load().0.changeLog)
        #expect(before.map(\.newShiftSnapshot?.personName) == ["Bob", "Bob"])
        #expect(before.allSatisfy { $0.createdShifts == nil })

        let store = try ScheduleStore(repository: repository, actingUser: tester, environment: testEnvironment())
        try await store.apply(.unscheduleShift(ShiftID(uuid(101))))
        #expect(String(decoding: readBytes(path + ".v2.bak"), as: UTF8.self) == Self.versionTwo, "the old file is kept")
        let (migrated, version) = try StoreFileCodec.decode(readBytes(path), path: path)
        #expect(version == StoreFileCodec.currentVersion)
        let after = Array(migrated.changeLog)
        #expect(Array(after.prefix(2)) == before, "nothing of the old entries is lost")
        #expect(after.last?.changeType == .deleted)
    }

    @Test func aVersionTwoStoreMayNotHoldBatchEntries() {
        let text = Self.versionTwo.replacingOccurrences(
            of: #""reason": "import"}"#, with: #""reason": "import", "createdShifts": {"lastDate": "2026-03-03", "shiftIDs": []}}"#)
        #expect(throws: StorageError.self) { try StoreFileCodec.decode(Array(text.utf8), path: "s.json") }
    }

    @Test func theLogIsLeftUnreadUntilACommandAsksForIt() async throws {
        let directory = try TemporaryFolder()
        let path = directory.file("schedule.json")
        // The second entry's change type is damaged: opening does not see it, reading the log does.
        let damaged = Self.versionTwo.replacingOccurrences(
            of: #""changeType": "created", "scheduledShiftDate": "2026-03-03""#,
            with: #""changeType": "invented", "scheduledShiftDate": "2026-03-03""#)
        writeText(damaged, to: path)
        let repository = JSONFileRepository(path: path)
        let (schedule, _) = try repository.load()
        #expect(schedule.shiftCount == 2, "the schedule opens without its log")
        let line = damaged.split(separator: "\n", omittingEmptySubsequences: false)
            .firstIndex { $0.contains("invented") }! + 1
        let column = damaged.split(separator: "\n", omittingEmptySubsequences: false)[line - 1]
            .distance(from: damaged.split(separator: "\n", omittingEmptySubsequences: false)[line - 1].startIndex,
                      to: damaged.split(separator: "\n", omittingEmptySubsequences: false)[line - 1].range(of: "\"invented\"")!.lowerBound) + 1
        #expect(throws: StorageError.corrupt(
            path: path, line: line, column: column, reason: "changeLog[1].changeType: 'invented' is not a change type")) {
            try schedule.changeLog.prepare()
        }
        // A save needs the log: it fails and leaves the file as it was.
        let store = try ScheduleStore(repository: repository, actingUser: tester, environment: testEnvironment())
        await #expect(throws: StorageError.self) { try await store.apply(.unscheduleShift(ShiftID(uuid(100)))) }
        #expect(String(decoding: readBytes(path), as: UTF8.self) == damaged)
    }

    @Test func aLogReadLaterIsTheOneThatWasOpened() async throws {
        let directory = try TemporaryFolder()
        let path = directory.file("schedule.json")
        writeText(Self.versionTwo, to: path)
        let (opened, _) = try JSONFileRepository(path: path).load()
        // Another writer replaces the file before this schedule reads its log.
        let store = try ScheduleStore(repository: JSONFileRepository(path: path), actingUser: tester, environment: testEnvironment())
        try await store.apply(.unscheduleShift(ShiftID(uuid(100))))
        #expect(opened.changeLog.count == 2)
        #expect(try JSONFileRepository(path: path).load().0.changeLog.count == 3)
    }

    @Test func aPruneDropsUnreadEntriesOnSave() async throws {
        let directory = try TemporaryFolder()
        let path = directory.file("schedule.json")
        writeText(Self.versionTwo, to: path)
        let store = try ScheduleStore(repository: JSONFileRepository(path: path), actingUser: tester, environment: testEnvironment())
        let removed = try await store.pruneChangeLog(before: Timestamp.parse("2026-02-02T00:00:00.000Z")!)
        #expect(removed == 2)
        #expect(try JSONFileRepository(path: path).load().0.changeLog.isEmpty)
    }

    /// A store whose log has `count` entries with awkward reasons (quotes, braces, brackets,
    /// backslashes, commas, non-ASCII), some with snapshots, one bulk entry, timestamps a minute
    /// apart and out of order here and there.
    static func storeWithLog(_ count: Int, at path: String) throws -> [ChangeLogEntry] {
        let type = ShiftType(id: ShiftTypeID(uuid(2)), symbol: "D", title: "Day", duration: ShiftDuration("07:00-19:00")!)
        let reasons = [nil, "plain", #"quote " and backslash \ end"#, "brace } bracket ] comma , open { [", "Zoë — ünïcode ✓", #"\"}]"#]
        let start = Date(timeIntervalSince1970: 1_767_225_600)
        let entries = (0..<count).map { n in
            let snapshot = ShiftSnapshot(shiftID: ShiftID(uuid(10_000 + n)), shiftTypeID: type.id, symbol: "D", title: "Day",
                                         duration: type.duration, date: LocalDate("2026-03-01")!.adding(days: n % 30), personName: "P\(n % 7)")
            return ChangeLogEntry(
                id: ChangeLogEntryID(uuid(20_000 + n)), timestamp: start.addingTimeInterval(Double(n % 9 == 8 ? n - 5 : n) * 60),
                userId: "u\(n % 3)", userDisplayName: "User \(n % 3)", changeType: n % 4 == 0 ? .deleted : .created,
                scheduledShiftDate: snapshot.date, oldShiftSnapshot: n % 4 == 0 ? snapshot : nil, newShiftSnapshot: n % 4 == 0 ? nil : snapshot,
                reason: reasons[n % reasons.count],
                createdShifts: n == count / 2 ? CreatedShifts(shiftIDs: [ShiftID(uuid(1)), ShiftID(uuid(3))], lastDate: snapshot.date) : nil)
        }
        let schedule = try Schedule(settings: StoreSettings(timeZoneIdentifier: "UTC"), shiftTypes: [type], people: [], shifts: [], changeLog: entries)
        try JSONFileRepository(path: path).write(StoreFileCodec.encode(schedule))
        return entries
    }

    /// `log` lists a JSON store's newest entries without decoding the whole log: what it lists
    /// must be what the log decoded whole gives, for every limit, time range, direction and page.
    @Test func listingEntryByEntryGivesWhatTheWholeLogGives() throws {
        let directory = try TemporaryFolder()
        let path = directory.file("schedule.json")
        let written = try Self.storeWithLog(700, at: path)
        let whole = try JSONFileRepository(path: path).load().0.changeLog
        try whole.prepare()
        #expect(Array(whole) == written)
        let listed = try JSONFileRepository(path: path).load().0.changeLog
        try listed.prepareToList()
        #expect(listed.count == written.count)
        let start = Date(timeIntervalSince1970: 1_767_225_600)
        for limit in [0, 1, 5, 64, 65, 200, 699, 700, 5_000] {
            for newestFirst in [true, false] {
                #expect(listed.entries(newestFirst: newestFirst, limit: limit) == whole.entries(newestFirst: newestFirst, limit: limit))
                let (from, to) = (start.addingTimeInterval(100 * 60), start.addingTimeInterval(400 * 60))
                #expect(listed.entries(from: from, to: to, newestFirst: newestFirst, limit: limit)
                        == whole.entries(from: from, to: to, newestFirst: newestFirst, limit: limit), "limit \(limit)")
                #expect(listed.entries(from: from, newestFirst: newestFirst, limit: limit) == whole.entries(from: from, newestFirst: newestFirst, limit: limit))
            }
        }
        for position in [0, 1, 63, 64, 350, 699] { #expect(listed[position] == written[position]) }
        #expect(listed.takeFailure() == nil)
    }

    /// A damaged entry is found when it is listed (with the line and column a whole read names),
    /// not before; a section that is not an array of objects is refused at once.
    @Test func aDamagedEntryIsSaidWhenListed() throws {
        let directory = try TemporaryFolder()
        let path = directory.file("schedule.json")
        _ = try Self.storeWithLog(300, at: path)
        var text = String(decoding: readBytes(path), as: UTF8.self)
        // The second newest entry gets a change type no version knows.
        let target = try #require(text.range(of: "\"id\": \"\(uuid(20_298).uuidString.lowercased())\""))
        let type = try #require(text.range(of: "\"changeType\": \"", range: target.upperBound..<text.endIndex))
        let value = try #require(text.range(of: "\"", range: type.upperBound..<text.endIndex))
        text.replaceSubrange(type.upperBound..<value.lowerBound, with: "invented")
        writeText(text, to: path)

        let whole = try JSONFileRepository(path: path).load().0.changeLog
        var wholeError: (any Error)?
        do { try whole.prepare() } catch { wholeError = error }
        let expected = try #require(wholeError as? StorageError)

        let listed = try JSONFileRepository(path: path).load().0.changeLog
        try listed.prepareToList()
        #expect(listed.entries(newestFirst: true, limit: 1).count == 1, "the newest entry is whole")
        #expect(listed.takeFailure() == nil)
        #expect(listed.entries(newestFirst: true, limit: 2).isEmpty)
        #expect(listed.takeFailure() as? StorageError == expected)

        writeText(text.replacingOccurrences(of: "\"changeLog\": [", with: "\"changeLog\": [1, "), to: path)
        let broken = try JSONFileRepository(path: path).load().0.changeLog
        #expect(throws: StorageError.self) { try broken.prepareToList() }
    }

    @Test(arguments: [
        (#"[]"#, 2), (#"[{"a": "x\"]}", "b": "\\"}, ["]", "{"]] , 1"#, 39), (#"{"k": "\\\"}"}"#, 14), (#"  [[[]]]x"#, 8),
    ]) func steppingOverAValueEndsWhereItEnds(_ text: String, _ end: Int) throws {
        let bytes = Array(text.utf8)
        let stop = try bytes.withUnsafeBufferPointer { buffer throws(StorageError) -> Int in
            var reader = JSONReader(bytes: buffer, path: "t.json")
            return try reader.skipContainer()
        }
        #expect(stop == end)
    }

    @Test(arguments: [#"[1, 2"#, #"["open]"#, #"["\"]"#]) func steppingOverAnUnfinishedValueFails(_ text: String) {
        let bytes = Array(text.utf8)
        let result = bytes.withUnsafeBufferPointer { buffer -> Result<Int, StorageError> in
            var reader = JSONReader(bytes: buffer, path: "t.json")
            return Result { () throws(StorageError) -> Int in try reader.skipContainer() }
        }
        #expect(throws: StorageError.self) { try result.get() }
    }
}
