import Foundation
import TestSupport
import Synchronization
import Testing
@testable import ShiftCore

/// The in-memory change log: copies share their chunks, and appending to one copy never shows in
/// another, whichever copy appends first, across the small first tail's growth and whole chunks.
@Suite struct ChangeLogTests {
    func entry(_ n: Int, _ tag: String = "") -> ChangeLogEntry {
        ChangeLogEntry(
            id: ChangeLogEntryID(uuid(50_000 + n)), timestamp: fixedNow.addingTimeInterval(Double(n)), userId: "u\(n)",
            userDisplayName: "User \(n)", changeType: .updated, scheduledShiftDate: date("2026-03-02"),
            reason: tag.isEmpty ? nil : "\(tag) \(n)")
    }

    func log(_ range: Range<Int>, _ tag: String = "") -> ChangeLog {
        var log = ChangeLog()
        for n in range { log.append(entry(n, tag)) }
        return log
    }

    @Test func entriesComeBackInOrderAcrossChunks() {
        let built = log(0..<1_000)
        #expect(built.count == 1_000)
        #expect(built.map(\.userId) == (0..<1_000).map { "u\($0)" })
        #expect(built[0].userId == "u0" && built[255].userId == "u255" && built[256].userId == "u256" && built[999].userId == "u999")
        #expect(built.entries(newestFirst: true, limit: 3).map(\.userId) == ["u999", "u998", "u997"])
        #expect(built.contains(id: entry(700).id) && !built.contains(id: entry(1_000).id))
        var batch = ChangeLog()
        batch.append(contentsOf: (0..<1_000).map { entry($0) })
        #expect(batch == built && batch.hashValue == built.hashValue)
    }

    /// A copy taken at any length (inside the first small tail, at its doublings, at and past a
    /// whole chunk) keeps its own entries when it and the original both append after it.
    @Test(arguments: [0, 1, 15, 16, 17, 255, 256, 257, 300, 512])
    func copiesThatBothAppendStayApart(at length: Int) {
        var original = log(0..<length)
        var copy = original
        for n in length..<(length + 40) { original.append(entry(n, "original")) }
        for n in length..<(length + 30) { copy.append(entry(n, "copy")) }
        #expect(original.count == length + 40 && copy.count == length + 30)
        #expect(Array(original.prefix(length)) == Array(copy.prefix(length)))
        #expect(original.dropFirst(length).allSatisfy { $0.reason?.hasPrefix("original") == true })
        #expect(copy.dropFirst(length).allSatisfy { $0.reason?.hasPrefix("copy") == true })
        // The copy that appended second forked; appending on to either keeps going in place.
        original.append(entry(9_999, "original"))
        #expect(original.last?.userId == "u9999" && copy.last?.userId == "u\(length + 29)")
    }

    /// A log handed to several threads: each appends to its own copy at once, and each copy ends
    /// with exactly its own entries.
    @Test func copiesAppendedOnSeveralThreadsAtOnce() async {
        let shared = log(0..<250)
        let results = await withTaskGroup(of: (Int, ChangeLog).self) { group in
            for worker in 0..<4 {
                group.addTask {
                    var mine = shared
                    for n in 0..<300 { mine.append(entry(1_000 * (worker + 1) + n, "worker \(worker)")) }
                    return (worker, mine)
                }
            }
            var all: [(Int, ChangeLog)] = []
            for await result in group { all.append(result) }
            return all
        }
        for (worker, mine) in results {
            #expect(mine.count == 550)
            #expect(Array(mine.prefix(250)) == Array(shared))
            #expect(mine.dropFirst(250).map(\.userId) == (0..<300).map { "u\(1_000 * (worker + 1) + $0)" })
        }
        #expect(shared.count == 250)
    }

    @Test func pruningKeepsTheNewerEntriesInOrder() {
        var pruned = log(0..<600)
        let kept = pruned
        #expect(pruned.prune(before: fixedNow.addingTimeInterval(100)) == 100)
        #expect(pruned.map(\.userId) == (100..<600).map { "u\($0)" })
        pruned.append(entry(600))
        #expect(pruned.count == 501 && kept.count == 600 && kept.last?.userId == "u599")
    }

    /// Ids a store reads only when asked for: counted without reading, read once, equal to the
    /// same ids held; a read that fails makes the JSON encoding fail instead of listing none.
    @Test func deferredIDsAreReadOnceAndOnlyWhenAskedFor() throws {
        let ids = (0..<300).map { _ in ShiftID(UUID()) }
        let last = LocalDate("2026-03-01")!
        let reads = Mutex(0)
        let deferred = CreatedShifts(count: ids.count, lastDate: last) {
            reads.withLock { $0 += 1 }
            return ids
        }
        #expect(deferred.count == 300 && reads.withLock { $0 } == 0, "counting reads nothing")
        #expect(deferred == CreatedShifts(shiftIDs: ids, lastDate: last))
        #expect(deferred.shiftIDs == ids && reads.withLock { $0 } == 1, "read once")
        let encoded = try JSONEncoder().encode(deferred)
        #expect(try JSONDecoder().decode(CreatedShifts.self, from: encoded) == CreatedShifts(shiftIDs: ids, lastDate: last))

        struct Unreadable: Error {}
        let failing = CreatedShifts(count: 3, lastDate: last) { throw Unreadable() }
        #expect(failing.count == 3)
        #expect(throws: Unreadable.self) { try JSONEncoder().encode(failing) }
    }

    /// A bulk entry's ids as stores keep them (16 bytes each) come back as they were, read in
    /// place or through a copy when the bytes are not contiguous; a length that is no multiple
    /// of 16 is refused.
    @Test func packedIDsUnpackAsTheyWere() {
        let ids = (0..<1_000).map { _ in ShiftID(UUID()) }
        let packed = CreatedShifts(shiftIDs: ids, lastDate: LocalDate("2026-03-01")!).packedIDs
        #expect(packed.count == 16_000)
        #expect(CreatedShifts.unpackIDs(packed) == ids)
        #expect(CreatedShifts.unpackIDs(packed.lazy.map { $0 }) == ids)
        #expect(CreatedShifts.unpackIDs(packed[16...]) == Array(ids.dropFirst()))
        #expect(CreatedShifts.unpackIDs(packed.dropLast()) == nil)
        #expect(CreatedShifts.unpackIDs([UInt8]()) == [])
        // In place from raw bytes at an odd address, as the SQLite store reads a blob.
        let shifted = [0] + packed
        #expect(shifted.withUnsafeBytes { CreatedShifts.unpackIDs(UnsafeRawBufferPointer(rebasing: $0[1...])) } == ids)
    }
}
