import Foundation
import HashTreeCollections
import Synchronization

/// The change log: entries in commit order.
///
/// Held in memory as sealed chunks of 256 entries in a persistent map plus a tail chunk that the
/// copies of a log share. Every mutation appends to the proposed copy of the schedule; a copy that
/// ends where the tail's written part ends appends in place (no copy of the tail, no allocation
/// per entry); a copy that ends before (another copy appended past it) takes its own tail first.
///
/// Over a `ChangeLogSource` (a SQLite or PostgreSQL store, or a JSON store's unread section) the stored entries stay in the source and only the
/// entries a mutation appends are held here, after them; a prune is remembered as a cutoff
/// (`prunedBefore`) that hides the source's older entries until the repository deletes them.
public struct ChangeLog: RandomAccessCollection, Hashable, Sendable {
    private static let chunkSize = 256
    private static let pageSize = 4096

    /// Up to `capacity` entries, shared by the logs that hold it. Slots are written once, in
    /// order, by the log that claims them; a log reads only the slots it claimed or inherited,
    /// which were written before it existed.
    private final class Chunk: @unchecked Sendable {
        let slots: UnsafeMutablePointer<ChangeLogEntry>
        let capacity: Int
        /// Slots claimed so far (only grows).
        private let claimed: Atomic<Int>

        init(capacity: Int) {
            self.capacity = capacity
            slots = .allocate(capacity: capacity)
            claimed = Atomic(0)
        }

        /// A chunk holding the first `count` entries of `other`.
        convenience init(copying count: Int, of other: Chunk, capacity: Int) {
            self.init(capacity: capacity)
            slots.initialize(from: other.slots, count: count)
            claimed.store(count, ordering: .releasing)
        }

        deinit {
            // Every claimed slot was written before the claiming log let go of the chunk.
            slots.deinitialize(count: claimed.load(ordering: .acquiring))
            slots.deallocate()
        }

        /// Claims slot `index` for the log that ends there; false when another log sharing this
        /// chunk claimed it first.
        func claim(_ index: Int) -> Bool {
            index < capacity && claimed.compareExchange(expected: index, desired: index + 1, ordering: .acquiringAndReleasing).exchanged
        }
    }

    private var chunks: TreeDictionary<Int, Chunk> = [:]
    private var tail: Chunk?
    private var tailCount = 0
    private var source: (any ChangeLogSource)?
    /// Entries older than this were pruned in this log (a source's entries are deleted when the
    /// repository commits it).
    public private(set) var prunedBefore: Date?

    public init() {}

    public init(_ entries: some Sequence<ChangeLogEntry>) {
        for entry in entries { append(entry) }
    }

    /// The log a source holds, with nothing appended yet.
    public init(source: any ChangeLogSource) {
        self.source = source
    }

    /// Reads what the source deferred (a JSON store's log section) and throws what it met. A
    /// command that shows or writes the log calls it first, so a damaged log is an error.
    public func prepare() throws {
        try source?.prepare()
    }

    /// Gets ready to list entries (`ChangeLogSource.prepareToList`): a command that only shows
    /// some of the log calls it instead of `prepare()`, then `takeFailure()` after reading them.
    public func prepareToList() throws {
        try source?.prepareToList()
    }

    /// The first entry the source could not read since the last call, and forgets it.
    public func takeFailure() -> (any Error)? {
        source?.takeLogFailure()
    }

    private var localCount: Int { chunks.count * ChangeLog.chunkSize + tailCount }
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
        if chunk < chunks.count { return chunks[chunk]!.slots[position % ChangeLog.chunkSize] }
        return tail!.slots[position - chunks.count * ChangeLog.chunkSize]
    }

    /// Walks the log in order; a source's entries are read a page at a time.
    public struct Iterator: IteratorProtocol {
        private let log: ChangeLog
        private var page: [ChangeLogEntry] = []
        private var pagePosition = 0
        private var cursor: ChangeLogCursor?
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
                let next = log.source!.changeLogPage(notBefore: log.prunedBefore, after: cursor, limit: ChangeLog.pageSize)
                page = next.entries
                cursor = next.next
                pagePosition = 0
                if page.isEmpty { sourceDone = true }
            }
            guard localPosition < log.localCount else { return nil }
            defer { localPosition += 1 }
            return log.localEntry(localPosition)
        }
    }

    public func makeIterator() -> Iterator { Iterator(self) }

    /// Appends entries in order.
    public mutating func append(contentsOf entries: some Collection<ChangeLogEntry>) {
        for entry in entries { append(entry) }
    }

    public mutating func append(_ entry: ChangeLogEntry) {
        if tailCount == ChangeLog.chunkSize {
            chunks[chunks.count] = tail!
            tail = nil
            tailCount = 0
        }
        if tail?.claim(tailCount) != true {
            // No tail yet, a full small one, or another copy of this log wrote past where this one
            // ends: this copy takes a tail of its own. A short log's first tail starts small and
            // doubles up to a chunk; after that, tails are whole chunks.
            let own: Chunk
            if let tail {
                let capacity = tailCount == tail.capacity ? Swift.min(tail.capacity * 2, ChangeLog.chunkSize) : tail.capacity
                own = Chunk(copying: tailCount, of: tail, capacity: capacity)
            } else {
                own = Chunk(capacity: chunks.isEmpty ? 16 : ChangeLog.chunkSize)
            }
            _ = own.claim(tailCount)
            tail = own
        }
        (tail!.slots + tailCount).initialize(to: entry)
        tailCount += 1
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
