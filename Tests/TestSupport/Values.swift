import Foundation
import ShiftCore

/// A fixed id for test data: 20000000-0000-4000-8000-00000000000a for 10, and so on. The first
/// field keeps them apart from the ids a `Counter` makes.
public func uuid(_ n: Int) -> UUID { UUID(uuidString: String(format: "20000000-0000-4000-8000-%012x", n))! }

/// A date written as `YYYY-MM-DD`.
public func date(_ text: String) -> LocalDate { LocalDate(text)! }

/// A time of day written as `HH:MM`.
public func time(_ text: String) -> HourMinuteTime { HourMinuteTime(text)! }

/// The clock of the tests: 2026-03-01T00:00:00Z, a Sunday (01:00 in Berlin), so the rosters
/// that start on Monday 2026-03-02 lie ahead of it.
public let fixedNow = Date(timeIntervalSince1970: 1_772_323_200)

/// The acting user of most tests.
public let alice = UserProfile(userId: "alice", displayName: "Alice Admin")

/// Sequential ids, `0000000b-0000-4000-8000-00000000000n`: the n-th id of block b.
///
/// Each counter takes a block of its own, so two stores writing one repository never make the
/// same id. Counters given the same `block` make the same ids, for two stores that should end
/// up equal, change log included.
///
/// The state sits behind a pthread mutex (`NSLock`), not a `Mutex`: on Linux a contended `Mutex`
/// is handed over by the kernel, where ThreadSanitizer does not see it (docs/guarantees.md).
public final class Counter: @unchecked Sendable {
    nonisolated(unsafe) private static var blocks = 0
    private static let blocksLock = NSLock()
    private let block: Int
    private var value = 0
    private let lock = NSLock()

    /// `block`: 0 for two counters that must make the same ids (the blocks counters take for
    /// themselves start at 1).
    public init(block: Int? = nil) {
        self.block = block ?? Counter.blocksLock.withLock {
            Counter.blocks += 1
            return Counter.blocks
        }
    }

    public func next() -> UUID {
        let n = lock.withLock {
            value += 1
            return value
        }
        return UUID(uuidString: String(format: "%08x-0000-4000-8000-%012x", block, n))!
    }
}

/// A store environment at `fixedNow` with sequential ids. The lock wait is long: some writers
/// interleave on purpose, and under a sanitizer on a busy machine a queue of commits can hold the
/// lock for seconds (the timeout has its own test).
public func testEnvironment(ids: Counter = Counter()) -> StoreEnvironment {
    StoreEnvironment(now: { fixedNow }, makeUUID: { ids.next() }, lockTimeout: .seconds(60))
}
