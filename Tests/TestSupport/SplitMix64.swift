import Foundation

/// A small seeded generator (SplitMix64), so a failing random run can be repeated.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The next 128 bits as a UUID.
    public mutating func uuid() -> UUID {
        let (a, b) = (next(), next())
        return withUnsafeBytes(of: (a, b)) { bytes in
            UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                        bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        }
    }

    /// The seed from `SHIFT_SEED`, else a fresh one (the tests that use it print it).
    public static var seed: UInt64 {
        ProcessInfo.processInfo.environment["SHIFT_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max >> 1)
    }
}
