import Foundation
import ShiftCore
import Synchronization

/// The shifts and change log of a JSON store opened through its index file, for a `Schedule`
/// opened over it: the shifts are read from the index's columns as a command asks for them,
/// the change log from the store file's section (`JSONChangeLogSource`) the first time an
/// entry is asked for.
///
/// Every answer is the store as last opened or saved through the repository: a save hands the
/// source the index of what it wrote (`replace`), so a schedule rebased after the commit reads
/// the new shifts. Sources are read from several threads at once (the rule engine's workers);
/// the index is immutable and only the reference to it is guarded.
final class JSONScheduleSource: ScheduleSource {
    private struct State: Sendable {
        var index: StoreIndex
        var log: (any ChangeLogSource)?
    }

    private let state: Mutex<State>
    private let failure = Mutex<(any Error)?>(nil)

    init(index: StoreIndex, log: (any ChangeLogSource)?) {
        state = Mutex(State(index: index, log: log))
    }

    /// The index and log of the store as just saved.
    func replace(index: StoreIndex, log: (any ChangeLogSource)?) {
        state.withLock { $0 = State(index: index, log: log) }
    }

    var index: StoreIndex { state.withLock { $0.index } }
    private var log: (any ChangeLogSource)? { state.withLock { $0.log } }

    // MARK: Shifts

    var shiftCount: Int { index.shiftCount }

    /// The index is held in memory: every query is a few binary searches over its columns.
    var answersFromMemory: Bool { true }

    var shiftDateRange: ClosedRange<LocalDate>? {
        let index = index
        guard let first = index.columns.dates.first, let last = index.columns.dates.last else { return nil }
        return LocalDate(dayNumber: first)...LocalDate(dayNumber: last)
    }

    func shift(_ id: ShiftID) -> ScheduledShift? {
        let index = index
        return index.row(of: id).map { shift(index, $0) }
    }

    func shift(customEventIdentifier: String) -> ScheduledShift? {
        let index = index
        do {
            return try index.row(customEventIdentifier: customEventIdentifier).map { shift(index, $0) }
        } catch {
            remember(error)
            return nil
        }
    }

    func shifts(_ request: ShiftSourceRequest) -> [ScheduledShift] {
        let limit = request.limit ?? Int.max
        if request.from > request.to || limit <= 0 || request.shiftTypeIDs?.isEmpty == true { return [] }
        if request.unassignedOnly, request.personID != nil { return [] }
        let index = index
        let types = request.shiftTypeIDs.map { ids in ids.compactMap { index.typePositions[$0].map(UInt32.init) } }
        if types?.isEmpty == true { return [] }
        var result: [ScheduledShift] = []
        func take(_ row: Int) -> Bool {
            if let types, !types.contains(index.columns.types[row]) { return true }
            if request.unassignedOnly, index.columns.persons[row] != StoreIndex.noPerson { return true }
            result.append(shift(index, row))
            return result.count < limit
        }
        if let person = request.personID {
            guard let position = index.personPositions[person] else { return [] }
            let run = index.personRun(position, from: request.from, to: request.to)
            if request.newestFirst {
                for place in run.reversed() where !take(Int(index.columns.byPerson[place])) { break }
            } else {
                for place in run where !take(Int(index.columns.byPerson[place])) { break }
            }
        } else {
            let rows = index.rows(from: request.from, to: request.to)
            if request.newestFirst {
                for row in rows.reversed() where !take(row) { break }
            } else {
                for row in rows where !take(row) { break }
            }
        }
        return result
    }

    func shiftReferences(of person: PersonID, from: LocalDate, to: LocalDate) -> [ShiftReference] {
        let index = index
        guard let position = index.personPositions[person] else { return [] }
        return index.personRun(position, from: from, to: to).map(index.personReference)
    }

    func shiftCount(ofType type: ShiftTypeID) -> Int {
        let index = index
        return index.typePositions[type].map { Int(index.columns.typeCounts[$0]) } ?? 0
    }

    func shiftCount(of person: PersonID, from: LocalDate?) -> Int {
        let index = index
        guard let position = index.personPositions[person] else { return 0 }
        return index.personRun(position, from: from ?? .minimum, to: .maximum).count
    }

    func shifts(idPrefix: String, limit: Int) -> [ScheduledShift] {
        let index = index
        return index.rows(idPrefix: idPrefix, limit: limit).map { shift(index, $0) }
    }

    private func shift(_ index: StoreIndex, _ row: Int) -> ScheduledShift {
        do {
            return try index.shift(atRow: row)
        } catch {
            remember(error)
            // The shift without its extras: the failure taken afterwards fails the command.
            return index.columnShift(atRow: row)
        }
    }

    // MARK: Change log

    func changeLogCount(notBefore: Date?) -> Int {
        log?.changeLogCount(notBefore: notBefore) ?? 0
    }

    func changeLogEntries(notBefore: Date?, offset: Int, limit: Int) -> [ChangeLogEntry] {
        log?.changeLogEntries(notBefore: notBefore, offset: offset, limit: limit) ?? []
    }

    func changeLogEntries(from: Date?, to: Date?, newestFirst: Bool, limit: Int?) -> [ChangeLogEntry] {
        log?.changeLogEntries(from: from, to: to, newestFirst: newestFirst, limit: limit) ?? []
    }

    func containsChangeLogEntry(_ id: ChangeLogEntryID) -> Bool {
        log?.containsChangeLogEntry(id) ?? false
    }

    func prepare() throws {
        try log?.prepare()
    }

    func prepareToList() throws {
        try log?.prepareToList()
    }

    func takeLogFailure() -> (any Error)? {
        log?.takeLogFailure()
    }

    // MARK: Failures

    func takeFailure() -> (any Error)? {
        failure.withLock { failure in
            defer { failure = nil }
            return failure
        }
    }

    private func remember(_ error: StorageError) {
        failure.withLock { failure in
            if failure == nil { failure = error }
        }
    }
}
