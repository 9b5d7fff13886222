import Foundation
import HashTreeCollections

/// The change log: entries in commit order.
///
/// Held in memory as small sealed chunks in a persistent map plus a short tail, so that appending
/// to a copy (every mutation appends to the proposed copy of the schedule) copies at most one
/// short tail and one path of the map, never the whole log.
///
/// Over a `ScheduleSource` (a SQLite store) the stored entries stay in the source and only the
/// entries a mutation appends are held here, after them; a prune is remembered as a cutoff
/// (`prunedBefore`) that hides the source's older entries until the repository deletes them.
public struct ChangeLog: RandomAccessCollection, Hashable, Sendable {
    private static let chunkSize = 16
    private static let pageSize = 4096
    /// Entries are boxed so that copying a chunk or the tail copies pointers, not ~700-byte values.
    private final class Box: Sendable {
        let entry: ChangeLogEntry
        init(_ entry: ChangeLogEntry) { self.entry = entry }
    }

    private var chunks: TreeDictionary<Int, [Box]> = [:]
    private var tail: [Box] = []
    private var source: (any ScheduleSource)?
    /// Entries older than this were pruned in this log (a source's entries are deleted when the
    /// repository commits it).
    public private(set) var prunedBefore: Date?

    public init() {}

    public init(_ entries: some Sequence<ChangeLogEntry>) {
        for entry in entries { append(entry) }
    }

    /// The log a source holds, with nothing appended yet.
    public init(source: any ScheduleSource) {
        self.source = source
    }

    private var localCount: Int { chunks.count * ChangeLog.chunkSize + tail.count }
    private var sourceCount: Int { source?.changeLogCount(notBefore: prunedBefore) ?? 0 }

    public var startIndex: Int { 0 }
    public var endIndex: Int { sourceCount + localCount }

    public subscript(position: Int) -> ChangeLogEntry {
        var local = position
        if let source {
            let stored = sourceCount
            if position < stored {
                guard let entry = source.changeLogEntries(notBefore: prunedBefore, offset: position, limit: 1).first else {
                    preconditionFailure("change log position \(position) could not be read from the store")
                }
                return entry
            }
            local -= stored
        }
        return localEntry(local)
    }

    private func localEntry(_ position: Int) -> ChangeLogEntry {
        let chunk = position / ChangeLog.chunkSize
        let box = chunk < chunks.count ? chunks[chunk]![position % ChangeLog.chunkSize] : tail[position - chunks.count * ChangeLog.chunkSize]
        return box.entry
    }

    /// Walks the log in order; a source's entries are read a page at a time.
    public struct Iterator: IteratorProtocol {
        private let log: ChangeLog
        private var page: [ChangeLogEntry] = []
        private var pagePosition = 0
        private var sourceOffset = 0
        private var sourceDone: Bool
        private var localPosition = 0

        fileprivate init(_ log: ChangeLog) {
            self.log = log
            sourceDone = log.source == nil
        }

        public mutating func next() -> ChangeLogEntry? {
            while !sourceDone {
                if pagePosition < page.count {
                    defer { pagePosition += 1 }
                    return page[pagePosition]
                }
                page = log.source!.changeLogEntries(notBefore: log.prunedBefore, offset: sourceOffset, limit: ChangeLog.pageSize)
                pagePosition = 0
                sourceOffset += page.count
                if page.isEmpty { sourceDone = true }
            }
            guard localPosition < log.localCount else { return nil }
            defer { localPosition += 1 }
            return log.localEntry(localPosition)
        }
    }

    public func makeIterator() -> Iterator { Iterator(self) }

    /// Appends entries in order (whole chunks at a time once the tail is full).
    public mutating func append(contentsOf entries: some Collection<ChangeLogEntry>) {
        var rest = entries[...]
        while !rest.isEmpty, !tail.isEmpty {
            append(rest.removeFirst())
        }
        while rest.count >= ChangeLog.chunkSize {
            chunks[chunks.count] = rest.prefix(ChangeLog.chunkSize).map(Box.init)
            rest = rest.dropFirst(ChangeLog.chunkSize)
        }
        for entry in rest { append(entry) }
    }

    public mutating func append(_ entry: ChangeLogEntry) {
        tail.append(Box(entry))
        if tail.count == ChangeLog.chunkSize {
            chunks[chunks.count] = tail
            tail = []
        }
    }

    /// Whether an entry with this id is in the log.
    public func contains(id: ChangeLogEntryID) -> Bool {
        for position in 0..<localCount where localEntry(position).id == id { return true }
        // An id a prune in this log hid from the source still counts as taken: ids are never reused.
        return source?.containsChangeLogEntry(id) ?? false
    }

    /// Entries in a time range (inclusive bounds), oldest or newest first, at most `limit`.
    public func entries(from: Date? = nil, to: Date? = nil, newestFirst: Bool = false, limit: Int? = nil) -> [ChangeLogEntry] {
        var result: [ChangeLogEntry] = []
        let wanted = limit ?? Int.max
        guard wanted > 0 else { return [] }
        func keep(_ entry: ChangeLogEntry) -> Bool {
            if let from, entry.timestamp < from { return false }
            if let to, entry.timestamp > to { return false }
            return true
        }
        func stored(_ limit: Int?) -> [ChangeLogEntry] {
            guard let source else { return [] }
            let lower = [from, prunedBefore].compactMap { $0 }.max()
            if let lower, let to, lower > to { return [] }
            return source.changeLogEntries(from: lower, to: to, newestFirst: newestFirst, limit: limit)
        }
        if !newestFirst { result = stored(limit) }
        let positions = newestFirst ? AnySequence((0..<localCount).reversed()) : AnySequence(0..<localCount)
        for position in positions where result.count < wanted {
            let entry = localEntry(position)
            if keep(entry) { result.append(entry) }
        }
        if newestFirst, result.count < wanted { result += stored(limit.map { $0 - result.count }) }
        return result
    }

    /// Drops the entries older than `cutoff` and returns how many went. Over a source, its entries
    /// are hidden now and deleted when the repository commits this log.
    @discardableResult
    public mutating func prune(before cutoff: Date) -> Int {
        var removed = 0
        if source != nil {
            let effective = Swift.max(cutoff, prunedBefore ?? cutoff)
            let previous = sourceCount
            prunedBefore = effective
            removed = previous - sourceCount
        } else {
            prunedBefore = Swift.max(cutoff, prunedBefore ?? cutoff)
        }
        var kept = ChangeLog()
        kept.source = source
        kept.prunedBefore = prunedBefore
        for position in 0..<localCount {
            let entry = localEntry(position)
            if entry.timestamp < cutoff { removed += 1 } else { kept.append(entry) }
        }
        self = kept
        return removed
    }

    /// The same log over the source as it is after the repository stored this one's entries.
    func rebased() -> ChangeLog {
        guard let source else { return self }
        return ChangeLog(source: source)
    }

    public static func == (lhs: ChangeLog, rhs: ChangeLog) -> Bool { lhs.elementsEqual(rhs) }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for entry in self { hasher.combine(entry) }
    }
}
