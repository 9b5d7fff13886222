import Foundation
import ShiftCore
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The change-log section of a JSON store, left unread when the store was opened and decoded
/// the first time a command asks for an entry (`log`, a save, `migrate`).
///
/// Opening steps over the section without decoding it, so `validate`, listings, `calendar` and
/// `solve` never pay for a log they do not show. The section is read again from the file that
/// was opened (its descriptor is kept: a save renames a new file over the path, and the old one
/// stays readable through it), so what is decoded is what was opened.
final class JSONChangeLogSource: ChangeLogSource {
    private let descriptor: Int32
    private let range: Range<Int>
    private let path: String
    private let version: Int
    private struct State {
        var loaded: Result<[ChangeLogEntry], StorageError>?
        /// The entries from the last `notBefore` asked for, which a walk asks for page after page.
        var filtered: (notBefore: Date, entries: [ChangeLogEntry])?
    }

    private let state = Mutex(State())

    /// - Parameters:
    ///   - descriptor: an open descriptor of the store file, which this source owns and closes.
    ///   - range: where the change-log array lies in the file.
    init(descriptor: Int32, range: Range<Int>, path: String, version: Int) {
        self.descriptor = descriptor
        self.range = range
        self.path = path
        self.version = version
    }

    deinit { close(descriptor) }

    func prepare() throws {
        _ = try load()
    }

    private func load() throws(StorageError) -> [ChangeLogEntry] {
        try state.withLock { state throws(StorageError) -> [ChangeLogEntry] in
            if let loaded = state.loaded { return try loaded.get() }
            let result: Result<[ChangeLogEntry], StorageError>
            do throws(StorageError) {
                result = .success(try decode())
            } catch {
                result = .failure(error)
            }
            state.loaded = result
            return try result.get()
        }
    }

    private func decode() throws(StorageError) -> [ChangeLogEntry] {
        let bytes = try read(range)
        do {
            return try bytes.withUnsafeBufferPointer { buffer throws(StorageError) in
                try StoreFileCodec.decodeChangeLog(buffer, version: version, path: path, linesBefore: 0, columnsBefore: 0)
            }
        } catch {
            // Read again with the lines before the section counted, so the error names the line
            // and column in the file (counted only on this path: a good log never needs them).
            let (lines, columns) = try position(of: range.lowerBound)
            return try bytes.withUnsafeBufferPointer { buffer throws(StorageError) in
                try StoreFileCodec.decodeChangeLog(buffer, version: version, path: path, linesBefore: lines, columnsBefore: columns)
            }
        }
    }

    private func read(_ range: Range<Int>) throws(StorageError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: range.count)
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, $0.count - done, off_t(range.lowerBound + done)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                throw .unreadable(path: path, reason: count < 0 ? String(cString: strerror(errno)) : "the file ended early")
            }
            done += count
        }
        return bytes
    }

    /// Newlines before `offset`, and the bytes between the last of them and `offset`.
    private func position(of offset: Int) throws(StorageError) -> (lines: Int, columns: Int) {
        var lines = 0
        var lineStart = 0
        var start = 0
        while start < offset {
            let end = min(start + (1 << 20), offset)
            let chunk = try read(start..<end)
            for (index, byte) in chunk.enumerated() where byte == UInt8(ascii: "\n") {
                lines += 1
                lineStart = start + index + 1
            }
            start = end
        }
        return (lines, offset - lineStart)
    }

    private func entries(notBefore: Date?) -> [ChangeLogEntry] {
        guard let all = try? load() else { return [] }
        guard let notBefore else { return all }
        return state.withLock { state in
            if let filtered = state.filtered, filtered.notBefore == notBefore { return filtered.entries }
            let entries = all.filter { $0.timestamp >= notBefore }
            state.filtered = (notBefore, entries)
            return entries
        }
    }

    // MARK: ChangeLogSource

    func changeLogCount(notBefore: Date?) -> Int {
        entries(notBefore: notBefore).count
    }

    func changeLogEntries(notBefore: Date?, offset: Int, limit: Int) -> [ChangeLogEntry] {
        let all = entries(notBefore: notBefore)
        guard offset < all.count, limit > 0 else { return [] }
        return Array(all[offset..<min(all.count, offset + limit)])
    }

    func changeLogEntries(from: Date?, to: Date?, newestFirst: Bool, limit: Int?) -> [ChangeLogEntry] {
        let all = entries(notBefore: nil)
        let wanted = limit ?? Int.max
        var result: [ChangeLogEntry] = []
        func take(_ entry: ChangeLogEntry) -> Bool {
            if let from, entry.timestamp < from { return true }
            if let to, entry.timestamp > to { return true }
            result.append(entry)
            return result.count < wanted
        }
        guard wanted > 0 else { return [] }
        if newestFirst {
            for entry in all.reversed() where !take(entry) { break }
        } else {
            for entry in all where !take(entry) { break }
        }
        return result
    }

    func containsChangeLogEntry(_ id: ChangeLogEntryID) -> Bool {
        entries(notBefore: nil).contains { $0.id == id }
    }
}
