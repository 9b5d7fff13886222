import Foundation
import TestSupport
import Testing
@testable import ShiftCore

/// The schedule keeps a shift's plain fields and its rarely-set extras in two maps; a shift read
/// back must be the shift stored, whatever its extras did in between.
@Suite struct ShiftTableTests {
    let type = ShiftTypeID(uuid(1))
    let person = PersonID(uuid(2))

    func shift(_ n: Int, notes: String? = nil, attributes: Attributes = [:], uid: String? = nil) -> ScheduledShift {
        ScheduledShift(
            id: ShiftID(uuid(100 + n)), shiftTypeID: type, date: date("2026-03-0\(n % 9 + 1)"),
            personID: n.isMultiple(of: 2) ? person : nil, notes: notes, attributes: attributes, eventIdentifier: uid)
    }

    /// What makes a mutation cheap: nodes of the big map are copied and freed without a
    /// retain or release per entry. A reference type in the entry would break this silently.
    @Test func theBigMapsEntriesAreTriviallyCopyable() {
        #expect(_isPOD(ShiftTable.Entry.self))
        #expect(!_isPOD(ScheduledShift.self))
    }

    @Test func aShiftReadBackIsTheShiftStoredAsItsExtrasComeAndGo() {
        var table = ShiftTable()
        let plain = shift(1)
        let noted = shift(1, notes: "bring keys", attributes: ["skill": .string("triage")], uid: "abc@example.org")
        #expect(table.updateValue(plain, forKey: plain.id) == nil)
        #expect(table[plain.id] == plain)
        // plain → with extras → other extras → plain: each replace returns the previous version.
        #expect(table.updateValue(noted, forKey: noted.id) == plain)
        #expect(table[noted.id] == noted)
        #expect(table[noted.id]?.eventIdentifier == "abc@example.org")
        var renoted = noted
        renoted.notes = "no keys"
        #expect(table.updateValue(renoted, forKey: renoted.id) == noted)
        #expect(table.updateValue(plain, forKey: plain.id) == renoted)
        #expect(table[plain.id] == plain)
        #expect(table[plain.id]?.notes == nil)
        #expect(table.count == 1)

        // Removal takes the extras with it: a new shift under the same id starts without them.
        table[plain.id] = noted
        table[plain.id] = nil
        #expect(table[plain.id] == nil && table.isEmpty)
        table[plain.id] = plain
        #expect(table[plain.id]?.attributes == [:])
    }

    @Test func valuesAndEqualityCoverBothMaps() {
        var a = ShiftTable()
        var b = ShiftTable()
        let shifts = (1...6).map { n in n.isMultiple(of: 3) ? shift(n, notes: "note \(n)") : shift(n) }
        for s in shifts { a[s.id] = s }
        for s in shifts.reversed() { b[s.id] = s }
        #expect(a == b)
        #expect(Set(a.values) == Set(shifts))
        // Same plain fields, different extras: not equal.
        b[shifts[2].id] = shift(3, notes: "changed")
        #expect(a != b)
        b[shifts[2].id] = shifts[2]
        #expect(a == b)
        #expect(a.contains(shifts[0].id) && !a.contains(ShiftID(uuid(999))))
    }
}
