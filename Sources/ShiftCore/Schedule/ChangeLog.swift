import Foundation
import HashTreeCollections

/// The change log: entries in commit order.
///
/// Stored as small sealed chunks in a persistent map plus a short tail, so that appending to a
/// copy (every mutation appends to the proposed copy of the schedule) copies at most one short
/// tail and one path of the map, never the whole log.
public struct ChangeLog: RandomAccessCollection, Hashable, Sendable {
    private static let chunkSize = 16
    /// Entries are boxed so that copying a chunk or the tail copies pointers, not ~700-byte values.
    private final class Box: Sendable {
        let entry: ChangeLogEntry
        init(_ entry: ChangeLogEntry) { self.entry = entry }
    }

    private var chunks: TreeDictionary<Int, [Box]> = [:]
    private var tail: [Box] = []

    public init() {}

    public init(_ entries: some Sequence<ChangeLogEntry>) {
        for entry in entries { append(entry) }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { chunks.count * ChangeLog.chunkSize + tail.count }

    public subscript(position: Int) -> ChangeLogEntry {
        let chunk = position / ChangeLog.chunkSize
        let box = chunk < chunks.count ? chunks[chunk]![position % ChangeLog.chunkSize] : tail[position - chunks.count * ChangeLog.chunkSize]
        return box.entry
    }

    public mutating func append(_ entry: ChangeLogEntry) {
        tail.append(Box(entry))
        if tail.count == ChangeLog.chunkSize {
            chunks[chunks.count] = tail
            tail = []
        }
    }

    /// Entries in a time range (inclusive bounds), oldest or newest first, at most `limit`.
    public func entries(from: Date? = nil, to: Date? = nil, newestFirst: Bool = false, limit: Int? = nil) -> [ChangeLogEntry] {
        var result: [ChangeLogEntry] = []
        let wanted = limit ?? Int.max
        guard wanted > 0 else { return [] }
        let order: AnySequence<Int> = newestFirst ? AnySequence(indices.reversed()) : AnySequence(indices)
        for index in order {
            let entry = self[index]
            if let from, entry.timestamp < from { continue }
            if let to, entry.timestamp > to { continue }
            result.append(entry)
            if result.count == wanted { break }
        }
        return result
    }

    /// A log without the entries `shouldRemove` selects; the order of the rest is kept.
    public func removing(where shouldRemove: (ChangeLogEntry) -> Bool) -> ChangeLog {
        var kept = ChangeLog()
        for entry in self where !shouldRemove(entry) { kept.append(entry) }
        return kept
    }

    public static func == (lhs: ChangeLog, rhs: ChangeLog) -> Bool { lhs.elementsEqual(rhs) }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for entry in self { hasher.combine(entry) }
    }
}
