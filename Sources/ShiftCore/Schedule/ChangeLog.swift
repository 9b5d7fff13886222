import Foundation

/// The change log: entries in commit order.
///
/// Stored as sealed chunks plus a tail so that copying a schedule (every mutation builds a
/// proposed copy) costs a few pointers, not a copy of every entry.
public struct ChangeLog: RandomAccessCollection, Hashable, Sendable {
    private static let chunkSize = 1024
    private var chunks: [[ChangeLogEntry]] = []
    private var tail: [ChangeLogEntry] = []

    public init() {}

    public init(_ entries: some Sequence<ChangeLogEntry>) {
        for entry in entries { append(entry) }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { chunks.count * ChangeLog.chunkSize + tail.count }

    public subscript(position: Int) -> ChangeLogEntry {
        let chunk = position / ChangeLog.chunkSize
        return chunk < chunks.count ? chunks[chunk][position % ChangeLog.chunkSize] : tail[position - chunks.count * ChangeLog.chunkSize]
    }

    public mutating func append(_ entry: ChangeLogEntry) {
        tail.append(entry)
        if tail.count == ChangeLog.chunkSize {
            chunks.append(tail)
            tail = []
            tail.reserveCapacity(ChangeLog.chunkSize)
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
