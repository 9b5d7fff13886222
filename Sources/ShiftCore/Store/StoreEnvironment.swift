import Foundation

/// The store's seams to the outside world: the clock and the id source. Tests pass fixed ones so
/// change-log entries and ids are deterministic.
public struct StoreEnvironment: Sendable {
    public var now: @Sendable () -> Date
    public var makeUUID: @Sendable () -> UUID
    /// How long `apply` waits for another process's write lock before giving up.
    public var lockTimeout: Duration

    public init(now: @escaping @Sendable () -> Date, makeUUID: @escaping @Sendable () -> UUID, lockTimeout: Duration = .seconds(10)) {
        self.now = now
        self.makeUUID = makeUUID
        self.lockTimeout = lockTimeout
    }

    /// The system clock and random (version 4) UUIDs.
    public static let live = StoreEnvironment(now: { Date() }, makeUUID: { UUID.random() })
}

extension UUID {
    /// A random version 4 UUID. `UUID()` on Linux opens /dev/urandom on every call; this draws
    /// from a xoshiro256** generator seeded once per process from the system's random source, so
    /// ids stay unique across processes (256 bits of seed) at a few nanoseconds each.
    public static func random() -> UUID {
        let (a, b) = uuidSource.nextPair()
        var raw = withUnsafeBytes(of: (a, b)) { $0.load(as: uuid_t.self) }
        raw.6 = (raw.6 & 0x0F) | 0x40
        raw.8 = (raw.8 & 0x3F) | 0x80
        return UUID(uuid: raw)
    }
}

private let uuidSource = UUIDSource()

/// The process's generator behind a pthread mutex (`NSLock`), not a `Mutex`: on Linux a contended
/// `Mutex` is handed over through a futex that ThreadSanitizer does not see, so two workers
/// making ids at once (a rotation checked on two Lua states) were reported as a race
/// (docs/guarantees.md, section 6). Uncontended, the two cost about the same next to the rest of
/// making a shift.
private final class UUIDSource: @unchecked Sendable {
    private let lock = NSLock()
    private var generator = Xoshiro256StarStar()

    /// Two draws, under the lock.
    func nextPair() -> (UInt64, UInt64) {
        lock.lock()
        defer { lock.unlock() }
        return (generator.next(), generator.next())
    }
}

/// xoshiro256** (Blackman and Vigna), seeded from `SystemRandomNumberGenerator`.
struct Xoshiro256StarStar: RandomNumberGenerator {
    private var s: (UInt64, UInt64, UInt64, UInt64)

    init() {
        var system = SystemRandomNumberGenerator()
        s = (system.next(), system.next(), system.next(), system.next())
    }

    mutating func next() -> UInt64 {
        let result = ((s.1 &* 5) << 7 | (s.1 &* 5) >> 57) &* 9
        let t = s.1 << 17
        s.2 ^= s.0
        s.3 ^= s.1
        s.1 ^= s.2
        s.0 ^= s.3
        s.2 ^= t
        s.3 = s.3 << 45 | s.3 >> 19
        return result
    }
}
