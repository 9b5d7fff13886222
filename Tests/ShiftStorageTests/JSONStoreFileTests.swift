import Foundation
import TestSupport
import Testing
import ShiftCore
@testable import ShiftStorage

@Suite struct JSONStoreFileTests {
    @Test func aRichScheduleRoundTripsExactly() throws {
        let schedule = try richSchedule()
        let bytes = StoreFileCodec.encode(schedule)
        let (decoded, version) = try StoreFileCodec.decode(bytes, path: "t.json")
        #expect(version == StoreFileCodec.currentVersion)
        #expect(decoded == schedule)
        #expect(StoreFileCodec.encode(decoded) == bytes, "the output is stable")
    }

    /// The file is plain JSON that Foundation's Codable types read the same way.
    @Test func theFileAgreesWithTheCodableConformances() throws {
        struct Mirror: Decodable {
            var format: String
            var version: Int
            var settings: StoreSettings
            var locations: [Location]
            var shiftTypes: [ShiftType]
            var people: [Person]
            var shifts: [ScheduledShift]
            var demand: [Demand]
            var availability: [Availability]
            var changeLog: [ChangeLogEntry]
            var requests: [Request]
        }
        let schedule = try richSchedule()
        let mirror = try JSONDecoder().decode(Mirror.self, from: Data(StoreFileCodec.encode(schedule)))
        #expect(mirror.format == "shiftscheduler")
        #expect(mirror.settings == schedule.settings)
        #expect(mirror.locations == schedule.locations)
        #expect(mirror.shiftTypes == schedule.shiftTypes)
        #expect(mirror.people == schedule.people)
        #expect(mirror.shifts == schedule.shifts())
        #expect(mirror.demand == schedule.demand)
        #expect(mirror.availability == schedule.availability)
        #expect(mirror.changeLog == Array(schedule.changeLog))
        #expect(mirror.requests == schedule.requests)

        let reencoded = try Schedule(
            settings: mirror.settings, locations: mirror.locations, shiftTypes: mirror.shiftTypes, people: mirror.people,
            shifts: mirror.shifts, demand: mirror.demand, availability: mirror.availability, changeLog: mirror.changeLog,
            requests: mirror.requests)
        #expect(reencoded == schedule)
    }

    @Test func aOneShiftChangeIsAFewLinesOfDiff() async throws {
        let directory = try TemporaryFolder()
        let path = directory.file("schedule.json")
        let repository = JSONFileRepository(path: path)
        try repository.write(StoreFileCodec.encode(try richSchedule()))
        let before = String(decoding: readBytes(path), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let store = try ScheduleStore(repository: repository, actingUser: tester, environment: testEnvironment())
        try await store.apply(.reassignShift(ShiftID(uuid(103)), to: PersonID(uuid(10))))
        let after = String(decoding: readBytes(path), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let changed = after.difference(from: before)
        // The shift's line changes (1 removal + 1 insertion), the log gains an entry (1) and the
        // previous last entry gains a comma (1 removal + 1 insertion).
        #expect(changed.count <= 5, "\(changed)")
        #expect(after.count == before.count + 1)
    }

    @Test func aMissingFileIsReportedOrCreated() throws {
        let directory = try TemporaryFolder()
        let path = directory.file("none.json")
        #expect(throws: StorageError.notFound(path: path)) { try JSONFileRepository(path: path).load() }
        let (empty, revision) = try JSONFileRepository(path: path, createIfMissing: true,
                                                       initialSettings: StoreSettings(timeZoneIdentifier: "Asia/Tokyo")).load()
        #expect(empty.shiftCount == 0 && empty.settings.timeZoneIdentifier == "Asia/Tokyo")
        #expect(revision == StoreRevision("absent"))
        #expect(!FileManager.default.fileExists(atPath: path), "nothing is written until the first commit")
    }

    @Test func readsVersionOneAndMigratesOnTheNextSave() async throws {
        let directory = try TemporaryFolder()
        let path = directory.file("old.json")
        let original = """
        {
          "version": 1,
          "locations": [{"id": "20000000-0000-4000-8000-000000000001", "name": "Ward"}],
          "shiftTypes": [
            {"id": "20000000-0000-4000-8000-000000000002", "symbol": "N", "title": "Night", "startTime": "22:00", "endTime": "06:00",
             "locationID": "20000000-0000-4000-8000-000000000001"},
            {"id": "20000000-0000-4000-8000-000000000003", "symbol": "V", "title": "Vacation", "allDay": true}
          ],
          "people": [{"id": "20000000-0000-4000-8000-00000000000a", "name": "Bob"}],
          "shifts": [{"id": "20000000-0000-4000-8000-000000000064", "typeID": "20000000-0000-4000-8000-000000000002",
                      "date": "2026-03-28", "personID": "20000000-0000-4000-8000-00000000000a"}]
        }
        """
        writeText(original, to: path)
        let repository = JSONFileRepository(path: path)
        let (schedule, _) = try repository.load()
        #expect(schedule.settings.timeZoneIdentifier == "UTC")
        #expect(schedule.shiftType(symbol: "N")?.duration == ShiftDuration("22:00-06:00"))
        #expect(schedule.shiftType(symbol: "V")?.duration == .allDay)
        #expect(schedule.person(PersonID(uuid(10)))?.displayName == "Bob")
        #expect(schedule.shifts().map(\.personID) == [PersonID(uuid(10))])

        let store = try ScheduleStore(repository: repository, actingUser: tester, environment: testEnvironment())
        try await store.apply(.addPerson(Person(id: PersonID(uuid(11)), displayName: "Carol")))
        #expect(String(decoding: readBytes(path + ".v1.bak"), as: UTF8.self) == original, "the old file is kept")
        let (migrated, version) = try StoreFileCodec.decode(readBytes(path), path: path)
        #expect(version == StoreFileCodec.currentVersion)
        #expect(migrated.personCount == 2 && migrated.shiftCount == 1)
    }

    @Test func aNewerVersionIsRefusedWithAClearMessage() {
        let bytes = Array(#"{"format": "shiftscheduler", "version": 9, "settings": {"timeZone": "UTC"}}"#.utf8)
        #expect(throws: StorageError.unsupportedVersion(path: "s.json", version: 9, newest: StoreFileCodec.currentVersion)) {
            try StoreFileCodec.decode(bytes, path: "s.json")
        }
    }

    static let valid = """
    {"format": "shiftscheduler", "version": 2, "settings": {"timeZone": "UTC"},
     "shiftTypes": [{"id": "20000000-0000-4000-8000-000000000002", "symbol": "D", "title": "Day", "duration": "07:00-19:00"}],
     "shifts": [
       {"id": "20000000-0000-4000-8000-000000000064", "shiftTypeID": "20000000-0000-4000-8000-000000000002", "date": "2026-03-02"}
     ]}
    """

    /// Bad files, each with where the error must point and what it must say.
    static let corrupt: [(name: String, text: String, line: Int, column: Int, says: String)] = [
        ("empty", "", 1, 1, "the file is empty"),
        ("whitespace", "  \n ", 2, 2, "the file is empty"),
        ("truncated", String(valid.prefix(150)), 2, 74, "unterminated string"),
        ("not an object", "[1, 2]", 1, 1, "a store is a JSON object"),
        ("binary", "\u{0}\u{1}\u{2}PK", 1, 1, "a store is a JSON object"),
        ("trailing garbage", valid + " }", 5, 5, "after the end of the store"),
        ("bad date", valid.replacingOccurrences(of: "2026-03-02", with: "2026-02-30"), 4, 114,
         "shifts[0].date: '2026-02-30' is not a date"),
        ("month 13", valid.replacingOccurrences(of: "2026-03-02", with: "2026-13-01"), 4, 114, "is not a date"),
        ("24:00", valid.replacingOccurrences(of: "07:00-19:00", with: "07:00-24:00"), 2, 107, "is not a duration"),
        ("wrong type", valid.replacingOccurrences(of: "\"Day\"", with: "42"), 2, 88, "expected a string"),
        ("unknown field", valid.replacingOccurrences(of: "\"title\"", with: "\"tittle\""), 2, 79, "shiftTypes[0]: unknown field \"tittle\""),
        ("missing field", valid.replacingOccurrences(of: ", \"date\": \"2026-03-02\"", with: ""), 4, 4, "shifts[0]: missing \"date\""),
        ("bad uuid", valid.replacingOccurrences(of: "000000000064", with: "00000000006Z"), 4, 11, "is not a UUID"),
        ("no version", #"{"settings": {"timeZone": "UTC"}}"#, 1, 1, "no \"version\" field"),
        ("foreign format", #"{"format": "excel", "version": 2}"#, 1, 12, "format is 'excel'"),
        ("duplicate key", #"{"version": 2, "version": 2}"#, 1, 16, "appears twice"),
        ("unknown zone", valid.replacingOccurrences(of: "\"UTC\"", with: "\"Mars/Olympus\""), 0, 0, "settings.timeZone"),
        ("dangling reference", valid.replacingOccurrences(of: "000000000002\", \"date", with: "000000000009\", \"date"), 0, 0,
         "shifts[0].shiftTypeID: refers to 20000000-0000-4000-8000-000000000009"),
        ("deep nesting", "{\"version\": 2, \"settings\": {\"timeZone\": \"UTC\", \"extra\": {\"x\": " + String(repeating: "[", count: 100_000), 1, 124,
         "nesting deeper than 64 levels"),
    ]

    @Test(arguments: 0..<corrupt.count) func badFilesAreReportedWithWhereAndWhat(_ index: Int) {
        let item = Self.corrupt[index]
        do {
            _ = try StoreFileCodec.decode(Array(item.text.utf8), path: "s.json")
            Issue.record("\(item.name): decoded")
        } catch let .corrupt(path, line, column, reason) {
            #expect(path == "s.json")
            #expect((line, column) == (item.line, item.column), "\(item.name): \(reason)")
            #expect(reason.contains(item.says), "\(item.name): \(reason)")
        } catch let .invalidContent(_, reason) {
            #expect(item.line == 0, "\(item.name): \(reason)")
            #expect(reason.contains(item.says), "\(item.name): \(reason)")
        } catch {
            Issue.record("\(item.name): \(error)")
        }
    }

    @Test func invalidUTF8IsRefused() {
        var bytes = Array(Self.valid.utf8)
        let at = bytes.firstIndex(of: UInt8(ascii: "D"))!
        bytes[at] = 0xC3
        bytes.insert(0x28, at: at + 1)
        #expect(throws: StorageError.self) { try StoreFileCodec.decode(bytes, path: "s.json") }
        do { _ = try StoreFileCodec.decode(bytes, path: "s.json") } catch let .corrupt(_, _, _, reason) {
            #expect(reason == "invalid UTF-8 in a string")
        } catch { Issue.record("\(error)") }
    }

    @Test func escapesAndNonASCIITextRoundTrip() throws {
        let text = "Zoë \"the\" \\ boss\u{1}\n\t/ ✓ 𝄞"
        var writer = JSONWriter()
        writer.string(text)
        let bytes = writer.bytes
        var parsed = ""
        try bytes.withUnsafeBufferPointer { buffer throws(StorageError) in
            var reader = JSONReader(bytes: buffer, path: "x")
            parsed = try reader.readString()
        }
        #expect(parsed == text)
        let escaped = Array(#""\u00e9\ud834\udd1e\/""#.utf8)
        try escaped.withUnsafeBufferPointer { buffer throws(StorageError) in
            var reader = JSONReader(bytes: buffer, path: "x")
            #expect(try reader.readString() == "é𝄞/")
        }
    }

    @Test func aCorruptStoreIsNeverWrittenOver() async throws {
        let directory = try TemporaryFolder()
        let path = directory.file("schedule.json")
        let garbage = Self.valid.prefix(120) + "\u{0}garbage"
        writeText(String(garbage), to: path)
        let repository = JSONFileRepository(path: path)
        #expect(throws: StorageError.self) { try ScheduleStore(repository: repository) }
        // A store opened before the file went bad refuses to write over it too.
        writeText(Self.valid, to: path)
        let store = try ScheduleStore(repository: repository, actingUser: tester, environment: testEnvironment())
        writeText(String(garbage), to: path)
        await #expect(throws: StorageError.self) {
            try await store.apply(.addPerson(Person(id: PersonID(uuid(10)), displayName: "Bob")))
        }
        #expect(String(decoding: readBytes(path), as: UTF8.self) == String(garbage))
    }

    @Test func leftoverTemporaryFilesAreCleanedUp() async throws {
        let directory = try TemporaryFolder()
        let path = directory.file("schedule.json")
        writeText(Self.valid, to: path)
        writeText("half a save", to: directory.file(".schedule.json.999.123.tmp"))
        let store = try ScheduleStore(repository: JSONFileRepository(path: path), actingUser: tester, environment: testEnvironment())
        try await store.apply(.addPerson(Person(id: PersonID(uuid(10)), displayName: "Bob")))
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".tmp") }
        #expect(left.isEmpty)
    }
}
