import Foundation
import Synchronization
import Testing
import ShiftCore
@testable import ShiftStorage
import TestSupport

/// The index file beside a JSON store: used only when it holds the store file's exact bytes,
/// made again whenever it does not, and never the reason a store fails to open or save.
@Suite struct JSONStoreIndexTests {
    /// A store file holding `schedule`, with no index yet.
    private func storeFile(_ schedule: Schedule) throws -> (path: String, folder: TemporaryFolder) {
        let folder = try TemporaryFolder()
        let path = folder.file("schedule.json")
        try JSONFileRepository(path: path, indexThreshold: nil).write(StoreFileCodec.encode(schedule))
        return (path, folder)
    }

    private func indexed(_ path: String) -> JSONFileRepository { JSONFileRepository(path: path, indexThreshold: 0) }
    private func plain(_ path: String) throws -> Schedule { try JSONFileRepository(path: path, indexThreshold: nil).load().0 }

    private func bytes(_ path: String) -> [UInt8]? { FileManager.default.contents(atPath: path).map { [UInt8]($0) } }

    /// The header of the index of the store at `path`.
    private func header(_ path: String) -> StoreIndex.Header? {
        bytes(JSONFileRepository.indexPath(for: path)).flatMap { bytes in bytes.withUnsafeBytes { StoreIndex.Header($0) } }
    }

    /// Whether the store's index holds the store file's bytes now.
    private func indexIsCurrent(_ path: String) -> Bool {
        guard let header = header(path), let store = bytes(path) else { return false }
        return header.storeSize == store.count && header.storeHash == ContentHash.of(store)
    }

    private func inode(_ path: String) -> UInt64? {
        var info = stat()
        return stat(path, &info) == 0 ? UInt64(info.st_ino) : nil
    }

    private func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    // MARK: The hash

    @Test func theContentHashIsXXH64() {
        #expect(ContentHash.of([UInt8]()) == 0xEF46_DB37_51D8_E999)
        #expect(ContentHash.of(Array("abc".utf8)) == 0x44BC_2CF5_AD77_0999)
        let data = (0..<1000).map { UInt8(($0 * 7 + 3) % 251) }
        #expect(ContentHash.of(data) == 0x021F_7A74_2408_5EA4)
    }

    @Test func bytesAddedPieceByPieceHashAsAWhole() {
        var random = SplitMix64(seed: 5)
        let data = (0..<5_000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        let whole = ContentHash.of(data)
        for _ in 0..<50 {
            var hash = ContentHash()
            var start = 0
            while start < data.count {
                let end = min(data.count, start + Int(random.next() % 70))
                data[start..<end].withUnsafeBytes { hash.add($0) }
                start = end
            }
            #expect(hash.value == whole)
        }
        var changed = data
        changed[2_345] ^= 1
        #expect(ContentHash.of(changed) != whole, "one bit changes the hash")
    }

    @Test func aFileHashesWindowByWindowAsItsBytesDo() throws {
        let folder = try TemporaryFolder()
        var random = SplitMix64(seed: 9)
        let data = (0..<100_003).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        try write(data, to: folder.file("data"))
        let fd = open(folder.file("data"), O_RDONLY)
        defer { close(fd) }
        #expect(try ContentHash.of(descriptor: fd, size: data.count, window: 1_000) == ContentHash.of(data), "windows that split stripes")
        #expect(try ContentHash.of(descriptor: fd, size: data.count) == ContentHash.of(data))
        #expect(try ContentHash.of(descriptor: fd, size: 4096 * 3, window: 4096) == ContentHash.of(Array(data[0..<4096 * 3])), "a prefix")
    }

    // MARK: The fast path against the plain read

    @Test(arguments: [1, 2] as [UInt64]) func openingThroughTheIndexGivesWhatThePlainReadGives(_ seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let schedules = [try richSchedule(), try randomSchedule(shifts: 4_000, logEntries: 300, using: &random)]
        for schedule in schedules {
            let (path, folder) = try storeFile(schedule)
            let expected = try plain(path)
            #expect(expected.source == nil, "the plain read holds everything in memory")

            let built = try indexed(path).load().0
            #expect(indexIsCurrent(path), "the first open made the index")
            let made = inode(JSONFileRepository.indexPath(for: path))
            let opened = try indexed(path).load().0
            #expect(inode(JSONFileRepository.indexPath(for: path)) == made, "the second open used it as it was")

            for loaded in [built, opened] {
                #expect(loaded.source is JSONScheduleSource)
                #expect(loaded == expected)
                #expect(loaded.shifts() == expected.shifts())
                #expect(loaded.people == expected.people && loaded.shiftTypes == expected.shiftTypes)
                #expect(loaded.locations == expected.locations && loaded.requests == expected.requests)
                #expect(loaded.demand == expected.demand && loaded.availability == expected.availability)
                #expect(loaded.settings == expected.settings)
                #expect(Array(loaded.changeLog) == Array(expected.changeLog))
                #expect(StoreFileCodec.encode(loaded) == StoreFileCodec.encode(expected), "saving writes the same bytes")
                #expect(try loaded.materialized() == expected)
                for person in expected.people {
                    #expect(loaded.timeline(of: person.id) == expected.timeline(of: person.id))
                }
                for shift in expected.shifts() where shift.hasCustomEventIdentifier {
                    #expect(loaded.shift(eventIdentifier: shift.eventIdentifier) == shift)
                }
                #expect(loaded.source?.takeFailure() == nil)
            }
            withExtendedLifetime(folder) {}
        }
    }

    // MARK: Stale, damaged, missing

    @Test(arguments: [true, false]) func aStoreEditedByHandIsReadAsEditedAndIndexedAgain(_ sameSize: Bool) throws {
        let (path, folder) = try storeFile(try richSchedule())
        _ = try indexed(path).load()
        let before = try #require(header(path))
        var text = try String(contentsOfFile: path, encoding: .utf8)
        if sameSize {
            // One shift moves by a day: the file keeps its size, only the hash tells.
            let line = try #require(text.split(separator: "\n").first { $0.contains("\"date\": \"2026-03-01\"") })
            text = text.replacingOccurrences(of: line, with: line.replacingOccurrences(of: "2026-03-01", with: "2026-03-09"))
        } else {
            text = text.replacingOccurrences(of: "\"Carol ☀︎\"", with: "\"Carol Moon\"")
        }
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        #expect((bytes(path)?.count == before.storeSize) == sameSize)

        let loaded = try indexed(path).load().0
        let expected = try plain(path)
        #expect(loaded == expected, "the store file as edited, not the index")
        #expect(loaded.shifts() == expected.shifts())
        #expect(loaded.people.map(\.displayName) == expected.people.map(\.displayName))
        #expect(indexIsCurrent(path), "indexed again")
        #expect(header(path) != before)
        withExtendedLifetime(folder) {}
    }

    enum Damage: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case oneBodyBitFlipped, cutShort, cutToTheHeader, empty, foreignMagic, otherFormatVersion, garbage, claimsAnotherStoreSize
        var testDescription: String { rawValue }

        func apply(_ bytes: [UInt8]) -> [UInt8] {
            var bytes = bytes
            switch self {
            case .oneBodyBitFlipped: bytes[bytes.count - 100] ^= 0x10
            case .cutShort: bytes.removeLast(bytes.count / 3)
            case .cutToTheHeader: bytes.removeLast(bytes.count - StoreIndex.headerSize)
            case .empty: bytes = []
            case .foreignMagic: bytes[0] = UInt8(ascii: "X")
            case .otherFormatVersion:
                // A well-formed header of another version: its hashes made right.
                bytes[8] = 99
                JSONStoreIndexTests.remakeHashes(&bytes)
            case .garbage:
                var random = SplitMix64(seed: 3)
                bytes = (0..<bytes.count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            case .claimsAnotherStoreSize:
                bytes[16] ^= 1
                JSONStoreIndexTests.remakeHashes(&bytes)
            }
            return bytes
        }
    }

    @Test(arguments: Damage.allCases) func aDamagedIndexIsIgnoredAndMadeAgain(_ damage: Damage) throws {
        var random = SplitMix64(seed: 4)
        let (path, folder) = try storeFile(try randomSchedule(shifts: 1_500, logEntries: 50, using: &random))
        _ = try indexed(path).load()
        let index = JSONFileRepository.indexPath(for: path)
        try write(damage.apply(try #require(bytes(index))), to: index)

        let loaded = try indexed(path).load().0
        let expected = try plain(path)
        #expect(loaded == expected)
        #expect(loaded.shifts() == expected.shifts())
        #expect(indexIsCurrent(path))
        let made = try #require(bytes(index))
        #expect(try StoreIndex.reading(made).columns.header.storeHash == ContentHash.of(try #require(bytes(path))), "a sound index again")
        withExtendedLifetime(folder) {}
    }

    /// Damage that keeps the hashes right (made right again after a byte changed) is refused
    /// by the bounds checks, or leaves an index whose every lookup stays in bounds.
    @Test func anIndexDamagedBehindItsHashesNeverReadsOutOfBounds() throws {
        var random = SplitMix64(seed: 8)
        let schedule = try randomSchedule(shifts: 300, logEntries: 0, using: &random)
        let stamp = StoreIndex.Stamp(storeVersion: 4, storeSize: 1_000, storeHash: 1, changeLog: nil)
        let good = try #require(StoreIndex.encode(catalog: schedule, shifts: schedule.shifts(), stamp: stamp))
        var refused = 0
        for _ in 0..<300 {
            var bytes = good
            let at = StoreIndex.headerSize + Int(random.next() % UInt64(bytes.count - StoreIndex.headerSize))
            bytes[at] ^= UInt8(truncatingIfNeeded: random.next() | 1)
            Self.remakeHashes(&bytes)
            guard let index = try? StoreIndex.reading(bytes) else {
                refused += 1
                continue
            }
            for row in 0..<index.shiftCount {
                _ = try? index.shift(atRow: row)
                _ = index.row(of: index.columnShift(atRow: row).id)
            }
            for person in index.personIDs.indices {
                _ = index.personRun(person, from: .minimum, to: .maximum).map(index.personReference)
            }
            _ = index.rows(from: .minimum, to: .maximum)
            _ = index.rows(idPrefix: "a", limit: 10)
            _ = try? index.row(customEventIdentifier: "x")
        }
        #expect(refused > 0)
    }

    /// The body's and the header's hashes of an index's bytes, made for the bytes as they are.
    static func remakeHashes(_ bytes: inout [UInt8]) {
        func put(_ value: UInt64, at offset: Int) {
            withUnsafeBytes(of: value.littleEndian) { for (n, byte) in $0.enumerated() { bytes[offset + n] = byte } }
        }
        put(ContentHash.of(Array(bytes[StoreIndex.headerSize...])), at: 40)
        put(ContentHash.of(Array(bytes[0..<48])), at: 48)
    }

    @Test func aDeletedIndexIsMadeAgain() throws {
        let (path, folder) = try storeFile(try richSchedule())
        _ = try indexed(path).load()
        try FileManager.default.removeItem(atPath: JSONFileRepository.indexPath(for: path))
        #expect(try indexed(path).load().0 == (try plain(path)))
        #expect(indexIsCurrent(path))
        withExtendedLifetime(folder) {}
    }

    @Test func anIndexThatCannotBeWrittenLeavesTheStoreWorking() async throws {
        let (path, folder) = try storeFile(try richSchedule())
        // Where the index folder would go, a file: the index can be neither read nor written.
        try write(Array("not a folder".utf8), to: folder.file(JSONFileRepository.indexFolderName))
        let repository = indexed(path)
        let (loaded, _) = try repository.load()
        #expect(loaded == (try plain(path)))
        let store = try ScheduleStore(repository: repository, actingUser: tester, environment: testEnvironment())
        let shift = try #require(loaded.shifts().first)
        try await store.apply(.reassignShift(shift.id, to: nil, reason: "opened up"))
        let saved = try plain(path)
        #expect(saved.shift(shift.id)?.personID == nil)
        #expect(await store.schedule == saved)
        #expect(try indexed(path).load().0 == saved)
        #expect(bytes(folder.file(JSONFileRepository.indexFolderName)) == Array("not a folder".utf8))
    }

    @Test func theIndexFolderTellsGitToIgnoreIt() throws {
        let (path, folder) = try storeFile(try richSchedule())
        _ = try indexed(path).load()
        let ignore = try String(contentsOfFile: folder.file(JSONFileRepository.indexFolderName + "/.gitignore"), encoding: .utf8)
        #expect(ignore.split(separator: "\n").contains("*"))
        #expect(JSONFileRepository.indexPath(for: path) == folder.file(".shiftscheduler-cache/schedule.json.index"))
    }

    // MARK: Writing

    @Test func mutationsKeepTheIndexInStep() async throws {
        var random = SplitMix64(seed: 12)
        let schedule = try randomSchedule(shifts: 800, logEntries: 20, using: &random)
        let (path, folder) = try storeFile(schedule)
        let store = try ScheduleStore(repository: indexed(path), actingUser: tester, environment: testEnvironment())
        #expect(await store.schedule.source is JSONScheduleSource)
        let shifts = schedule.shifts()
        let type = schedule.shiftTypes[0]
        // Of a type that stays: the type removed below takes its shifts with it.
        var noted = try #require(shifts.dropFirst(13).first { $0.shiftTypeID != schedule.shiftTypes[3].id })
        noted.notes = "bring keys"
        noted.eventIdentifier = "kept-uid@example.com"
        let added = (0..<5).map { n in
            ScheduledShift(id: ShiftID(uuid(900_000 + n)), shiftTypeID: type.id, date: shifts[n].date, personID: schedule.people[n % 6].id)
        }
        let mutations: [Mutation] = [
            .scheduleShift(added[0]),
            .updateShift(noted, reason: "keys"),
            .reassignShift(shifts[10].id, to: nil, reason: nil),
            .switchShift(shifts[11].id, to: schedule.shiftTypes[1].id, reason: "swap"),
            .unscheduleShift(shifts[12].id, reason: "cancelled"),
            .batch(added.dropFirst().map { .scheduleShift($0) }),
            .removeShiftType(schedule.shiftTypes[3].id),
            .removePerson(schedule.people[5].id),
        ]
        for mutation in mutations {
            try await store.apply(mutation)
            let saved = try plain(path)
            #expect(indexIsCurrent(path), "\(mutation)")
            let current = await store.schedule
            #expect(current.source is JSONScheduleSource, "the store reads the saved index after a commit")
            #expect(current == saved, "\(mutation)")
            #expect(current.shifts() == saved.shifts(), "\(mutation)")
            #expect(Array(current.changeLog) == Array(saved.changeLog), "\(mutation)")
            #expect(try indexed(path).load().0 == saved, "\(mutation)")
            // The index a save makes (on another core, while the store file is encoded) is the
            // one made afresh from the file it saved.
            let written = bytes(JSONFileRepository.indexPath(for: path))
            try FileManager.default.removeItem(atPath: JSONFileRepository.indexPath(for: path))
            _ = try indexed(path).load()
            #expect(written != nil && bytes(JSONFileRepository.indexPath(for: path)) == written, "\(mutation)")
        }
        #expect(await store.schedule.shift(eventIdentifier: "kept-uid@example.com")?.notes == "bring keys")

        // A rejected change writes neither the store nor its index.
        let storeBytes = bytes(path)
        let indexBytes = bytes(JSONFileRepository.indexPath(for: path))
        let unknown = ScheduledShift(id: ShiftID(uuid(999_000)), shiftTypeID: ShiftTypeID(uuid(999_001)), date: shifts[0].date)
        await #expect(throws: ScheduleError.self) { try await store.apply(.scheduleShift(unknown)) }
        #expect(bytes(path) == storeBytes)
        #expect(bytes(JSONFileRepository.indexPath(for: path)) == indexBytes)
        withExtendedLifetime(folder) {}
    }

    /// A save reads a large schedule's shifts in two halves by date at once: together they are
    /// the schedule's shifts in query order, in memory and over an index.
    @Test func aSaveReadsEveryShiftInOrderFromTwoHalves() throws {
        var random = SplitMix64(seed: 21)
        let schedule = try randomSchedule(shifts: 24_000, logEntries: 0, using: &random)
        #expect(schedule.shiftCount >= 20_000, "large enough to be read in halves")
        #expect(JSONFileRepository.shifts(of: schedule) == schedule.shifts())
        let (path, folder) = try storeFile(schedule)
        let opened = try indexed(path).load().0
        #expect(opened.source is JSONScheduleSource)
        #expect(JSONFileRepository.shifts(of: opened) == schedule.shifts())
        withExtendedLifetime(folder) {}
    }

    @Test func aStoreBelowTheThresholdKeepsNoIndex() async throws {
        var random = SplitMix64(seed: 13)
        let schedule = try randomSchedule(shifts: 300, logEntries: 0, using: &random)
        let (path, folder) = try storeFile(schedule)
        let index = JSONFileRepository.indexPath(for: path)
        let loaded = try JSONFileRepository(path: path, indexThreshold: 301).load().0
        #expect(loaded.source == nil)
        #expect(bytes(index) == nil, "none made")

        // Indexed while it is big enough; the index goes when a save leaves it smaller.
        _ = try JSONFileRepository(path: path, indexThreshold: 300).load()
        #expect(indexIsCurrent(path))
        let store = try ScheduleStore(repository: JSONFileRepository(path: path, indexThreshold: 300), actingUser: tester, environment: testEnvironment())
        try await store.apply(.unscheduleShift(schedule.shifts()[0].id, reason: nil))
        #expect(bytes(index) == nil, "removed")
        #expect(await store.schedule == (try plain(path)), "the store still reads what it saved")
        withExtendedLifetime(folder) {}
    }

    @Test func aFaultyStoreIsRefusedAsThePlainReadRefusesIt() throws {
        let schedule = try richSchedule()
        let (path, folder) = try storeFile(schedule)
        let good = try #require(String(data: Data(contentsOf: URL(fileURLWithPath: path)), encoding: .utf8))
        let person = try #require(schedule.people.first).id.description
        let edits = [
            // A shift of someone the store does not have, one id twice, a bad calendar UID.
            good.replacingOccurrences(of: "\"personID\": \"\(person)\"", with: "\"personID\": \"\(uuid(4242))\""),
            good.replacingOccurrences(of: ShiftID(uuid(101)).description, with: ShiftID(uuid(102)).description),
            good.replacingOccurrences(of: "imported-13@example.com", with: "imported-26@example.com"),
        ]
        for edit in edits {
            try edit.write(toFile: path, atomically: false, encoding: .utf8)
            let plainError = #expect(throws: StorageError.self) { try JSONFileRepository(path: path, indexThreshold: nil).load() }
            let indexedError = #expect(throws: StorageError.self) { try indexed(path).load() }
            #expect(indexedError.map { "\($0)" } == plainError.map { "\($0)" })
        }
        withExtendedLifetime(folder) {}
    }

    // MARK: Processes racing

    @Test func readersNeverTrustAHalfWrittenIndex() async throws {
        var random = SplitMix64(seed: 21)
        let schedule = try randomSchedule(shifts: 2_000, logEntries: 10, using: &random)
        let (path, folder) = try storeFile(schedule)
        let base = Set(schedule.shifts().map(\.id))
        let type = schedule.shiftTypes[0].id
        let added = (0..<30).map { ShiftID(uuid(800_000 + $0)) }
        let day = try #require(schedule.shiftDateRange).lowerBound
        let store = try ScheduleStore(repository: indexed(path), actingUser: tester, environment: testEnvironment())
        let writer = Task {
            for id in added { try await store.apply(.scheduleShift(ScheduledShift(id: id, shiftTypeID: type, date: day))) }
        }
        let faults = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<15 {
                do {
                    // Each reader its own repository, as another process would be: it opens
                    // through whatever index it finds, or reads the file and writes one.
                    let loaded = try indexed(path).load().0
                    let count = loaded.shiftCount - base.count
                    let ids = Set(loaded.shifts().map(\.id))
                    if count < 0 || count > added.count || ids != base.union(added.prefix(count)) {
                        faults.withLock { $0.append("\(loaded.shiftCount) shifts, not one of the states written") }
                    }
                } catch {
                    faults.withLock { $0.append("\(error)") }
                }
            }
        }
        try await writer.value
        #expect(faults.withLock { $0 } == [])
        #expect(try indexed(path).load().0 == (try plain(path)))
        withExtendedLifetime(folder) {}
    }
}
