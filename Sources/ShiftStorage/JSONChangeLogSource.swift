import Foundation
import ShiftCore
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The change-log section of a JSON store, left unread when the store was opened and decoded
/// the first time a command asks for an entry (a save, `migrate`). `log` decodes only the
/// entries it shows: `prepareToList` finds where each entry lies in one pass over the section's
/// bytes (following strings and nesting, decoding nothing), and each page is decoded from its
/// own bytes (a million entries: `log --limit 20` in about a second instead of four and a half,
/// and 116 MiB instead of 1 GiB).
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
        /// Where each entry lies in the file (`prepareToList`), while the log is not decoded whole.
        var entryRanges: [Range<Int>]?
        /// The first entry that could not be read since `takeLogFailure`.
        var failure: StorageError?
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

    func prepareToList() throws {
        if state.withLock({ $0.loaded != nil || $0.entryRanges != nil }) { return }
        if let ranges = try findEntries() {
            state.withLock { $0.entryRanges = ranges }
        } else {
            // Not an array of objects as written: decoding it whole names what is wrong.
            _ = try load()
        }
    }

    func takeLogFailure() -> (any Error)? {
        state.withLock { state in
            defer { state.failure = nil }
            return state.failure
        }
    }

    /// Where each entry of the section lies, from one pass over its bytes (read a megabyte at a
    /// time) that follows strings, escapes and nesting without decoding anything; nil when the
    /// section is not an array of objects separated by commas.
    private func findEntries() throws(StorageError) -> [Range<Int>]? {
        let (quote, backslash, comma) = (UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: ","))
        let (openBrace, closeBrace, openBracket, closeBracket) = (UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "["), UInt8(ascii: "]"))
        var ranges: [Range<Int>] = []
        var depth = 0, inString = false, escaped = false, start = 0
        // Outside entries: 0 before the array, 1 wanting an entry or the end, 2 wanting a comma
        // or the end, 3 wanting an entry (after a comma), 4 after the array.
        var expecting = 0
        var offset = range.lowerBound
        while offset < range.upperBound {
            let end = min(offset + (1 << 20), range.upperBound)
            let chunk = try read(offset..<end)
            let wellFormed = chunk.withUnsafeBufferPointer { bytes -> Bool in
                for i in 0..<bytes.count {
                    let byte = bytes[i]
                    if inString {
                        if escaped { escaped = false } else if byte == backslash { escaped = true } else if byte == quote { inString = false }
                        continue
                    }
                    if depth >= 2 {
                        if byte == quote { inString = true } else if byte == openBrace || byte == openBracket { depth += 1 } else if byte == closeBrace || byte == closeBracket {
                            depth -= 1
                            if depth == 1 {
                                guard byte == closeBrace else { return false }
                                ranges.append(start..<offset + i + 1)
                                expecting = 2
                            }
                        }
                        continue
                    }
                    switch byte {
                    case 0x20, 0x0A, 0x0D, 0x09: continue
                    case openBracket where expecting == 0: (depth, expecting) = (1, 1)
                    case openBrace where expecting == 1 || expecting == 3: (depth, start) = (2, offset + i)
                    case comma where expecting == 2: expecting = 3
                    case closeBracket where expecting == 1 || expecting == 2: (depth, expecting) = (0, 4)
                    default: return false
                    }
                }
                return true
            }
            guard wellFormed else { return nil }
            offset = end
        }
        return expecting == 4 ? ranges : nil
    }

    /// The entries at `positions` (in the section's order), each decoded from its own bytes; nil
    /// when one cannot be: the whole section is then decoded, and its error (naming the line and
    /// column in the file) is kept for `takeLogFailure`.
    private func decodeEntries(_ positions: Range<Int>, of ranges: [Range<Int>]) -> [ChangeLogEntry]? {
        guard !positions.isEmpty else { return [] }
        do throws(StorageError) {
            var bytes: [UInt8] = [UInt8(ascii: "[")]
            for position in positions {
                if position > positions.lowerBound { bytes.append(UInt8(ascii: ",")) }
                bytes += try read(ranges[position])
            }
            bytes.append(UInt8(ascii: "]"))
            return try bytes.withUnsafeBufferPointer { buffer throws(StorageError) in
                try StoreFileCodec.decodeChangeLog(buffer, version: version, path: path, linesBefore: 0, columnsBefore: 0)
            }
        } catch {
            do throws(StorageError) {
                let all = try load()
                return positions.upperBound <= all.count ? Array(all[positions]) : nil
            } catch {
                state.withLock { state in
                    if state.failure == nil { state.failure = error }
                }
                return nil
            }
        }
    }

    /// The entries' places while the log is listed entry by entry (nil once it is decoded whole).
    private var unreadEntries: [Range<Int>]? {
        state.withLock { $0.loaded == nil ? $0.entryRanges : nil }
    }

    /// At most `limit` entries within `from`…`to`, oldest or newest first, decoded a page at a
    /// time from the end they are taken from: a page of what is still wanted, growing (up to
    /// 1,024) while the range skips entries.
    private func listed(_ ranges: [Range<Int>], from: Date?, to: Date?, newestFirst: Bool, limit: Int) -> [ChangeLogEntry] {
        var result: [ChangeLogEntry] = []
        var next = newestFirst ? ranges.count : 0
        var page = min(limit, 64)
        while result.count < limit {
            let positions = newestFirst ? max(0, next - page)..<next : next..<min(ranges.count, next + page)
            if positions.isEmpty { break }
            guard let entries = decodeEntries(positions, of: ranges) else { return [] }
            for entry in newestFirst ? Array(entries.reversed()) : entries where result.count < limit {
                if let from, entry.timestamp < from { continue }
                if let to, entry.timestamp > to { continue }
                result.append(entry)
            }
            next = newestFirst ? positions.lowerBound : positions.upperBound
            page = min(1_024, max(limit - result.count, page * 2))
        }
        return result
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
        if notBefore == nil, let ranges = unreadEntries { return ranges.count }
        return entries(notBefore: notBefore).count
    }

    func changeLogEntries(notBefore: Date?, offset: Int, limit: Int) -> [ChangeLogEntry] {
        if notBefore == nil, limit <= 4_096, let ranges = unreadEntries {
            guard offset < ranges.count, limit > 0 else { return [] }
            return decodeEntries(offset..<min(ranges.count, offset + limit), of: ranges) ?? []
        }
        let all = entries(notBefore: notBefore)
        guard offset < all.count, limit > 0 else { return [] }
        return Array(all[offset..<min(all.count, offset + limit)])
    }

    func changeLogEntries(from: Date?, to: Date?, newestFirst: Bool, limit: Int?) -> [ChangeLogEntry] {
        if let limit, let ranges = unreadEntries {
            return limit > 0 ? listed(ranges, from: from, to: to, newestFirst: newestFirst, limit: limit) : []
        }
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
