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
