import Testing
@testable import ShiftRules

/// `ViewTable`, the evaluation's views by entity, against a plain dictionary.
@Suite struct ViewTableTests {
    struct Key: Hashable { let high: UInt64, low: UInt64, tag: UInt32 }

    @Test func findsWhatWasInsertedThroughGrowthAndRounds() {
        var table = ViewTable()
        var reference: [Key: Int] = [:]
        var generator = SystemRandomNumberGenerator()
        for round in 0..<5 {
            // Sequential ids (as tests and imports make them), random ones, and the same id
            // under several tags.
            var keys: [Key] = (0..<3_000).map { Key(high: 0x3000_0000_0000_4000, low: UInt64($0), tag: UInt32($0 % 3)) }
            keys += (0..<3_000).map { _ in Key(high: generator.next(), low: generator.next(), tag: 2) }
            keys += (0..<8).map { Key(high: 7, low: 7, tag: UInt32($0)) }
            for (index, key) in keys.enumerated() where table.index((key.high, key.low), tag: key.tag) == nil {
                table.insert((key.high, key.low), tag: key.tag, index: index + round)
                reference[key] = index + round
            }
            for (key, index) in reference {
                #expect(table.index((key.high, key.low), tag: key.tag) == index)
            }
            #expect(table.index((1, 2), tag: 9) == nil)
            table.removeAll()
            for key in reference.keys.prefix(100) {
                #expect(table.index((key.high, key.low), tag: key.tag) == nil)
            }
            reference.removeAll()
        }
    }
}
