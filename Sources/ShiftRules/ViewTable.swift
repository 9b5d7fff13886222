/// The views made in one evaluation, by entity: an open-addressing table keyed by an id's two
/// 64-bit words and a small tag (the kind of entity and the side of the change). A `Dictionary`
/// runs SipHash over its key on every lookup, and every shift a rule is handed is looked up here
/// (a hundred thousand times in a whole-schedule check).
///
/// Clearing is constant time: each slot carries the round it was written in, and `removeAll()`
/// starts a new round, so an evaluation that makes two views does not wipe the table a big one
/// grew.
struct ViewTable {
    private struct Slot {
        var high: UInt64 = 0
        var low: UInt64 = 0
        var tag: UInt32 = 0
        var round: UInt32 = 0
        var index: Int = 0
    }

    private var slots: [Slot] = []
    private var count = 0
    private var round: UInt32 = 1

    /// The index stored for the key, if any.
    func index(_ words: (UInt64, UInt64), tag: UInt32) -> Int? {
        guard !slots.isEmpty else { return nil }
        let mask = slots.count - 1
        var position = Self.hash(words, tag) & mask
        while true {
            let slot = slots[position]
            if slot.round != round { return nil }
            if slot.low == words.1, slot.high == words.0, slot.tag == tag { return slot.index }
            position = (position + 1) & mask
        }
    }

    /// Stores `index` for a key that is not in the table.
    mutating func insert(_ words: (UInt64, UInt64), tag: UInt32, index: Int) {
        if (count + 1) * 4 > slots.count * 3 { grow() }
        let mask = slots.count - 1
        var position = Self.hash(words, tag) & mask
        while slots[position].round == round { position = (position + 1) & mask }
        slots[position] = Slot(high: words.0, low: words.1, tag: tag, round: round, index: index)
        count += 1
    }

    mutating func removeAll() {
        guard count > 0 else { return }
        count = 0
        if round == .max {
            for i in slots.indices { slots[i].round = 0 }
            round = 0
        }
        round += 1
    }

    private mutating func grow() {
        let old = slots.filter { $0.round == round }
        slots = Array(repeating: Slot(), count: max(64, slots.count * 2))
        round = 1
        count = 0
        for slot in old { insert((slot.high, slot.low), tag: slot.tag, index: slot.index) }
    }

    /// A mix of both words and the tag (ids may be sequential, so neither word alone will do).
    private static func hash(_ words: (UInt64, UInt64), _ tag: UInt32) -> Int {
        var h = words.0 &* 0x9E37_79B9_7F4A_7C15 ^ words.1 ^ UInt64(tag) &* 0xC2B2_AE3D_27D4_EB4F
        h ^= h >> 31
        h &*= 0xBF58_476D_1CE4_E5B9
        h ^= h >> 29
        return Int(truncatingIfNeeded: h)
    }
}
