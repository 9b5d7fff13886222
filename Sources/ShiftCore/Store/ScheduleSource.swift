import Foundation

/// Where a change log's stored entries live when they are not held in memory: the log table of a
/// SQLite or PostgreSQL store, or the change-log section of a JSON store, decoded only when a
/// command asks for an entry (`validate`, listings and `solve` never do).
///
/// Its methods do not throw; `prepare()` reads what is deferred and throws what it met, so that
/// a command that needs the log (`log`, any save) reports a damaged one instead of seeing it empty.
/// Where a walk through a source's change log is: how many entries it passed, and the storage
/// key of the last (its sequence number), when the source pages by key.
public struct ChangeLogCursor: Sendable, Hashable {
    public var position: Int
    public var key: Int64?

    public init(position: Int, key: Int64? = nil) {
        self.position = position
        self.key = key
    }
}

public protocol ChangeLogSource: AnyObject, Sendable {
    /// How many entries the log holds (only those with `timestamp >= notBefore`, when given).
    func changeLogCount(notBefore: Date?) -> Int

    /// Entries in commit order, skipping `offset` of them, at most `limit` (only those with
    /// `timestamp >= notBefore`, when given).
    func changeLogEntries(notBefore: Date?, offset: Int, limit: Int) -> [ChangeLogEntry]

    /// The next page of entries in commit order (only those with `timestamp >= notBefore`, when
    /// given): at most `limit` after `cursor` (nil: from the first), and the cursor after them.
    /// Walking the whole log page by page costs one indexed range read a page where a source
    /// implements it by key; the default counts the pages by offset.
    func changeLogPage(notBefore: Date?, after cursor: ChangeLogCursor?, limit: Int) -> (entries: [ChangeLogEntry], next: ChangeLogCursor)

    /// Entries with `from <= timestamp <= to` (each bound optional), in commit order or the
    /// reverse, at most `limit`.
    func changeLogEntries(from: Date?, to: Date?, newestFirst: Bool, limit: Int?) -> [ChangeLogEntry]

    /// Whether the log holds an entry with this id.
    func containsChangeLogEntry(_ id: ChangeLogEntryID) -> Bool

    /// Reads whatever the source deferred and throws the error it met (a damaged section).
    func prepare() throws

    /// Gets ready to list entries (`log`): what `prepare()` does, unless the source can read
    /// entries one at a time (a JSON store's log section: it finds where each entry lies, and
    /// decodes only those asked for). An entry that cannot be read then is said by
    /// `takeLogFailure()`. A command that writes the log calls `prepare()` instead.
    func prepareToList() throws

    /// The first entry that could not be read since the last call (after `prepareToList()`), and
    /// forgets it.
    func takeLogFailure() -> (any Error)?
}

extension ChangeLogSource {
    public func prepare() throws {}
    public func prepareToList() throws { try prepare() }
    public func takeLogFailure() -> (any Error)? { nil }
}

/// Where the big parts of a schedule live when they are not held in memory: the scheduled
/// shifts and the change log of a SQLite store, read on demand.
///
/// A `Schedule` opened over a source keeps its small parts (settings, locations, shift types,
/// people, demand, availability) in memory and asks the source for shifts and log entries. A
/// mutation's changes stay in memory as an overlay on top of the source until the repository
/// commits them, so the rules see the proposed schedule while the stored one is untouched, and
/// one mutation costs the same whether the store holds ten shifts or a million.
///
/// Everything a source returns is as of the repository's last commit. Its methods do not throw:
/// a read that fails returns nothing and is remembered, and `takeFailure()` hands it over. The
/// store asks for it after the rules ran and before it commits, so a failed read rejects the
/// mutation instead of letting a rule pass on missing data.
///
/// Sources are read from several threads at once (the rule engine's workers).
public protocol ScheduleSource: ChangeLogSource {
    // MARK: Shifts

    /// How many shifts the store holds.
    var shiftCount: Int { get }

    /// Earliest and latest shift date (nil when there are none). A bound: it may be wider.
    var shiftDateRange: ClosedRange<LocalDate>? { get }

    /// The shift with this id.
    func shift(_ id: ShiftID) -> ScheduledShift?

    /// The shift whose custom calendar UID (`eventIdentifier`, when it is not the default
    /// `<id>@shiftscheduler`) is this one.
    func shift(customEventIdentifier: String) -> ScheduledShift?

    /// The shifts dated `from`…`to` (inclusive) that pass the request's filters, ordered by date
    /// then id (both descending for `newestFirst`), at most `limit`.
    func shifts(_ request: ShiftSourceRequest) -> [ScheduledShift]

    /// A person's shifts dated `from`…`to` (inclusive), as (date, id, type), by date then id.
    func shiftReferences(of person: PersonID, from: LocalDate, to: LocalDate) -> [ShiftReference]

    /// How many shifts have this type.
    func shiftCount(ofType type: ShiftTypeID) -> Int

    /// How many shifts a person has, dated `from` or later when given.
    func shiftCount(of person: PersonID, from: LocalDate?) -> Int

    /// How many shifts each person with any has, in one pass (people without shifts are left
    /// out), or nil when the source has no cheaper way than asking person by person. A
    /// database answers it in one query instead of a round trip per person.
    func shiftCountsByPerson() -> [PersonID: Int]?

    /// Shifts whose id, as lowercase text, starts with `prefix`, in id order, at most `limit`.
    func shifts(idPrefix: String, limit: Int) -> [ScheduledShift]

    /// Whether the source answers from memory (a JSON store's index, read whole), so that a
    /// query costs about what it costs on a schedule held in memory. Whole-schedule work then
    /// runs over the source rather than reading every shift into memory first. False unless a
    /// source says otherwise (a database answers each query with a round trip).
    var answersFromMemory: Bool { get }

    // MARK: Failures

    /// The first read that failed since the last call (nil when all succeeded), and forgets it.
    func takeFailure() -> (any Error)?
}

/// A query a source serves: a date range and the filters that map to its indexes.
public struct ShiftSourceRequest: Hashable, Sendable {
    public var from: LocalDate
    public var to: LocalDate
    /// Only shifts of these types (nil: any). Never empty.
    public var shiftTypeIDs: [ShiftTypeID]?
    public var personID: PersonID?
    public var unassignedOnly: Bool
    public var newestFirst: Bool
    public var limit: Int?

    public init(
        from: LocalDate, to: LocalDate, shiftTypeIDs: [ShiftTypeID]? = nil, personID: PersonID? = nil,
        unassignedOnly: Bool = false, newestFirst: Bool = false, limit: Int? = nil
    ) {
        self.from = from
        self.to = to
        self.shiftTypeIDs = shiftTypeIDs
        self.personID = personID
        self.unassignedOnly = unassignedOnly
        self.newestFirst = newestFirst
        self.limit = limit
    }
}

/// A shift's date, id and type: what totals over a person's shifts need.
public struct ShiftReference: Hashable, Sendable, Comparable {
    public var date: LocalDate
    public var id: ShiftID
    public var type: ShiftTypeID

    public init(date: LocalDate, id: ShiftID, type: ShiftTypeID) {
        self.date = date
        self.id = id
        self.type = type
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.date != rhs.date ? lhs.date < rhs.date : lhs.id < rhs.id }
}

extension ScheduleSource {
    public func shiftCountsByPerson() -> [PersonID: Int]? { nil }
    public var answersFromMemory: Bool { false }
}

extension ChangeLogSource {
    /// Pages by offset (`changeLogEntries(notBefore:offset:limit:)`).
    public func changeLogPage(notBefore: Date?, after cursor: ChangeLogCursor?, limit: Int) -> (entries: [ChangeLogEntry], next: ChangeLogCursor) {
        let position = cursor?.position ?? 0
        let entries = changeLogEntries(notBefore: notBefore, offset: position, limit: limit)
        return (entries, ChangeLogCursor(position: position + entries.count))
    }
}
