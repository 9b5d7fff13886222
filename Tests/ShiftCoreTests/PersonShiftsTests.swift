import Foundation
import Testing
@testable import ShiftCore

/// The per-person index keeps a roster in chunks; every read must match one sorted array.
@Suite struct PersonShiftsTests {
    /// A deterministic generator (xorshift), so a failure can be replayed.
    struct Numbers {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Int(state % UInt64(bound))
        }
    }

    static let base = LocalDate("2026-01-01")!

    func reference(_ n: Int, day: Int) -> ShiftReference {
        ShiftReference(date: Self.base.adding(days: day), id: ShiftID(uuid(n)), type: ShiftTypeID(uuid(1)))
    }

    @Test(arguments: [1, 2, 3]) func everyReadMatchesOneSortedArray(seed: UInt64) {
        var numbers = Numbers(state: 0x9E37_79B9_7F4A_7C15 &* seed)
        var shifts = PersonShifts()
        var model: [ShiftReference] = []
        var versions: [(PersonShifts, [ShiftReference])] = []
        for step in 0..<3_000 {
            // Mostly adds (the roster grows past many chunks), removals of held and of absent ones.
            if model.isEmpty || numbers.next(10) < 6 {
                let added = reference(step, day: numbers.next(400))
                shifts.insert(added)
                model.insert(added, at: model.firstIndex { $0 >= added } ?? model.count)
            } else if numbers.next(5) == 0 {
                let found = shifts.remove(reference(100_000 + step, day: numbers.next(400)))
                #expect(!found, "an absent shift is not removed")
            } else {
                let removed = model.remove(at: numbers.next(model.count))
                let found = shifts.remove(removed)
                #expect(found)
            }
            if step % 300 == 0 { versions.append((shifts, model)) }
            if step % 97 == 0 { check(shifts, against: model, numbers: &numbers) }
        }
        check(shifts, against: model, numbers: &numbers)
        // Earlier versions are untouched by later changes (the schedule is persistent).
        for (version, expected) in versions { #expect(Array(version) == expected) }
    }

    @Test func aRosterInDateOrderSplitsIntoChunksAndEmptiesCleanly() {
        var shifts = PersonShifts()
        let all = (0..<(PersonShifts.chunkLimit * 5)).map { reference($0, day: $0) }
        for shift in all { shifts.insert(shift) }
        #expect(Array(shifts) == all)
        #expect(shifts.lowerBound(Self.base.adding(days: 200)) == 200)
        for shift in all.reversed() {
            let found = shifts.remove(shift)
            #expect(found)
        }
        #expect(shifts.isEmpty)
        #expect(Array(shifts).isEmpty)
        #expect(shifts.lowerBound(Self.base) == 0)
    }

    private func check(_ shifts: PersonShifts, against model: [ShiftReference], numbers: inout Numbers) {
        #expect(shifts.count == model.count)
        #expect(Array(shifts) == model)
        for _ in 0..<20 {
            let date = Self.base.adding(days: numbers.next(420) - 10)
            #expect(shifts.lowerBound(date) == (model.firstIndex { $0.date >= date } ?? model.count))
            guard !model.isEmpty else { continue }
            let position = numbers.next(model.count)
            #expect(shifts[position] == model[position])
            #expect(shifts.lowerBound(model[position]) == position)
            let upper = position + numbers.next(model.count - position + 1)
            #expect(shifts.references(position..<upper) == Array(model[position..<upper]))
            var visited: [ShiftReference] = []
            shifts.forEach(in: position..<upper) { visited.append($0) }
            #expect(visited == Array(model[position..<upper]))
        }
    }
}
