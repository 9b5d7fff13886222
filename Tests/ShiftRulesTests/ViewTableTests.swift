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

/// `EngineState.isOneLine`, eight bytes at a time, against the byte-by-byte definition: every
/// byte value at every position of messages of every length around the word size, and lengths
/// around the limit.
@Suite struct OneLineTests {
    static func bytewise(_ bytes: [UInt8]) -> Bool {
        bytes.count <= EngineState.maxMessageLength && bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }

    @Test func agreesWithTheByteWiseDefinition() {
        for length in 0...19 {
            for position in 0..<max(length, 1) where length > 0 {
                for value in 0...255 {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    bytes[position] = UInt8(value)
                    // Neighbours at the ends of the printable range, where a borrow or carry would tell.
                    if position > 0 { bytes[position - 1] = 0x20 }
                    if position + 1 < length { bytes[position + 1] = 0x7E }
                    let fast = bytes.withUnsafeBufferPointer(EngineState.isOneLine)
                    #expect(fast == Self.bytewise(bytes), "length \(length), byte \(value) at \(position)")
                }
            }
        }
        for length in [0, EngineState.maxMessageLength - 1, EngineState.maxMessageLength, EngineState.maxMessageLength + 1] {
            let bytes = [UInt8](repeating: UInt8(ascii: "x"), count: length)
            #expect(bytes.withUnsafeBufferPointer(EngineState.isOneLine) == (length <= EngineState.maxMessageLength))
        }
        // A message that is not one line is still made one by oneLine.
        #expect(EngineState.oneLine("a\nb\u{1B}[31mc") == "a b [31mc")
    }
}
