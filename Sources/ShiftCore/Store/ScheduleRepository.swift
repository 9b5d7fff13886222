import Foundation
import Synchronization

/// An opaque token identifying one persisted state of a repository. When it changes, another
/// writer has committed.
public struct StoreRevision: Hashable, Sendable, CustomStringConvertible {
    public let value: String
    public init(_ value: String) { self.value = value }
    public var description: String { value }
}

/// What a commit changed, for repositories that write incrementally (SQLite) rather than whole.
public struct CommitSummary: Sendable {
    public let mutation: Mutation
    public let changes: [Change]
    public let logEntries: [ChangeLogEntry]

    public init(mutation: Mutation, changes: [Change], logEntries: [ChangeLogEntry]) {
        self.mutation = mutation
        self.changes = changes
        self.logEntries = logEntries
    }
}

/// Where a schedule is kept. Every backend (memory, JSON file, SQLite) passes the same
/// conformance suite.
///
/// Writes happen under an exclusive lock that excludes other processes: the store takes it,
/// reloads if `revision()` moved, applies the mutation, saves, and releases it.
public protocol ScheduleRepository: Sendable {
    /// Where the data lives, for messages (`schedule.json`, `memory`).
    var location: String { get }

    /// Reads the persisted schedule and its revision.
    func load() throws -> (Schedule, StoreRevision)

    /// The current persisted revision, cheaply (no full read).
    func revision() throws -> StoreRevision

    /// Tries to take the exclusive write lock without waiting; false when another writer holds it.
    func tryLockForWriting() throws -> Bool

    /// Releases the write lock.
    func unlockForWriting()

    /// Persists the schedule atomically (all or nothing) and returns the new revision. Called with
    /// the write lock held.
    func save(_ schedule: Schedule, summary: CommitSummary) throws -> StoreRevision

    /// Whether `save` writes a commit's log entries from `summary.logEntries` (SQLite) rather
    /// than from the schedule's change log. When it does and the store reads the schedule back
    /// after the commit (a bulk change over a `ScheduleSource`), the store does not copy the
    /// entries into the schedule it hands over. False unless a repository says otherwise.
    var savesLogFromSummary: Bool { get }
}

extension ScheduleRepository {
    public var savesLogFromSummary: Bool { false }

    /// Takes the write lock, waiting for another writer at most `timeout`.
    /// - Throws: `ScheduleError.lockTimeout` naming the store.
    public func lockForWriting(timeout: Duration) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while try !tryLockForWriting() {
            guard clock.now < deadline else {
                let (seconds, attoseconds) = timeout.components
                throw ScheduleError.lockTimeout(store: location, seconds: Double(seconds) + Double(attoseconds) / 1e18)
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}

/// An error after which a mutation may run again from the start on the store's new state: the
/// repository rolled everything back because a concurrent writer's commit conflicts with what
/// this one read or wrote (a database's serialization failure). `ScheduleStore.apply` runs such a
/// mutation again, re-reading the store and re-running the rules, a bounded number of times with
/// a growing, jittered pause; when the attempts run out it throws the last such error.
public protocol RetryableStoreError: Error, Sendable {}

/// A repository that can say when a commit was made through it by any store (SQLite, through
/// GRDB's `ValueObservation`). A store over it refreshes its observers (`observe()`) when
/// another store over the same repository commits, without waiting for its own next change.
public protocol CommitObservingRepository: ScheduleRepository {
    /// Calls `onCommit` after commits (it may be called for a commit more than once, and for one
    /// the caller made itself) until the returned observation is cancelled.
    func observeCommits(_ onCommit: @escaping @Sendable () -> Void) throws -> any CommitObservation
}

/// A running `observeCommits`; cancelling it stops the calls.
public protocol CommitObservation: Sendable {
    func cancel()
}

/// A repository in memory: for tests, previews and dry runs. Stores sharing one instance see each
/// other's commits, like processes sharing a file.
public final class InMemoryRepository: ScheduleRepository {
    private struct State {
        var schedule: Schedule
        var generation = 0
        var locked = false
    }

    private let state: Mutex<State>
    public let location = "memory"

    public init(_ schedule: Schedule) {
        state = Mutex(State(schedule: schedule))
    }

    /// An empty schedule in UTC.
    public convenience init() {
        self.init(try! Schedule(settings: StoreSettings(timeZoneIdentifier: "UTC")))
    }

    public func load() throws -> (Schedule, StoreRevision) {
        state.withLock { ($0.schedule, StoreRevision(String($0.generation))) }
    }

    public func revision() throws -> StoreRevision {
        state.withLock { StoreRevision(String($0.generation)) }
    }

    public func tryLockForWriting() throws -> Bool {
        state.withLock { state in
            if state.locked { return false }
            state.locked = true
            return true
        }
    }

    public func unlockForWriting() {
        state.withLock { $0.locked = false }
    }

    public func save(_ schedule: Schedule, summary: CommitSummary) throws -> StoreRevision {
        state.withLock { state in
            state.schedule = schedule
            state.generation += 1
            return StoreRevision(String(state.generation))
        }
    }

    /// The schedule as last saved.
    public var snapshot: Schedule { state.withLock { $0.schedule } }
}
