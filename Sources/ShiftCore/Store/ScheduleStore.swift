import Foundation

/// What a committed mutation did.
public struct CommitResult: Sendable {
    public let mutation: Mutation
    public let changes: [Change]
    /// Violations below `.error` (warnings, penalties) that did not block the commit.
    public let violations: [Violation]
    public let logEntries: [ChangeLogEntry]
    public let revision: StoreRevision
}

/// The one funnel through which a schedule changes.
///
/// `apply` checks the core invariants, builds the proposed schedule, runs every validator (the
/// Lua rules) against it, and then either commits the whole change (data and change log in one
/// atomic save) or throws and leaves both the repository and this store exactly as they were.
/// Observers hear about each commit.
public actor ScheduleStore {
    public nonisolated let repository: any ScheduleRepository
    public private(set) var schedule: Schedule
    public private(set) var revision: StoreRevision
    public var actingUser: UserProfile
    private var validators: [any ScheduleValidator]
    /// Who may change what, checked before the rules (nil: anyone may change anything).
    private var permissions: Permissions?
    /// Who the repository's database says the connection is, when it decides that itself
    /// (PostgreSQL with database roles): set by whoever opened the store.
    public private(set) var databaseIdentity: DatabaseIdentity?
    /// The store's clock and id source: what its change-log entries are stamped and named with,
    /// and what a `RequestWorkflow` planning for it uses.
    public nonisolated let environment: StoreEnvironment
    private var observers: [UUID: @Sendable (Schedule, CommitResult?) -> Void] = [:]
    /// Commits through the repository by other stores, while anyone observes this one.
    private var commitObservation: (any CommitObservation)?

    /// Opens a store over a repository (reads it once).
    public init(
        repository: any ScheduleRepository, validators: [any ScheduleValidator] = [],
        actingUser: UserProfile = .processUser, environment: StoreEnvironment = .live
    ) throws {
        self.repository = repository
        (schedule, revision) = try repository.load()
        self.validators = validators
        self.actingUser = actingUser
        self.environment = environment
    }

    public func setValidators(_ validators: [any ScheduleValidator]) { self.validators = validators }

    /// Enforces roles (`Permissions`) on every later `apply`, or stops enforcing them (nil).
    public func setPermissions(_ permissions: Permissions?) { self.permissions = permissions }

    /// Changes who later commits are recorded as (the change log's user).
    public func setActingUser(_ user: UserProfile) { actingUser = user }

    /// Records who the database says the connection is (`IdentifyingRepository`), for request
    /// plans that must stay within what the database allows (`RequestWorkflow.databaseStaff`).
    public func setDatabaseIdentity(_ identity: DatabaseIdentity?) { databaseIdentity = identity }

    /// Applies a mutation through the funnel.
    ///
    /// - Parameters:
    ///   - mutation: the change; a `.batch` commits whole or not at all.
    ///   - user: who makes it (defaults to `actingUser`), recorded in the change log.
    ///   - reason: the change log's reason for every shift change the mutation gives none (a
    ///     generated rotation: each new shift's entry says why it is there).
    ///   - precondition: a check of the current schedule made under the write lock, after
    ///     other writers' commits were read and before anything is proposed: whatever it throws
    ///     ends the call with nothing written. For checks that must hold when the change
    ///     commits (a location is still unused, a shift still has the type the user saw).
    ///   - confirmation: awaited once the rules have passed, before anything is written:
    ///     whatever it throws ends the call with nothing written. For work that runs beside the
    ///     proposal (an import checks its file as a whole on another core meanwhile).
    /// - Returns: the net changes, non-blocking violations and the change-log entries written
    ///   (the store's own and any `recordChangeLogEntry` appended).
    /// - Throws: `ScheduleError` for broken invariants (naming the field), `.rejected` with the
    ///   rules' violations, `.validatorFailed` when a rule could not run, `.lockTimeout`, the
    ///   precondition's error, or the repository's error when saving failed. In every case
    ///   nothing was written.
    ///
    /// A repository that lets writers run side by side (PostgreSQL) may end an attempt with a
    /// `RetryableStoreError` when another writer's commit conflicts with it; the mutation then
    /// runs again from the start (precondition and rules included) on the new state, at most
    /// `conflictAttempts` times.
    @discardableResult
    public func apply(
        _ mutation: Mutation, as user: UserProfile? = nil, reason: String? = nil, precondition: (@Sendable (Schedule) throws -> Void)? = nil,
        confirmation: (@Sendable () async throws -> Void)? = nil
    ) async throws -> CommitResult {
        var attempt = 1
        while true {
            do {
                return try await applyOnce(mutation, as: user, reason: reason, precondition: precondition, confirmation: confirmation)
            } catch let error as any RetryableStoreError {
                conflictsRetried += 1
                guard attempt < Self.conflictAttempts else { throw error }
                // 2, 4, 8… ms up to 128, each a random part of it, so that writers who collided
                // do not collide again in step.
                let ceiling = 1 << min(attempt + 1, 7)
                try await Task.sleep(for: .microseconds(Int.random(in: ceiling * 500...ceiling * 1000)))
                attempt += 1
            }
        }
    }

    /// How many times `apply` runs a mutation that keeps meeting conflicting writers.
    public static let conflictAttempts = 12

    /// Attempts of this store's mutations that met a conflicting writer (and ran again, or gave
    /// up after `conflictAttempts`): how much concurrent writers cost each other.
    public private(set) var conflictsRetried = 0

    private func applyOnce(
        _ mutation: Mutation, as user: UserProfile?, reason: String?, precondition: (@Sendable (Schedule) throws -> Void)?,
        confirmation: (@Sendable () async throws -> Void)?
    ) async throws -> CommitResult {
        try await repository.lockForWriting(timeout: environment.lockTimeout)
        defer { repository.unlockForWriting() }
        try refreshLocked()
        try precondition?(schedule)

        let user = user ?? actingUser
        let timestamp = Timestamp.truncated(environment.now())
        let source = schedule.source
        _ = source?.takeFailure()
        let base = try basis(for: mutation)
        let (proposed, changes) = try base.applying(mutation)
        // The proposal (two schedules copied in) is made only for what reads it: with no roles
        // and no rules, one mutation in memory is a few microseconds, and copies show.
        var violations: [Violation] = []
        if permissions != nil || !validators.isEmpty {
            let proposal = Proposal(mutation: mutation, changes: changes, before: base, after: proposed, user: user, timestamp: timestamp)
            try permissions?.authorize(proposal)
            if !validators.isEmpty { violations = try evaluate(proposal) }
        }
        // A read of the store that failed while proposing or checking: the rules may have
        // passed on missing data, so nothing is written.
        if let failure = source?.takeFailure() { throw failure }
        if violations.contains(where: { $0.severity == .error }) {
            throw ScheduleError.rejected(violations: violations)
        }
        try await confirmation?()

        var committed = proposed
        let logged = logEntries(for: changes, before: base, after: proposed, user: user, timestamp: timestamp, reason: reason)
        // A bulk change over a source was proposed on a copy held in memory, and the store reads
        // the schedule again after the commit: where the repository writes the summary's log
        // entries, entries appended to the copy would be dropped unread (a bulk import's
        // million would cost seconds).
        let reloads = source != nil && committed.source == nil
        if !(reloads && repository.savesLogFromSummary) { committed.changeLog.append(contentsOf: logged) }
        let recorded = changes.compactMap { change -> ChangeLogEntry? in
            if case let .changeLogRecorded(entry) = change { return entry }
            return nil
        }
        let entries = recorded.isEmpty ? logged : recorded + logged
        let newRevision = try repository.save(
            committed, summary: CommitSummary(mutation: mutation, changes: changes, logEntries: entries))
        // Over a source, the repository stored the overlay: read it from there from now on (after
        // a bulk change held in memory, the small parts are read again and the rest left there).
        if reloads {
            (schedule, revision) = try repository.load()
        } else {
            schedule = committed.rebased()
            revision = newRevision
        }
        let result = CommitResult(mutation: mutation, changes: changes, violations: violations, logEntries: entries, revision: newRevision)
        for observer in observers.values { observer(schedule, result) }
        return result
    }

    /// What a mutation would do, without writing: the changes and every violation (errors too).
    /// Throws `ScheduleError` for broken invariants or a failing validator.
    public func check(_ mutation: Mutation, as user: UserProfile? = nil) throws -> (changes: [Change], violations: [Violation]) {
        _ = schedule.source?.takeFailure()
        let base = try basis(for: mutation)
        let (proposed, changes) = try base.applying(mutation)
        let violations = try evaluate(Proposal(
            mutation: mutation, changes: changes, before: base, after: proposed, user: user ?? actingUser,
            timestamp: Timestamp.truncated(environment.now())))
        if let failure = schedule.source?.takeFailure() { throw failure }
        return (changes, violations)
    }

    /// Runs every validator's whole-schedule phase on the current schedule. A schedule over a
    /// source is read into memory once for it.
    public func validate() throws -> [Violation] {
        _ = schedule.source?.takeFailure()
        let whole = try schedule.materialized()
        if let failure = schedule.source?.takeFailure() { throw failure }
        var all: [Violation] = []
        for validator in validators {
            do { all += try validator.validate(whole) } catch {
                throw ScheduleError.validatorFailed(validator: validator.name, message: "\(error)")
            }
        }
        return all
    }

    /// A batch of at least this many changes is applied to the schedule read into memory once
    /// (an import of a million shifts then checks ids and runs the rules against memory, not
    /// against the store a million times); smaller ones to the source with an overlay.
    public static let bulkThreshold = 20_000

    /// The schedule a mutation is applied to: the current one, or for a bulk change over a
    /// source, the same read wholly into memory.
    private func basis(for mutation: Mutation) throws -> Schedule {
        guard schedule.source != nil, mutation.leafCount >= Self.bulkThreshold else { return schedule }
        return try schedule.materialized()
    }

    /// Drops change-log entries older than the store's retention policy (or `before`, when given).
    @discardableResult
    public func pruneChangeLog(before: Date? = nil) async throws -> Int {
        guard let cutoff = before ?? schedule.settings.changeLogRetention.cutoff(now: environment.now()) else { return 0 }
        let result = try await apply(.pruneChangeLog(before: cutoff))
        return result.changes.reduce(0) { total, change in
            if case let .changeLogPruned(removed) = change { return total + removed }
            return total
        }
    }

    /// Re-reads the repository if another writer committed since this store last read or wrote it.
    public func refresh() throws {
        guard try repository.revision() != revision else { return }
        (schedule, revision) = try repository.load()
        for observer in observers.values { observer(schedule, nil) }
    }

    // MARK: Observation

    /// The shifts a query selects now, and again after every commit (and refresh) until the
    /// stream is dropped.
    public func observe(_ query: ShiftQuery) -> AsyncStream<[ScheduledShift]> {
        let (stream, continuation) = AsyncStream.makeStream(of: [ScheduledShift].self, bufferingPolicy: .bufferingNewest(16))
        continuation.yield(schedule.shifts(query))
        addObserver(continuation) { schedule, _ in continuation.yield(schedule.shifts(query)) }
        return stream
    }

    /// The whole schedule now, and again after every commit (and refresh) until the stream is
    /// dropped. A `Schedule` is a value whose copies share storage, so each element costs O(1);
    /// a slow reader only sees the newest one.
    public func observe() -> AsyncStream<Schedule> {
        let (stream, continuation) = AsyncStream.makeStream(of: Schedule.self, bufferingPolicy: .bufferingNewest(1))
        continuation.yield(schedule)
        addObserver(continuation) { schedule, _ in continuation.yield(schedule) }
        return stream
    }

    /// Every commit made through this store, as it happens.
    public func commits() -> AsyncStream<CommitResult> {
        let (stream, continuation) = AsyncStream.makeStream(of: CommitResult.self, bufferingPolicy: .bufferingNewest(256))
        addObserver(continuation) { _, result in if let result { continuation.yield(result) } }
        return stream
    }

    private func addObserver<T>(_ continuation: AsyncStream<T>.Continuation, _ body: @escaping @Sendable (Schedule, CommitResult?) -> Void) {
        let id = environment.makeUUID()
        observers[id] = body
        if commitObservation == nil, let observing = repository as? any CommitObservingRepository {
            // Another store's commit: read it, and the observers hear of it (a commit of this
            // store's own finds the revision unchanged and does nothing).
            commitObservation = try? observing.observeCommits { [weak self] in
                guard let self else { return }
                Task { try? await self.refresh() }
            }
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            Task { await self.removeObserver(id) }
        }
    }

    private func removeObserver(_ id: UUID) {
        observers[id] = nil
        if observers.isEmpty {
            commitObservation?.cancel()
            commitObservation = nil
        }
    }

    // MARK: Funnel steps

    /// Under the write lock: pick up what other writers committed, so nothing of theirs is lost.
    private func refreshLocked() throws {
        guard try repository.revision() != revision else { return }
        (schedule, revision) = try repository.load()
    }

    private func evaluate(_ proposal: Proposal) throws -> [Violation] {
        var all: [Violation] = []
        for validator in validators {
            do { all += try validator.evaluate(proposal) } catch {
                throw ScheduleError.validatorFailed(validator: validator.name, message: "\(error)")
            }
        }
        return all
    }

    /// One entry per shift change; `reason` stands in where the change gives none. The shifts a
    /// commit creates with one reason are one entry when they are at least
    /// `ChangeLogEntry.batchThreshold`, in the place of the first of them.
    private func logEntries(
        for changes: [Change], before: Schedule, after: Schedule, user: UserProfile, timestamp: Date, reason defaultReason: String?
    ) -> [ChangeLogEntry] {
        // Shifts created with one reason are counted only where there can be enough of them
        // (one mutation's change needs no dictionary).
        var createdByReason: [String?: Int] = [:]
        if changes.count >= ChangeLogEntry.batchThreshold {
            for change in changes {
                if case let .shift(nil, _?, reason) = change { createdByReason[reason ?? defaultReason, default: 0] += 1 }
            }
        }
        let batched = createdByReason.isEmpty ? [] : Set(createdByReason.filter { $0.value >= ChangeLogEntry.batchThreshold }.keys)
        var batches: [String?: (position: Int, ids: [ShiftID], first: LocalDate, last: LocalDate)] = [:]
        var entries: [ChangeLogEntry] = []
        entries.reserveCapacity(batched.isEmpty ? changes.count : changes.count - createdByReason.values.reduce(0, +) + batched.count)
        func entry(_ changeType: ChangeType, date: LocalDate, old: ShiftSnapshot?, new: ShiftSnapshot?, reason: String?) -> ChangeLogEntry {
            ChangeLogEntry(
                id: ChangeLogEntryID(environment.makeUUID()), timestamp: timestamp, userId: user.userId,
                userDisplayName: user.displayName, changeType: changeType, scheduledShiftDate: date,
                oldShiftSnapshot: old, newShiftSnapshot: new, reason: reason)
        }
        for change in changes {
            guard case let .shift(old, new, ownReason) = change else { continue }
            let reason = ownReason ?? defaultReason
            if old == nil, let new, batched.contains(reason) {
                if batches[reason] == nil {
                    batches[reason] = (entries.count, [], new.date, new.date)
                    entries.append(entry(.created, date: new.date, old: nil, new: nil, reason: reason))
                }
                // In place: a copy taken out of the dictionary and put back would copy the list of
                // ids on every shift, and a million-shift import would take hours.
                batches[reason]!.ids.append(new.id)
                batches[reason]!.first = min(batches[reason]!.first, new.date)
                batches[reason]!.last = max(batches[reason]!.last, new.date)
                continue
            }
            let changeType: ChangeType = switch (old, new) {
            case (nil, _): .created
            case (_, nil): .deleted
            case let (old?, new?) where old.shiftTypeID != new.shiftTypeID: .switched
            case let (old?, new?) where old.personID != new.personID: .reassigned
            default: .updated
            }
            entries.append(entry(
                changeType, date: (new ?? old)!.date, old: old.map { before.snapshot(of: $0) ?? after.snapshot(of: $0)! },
                new: new.flatMap { after.snapshot(of: $0) }, reason: reason))
        }
        for batch in batches.values {
            entries[batch.position].scheduledShiftDate = batch.first
            entries[batch.position].createdShifts = CreatedShifts(shiftIDs: batch.ids, lastDate: batch.last)
        }
        return entries
    }
}

extension Mutation {
    /// The root of field paths in error messages (`shift.personID`, `batch[2].shift.date`).
    var fieldRoot: String {
        if case .batch = self { return "batch" }
        return ""
    }
}

extension Schedule {
    /// A snapshot of a shift as this schedule resolves its type, location and person.
    public func snapshot(of shift: ScheduledShift) -> ShiftSnapshot? {
        guard let type = shiftType(shift.shiftTypeID) else { return nil }
        let location = type.locationID.flatMap { self.location($0) }
        return ShiftSnapshot(
            shiftID: shift.id, shiftTypeID: type.id, symbol: type.symbol, title: type.title, duration: type.duration,
            date: shift.date, locationID: location?.id, locationName: location?.name, personID: shift.personID,
            personName: shift.personID.flatMap { personName($0) }, notes: shift.notes)
    }
}

extension Schedule {
    /// The schedule a mutation would produce and each entity's net change, checked against the
    /// core invariants but not the rules and without a change log entry. For previews, dry runs
    /// and rule examples; the store's `apply` is the only way to commit.
    public func applying(_ mutation: Mutation) throws(ScheduleError) -> (schedule: Schedule, changes: [Change]) {
        var context = MutationContext(schedule: self)
        try context.apply(mutation, field: mutation.fieldRoot)
        return (context.schedule, context.netChanges)
    }
}
