import Foundation
import TestSupport
import Testing
@testable import ShiftCore

/// The schedule's indexes are persistent B+ trees of plain entries: every read must match one
/// sorted array, every earlier version must stay as it was, and the structure must stay sound
/// through splits, merges and emptying.
@Suite struct SortedTreeTests {
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

    @Test(arguments: [1, 2, 3]) func everyReadMatchesOneSortedArray(seed: UInt64) {
        var numbers = Numbers(state: 0x9E37_79B9_7F4A_7C15 &* seed)
        var tree = SortedTree<Int>()
        var model: [Int] = []
        var versions: [(SortedTree<Int>, [Int])] = []
        // Grows past three levels (a leaf holds 256 Ints, a branch 16 children), then shrinks to
        // a few hundred, so that splits, merges and root changes all happen.
        for step in 0..<40_000 {
            let growing = step < 25_000
            if model.isEmpty || numbers.next(10) < (growing ? 7 : 2) {
                let value = numbers.next(1_000_000)
                let inserted = tree.insert(value)
                let position = model.firstIndex { $0 >= value } ?? model.count
                #expect(inserted == (position == model.count || model[position] != value))
                if inserted { model.insert(value, at: position) }
            } else if numbers.next(6) == 0 {
                let absent = 1_000_000 + numbers.next(1000)
                let removed = tree.remove(absent)
                #expect(!removed, "an absent element is not removed")
            } else {
                let removed = tree.remove(model.remove(at: numbers.next(model.count)))
                #expect(removed)
            }
            if step % 2_000 == 0 { versions.append((tree, model)) }
            if step % 997 == 0 { check(tree, against: model, numbers: &numbers) }
        }
        check(tree, against: model, numbers: &numbers)
        // Earlier versions are untouched by later changes.
        for (version, expected) in versions {
            #expect(Array(version.elements(in: 0..<version.count)) == expected)
            #expect(version.structuralProblem() == nil)
        }
    }

    @Test func ascendingAndDescendingRunsSplitAndEmptyCleanly() {
        var tree = SortedTree<Int>()
        let all = Array(0..<20_000)
        for value in all { tree.insert(value) }
        #expect(tree.count == all.count)
        #expect(tree.structuralProblem() == nil)
        #expect(Array(tree.elements(in: 0..<tree.count)) == all)
        let copy = tree
        for value in all.reversed() where value % 3 != 0 {
            let removed = tree.remove(value)
            #expect(removed)
        }
        #expect(tree.structuralProblem() == nil)
        #expect(Array(tree.elements(in: 0..<tree.count)) == all.filter { $0 % 3 == 0 })
        for value in all where value % 3 == 0 {
            let removed = tree.remove(value)
            #expect(removed)
        }
        #expect(tree.isEmpty && tree.count == 0)
        #expect(tree.index { $0 < 5 } == 0)
        #expect(Array(tree.elements(in: 0..<0)).isEmpty)
        // The copy taken before shares nodes with the emptied tree and is whole.
        #expect(Array(copy.elements(in: 0..<copy.count)) == all)
        #expect(copy.structuralProblem() == nil)
    }

    @Test func copiesChangedAtOnceStaySeparate() {
        var base = SortedTree<Int>()
        for value in stride(from: 0, to: 30_000, by: 3) { base.insert(value) }
        var evens = base
        var odds = base
        for value in stride(from: 0, to: 30_000, by: 3) where value % 2 == 0 { evens.insert(value + 1) }
        for value in stride(from: 0, to: 30_000, by: 3) where value % 2 == 1 { odds.remove(value) }
        #expect(Array(base.elements(in: 0..<base.count)) == Array(stride(from: 0, to: 30_000, by: 3)))
        #expect(evens.count == base.count + 5_000)
        #expect(Array(odds.elements(in: 0..<odds.count)) == Array(stride(from: 0, to: 30_000, by: 6)))
        for tree in [base, evens, odds] { #expect(tree.structuralProblem() == nil) }
    }

    @Test(arguments: [0, 1, 255, 256, 257, 16 * 256, 16 * 256 + 1, 20_000])
    func aTreeBuiltFromSortedElementsReadsAndChangesLikeOneBuiltByInserts(count: Int) {
        var numbers = Numbers(state: 0x1234_5678 &+ UInt64(count))
        var model = (0..<count).map { $0 * 2 }
        var tree = SortedTree(sorted: model)
        #expect(tree.structuralProblem() == nil)
        check(tree, against: model, numbers: &numbers)
        // Full nodes split on the first insert into them, and empty out cleanly.
        for _ in 0..<2_000 {
            if model.isEmpty || numbers.next(2) == 0 {
                let value = numbers.next(2 * count + 10) * 2 + 1
                if tree.insert(value) { model.insert(value, at: model.firstIndex { $0 > value } ?? model.count) }
            } else {
                let removed = tree.remove(model.remove(at: numbers.next(model.count)))
                #expect(removed)
            }
        }
        check(tree, against: model, numbers: &numbers)
    }

    private func check(_ tree: SortedTree<Int>, against model: [Int], numbers: inout Numbers) {
        #expect(tree.count == model.count)
        #expect(tree.structuralProblem() == nil)
        #expect(Array(tree.elements(in: 0..<tree.count)) == model)
        for _ in 0..<30 {
            let key = numbers.next(1_000_100)
            let lower = model.firstIndex { $0 >= key } ?? model.count
            #expect(tree.index { $0 < key } == lower)
            #expect(Array(tree.elements(from: { $0 < key }).prefix(600)) == Array(model[lower...].prefix(600)))
            #expect(tree.contains(key) == model.contains(key))
            guard !model.isEmpty else { continue }
            let position = numbers.next(model.count)
            #expect(tree[position] == model[position])
            let upper = position + numbers.next(model.count - position + 1)
            #expect(Array(tree.elements(in: position..<upper)) == Array(model[position..<upper]))
            var visited: [Int] = []
            tree.forEach(in: position..<upper) { visited.append($0) }
            #expect(visited == Array(model[position..<upper]))
        }
    }
}

/// The shift index's person and type ranges read like the sorted lists they replaced.
@Suite struct ShiftIndexTests {
    static let base = LocalDate("2026-01-01")!
    let people = (1...5).map { PersonID(uuid(1000 + $0)) }
    let types = (1...3).map { ShiftTypeID(uuid(2000 + $0)) }

    @Test func personAndTypeRangesMatchAFilteredSort() {
        var numbers = SortedTreeTests.Numbers(state: 0xDEAD_BEEF)
        var index = ShiftIndex()
        var held: [ScheduledShift] = []
        for n in 0..<6_000 {
            if held.isEmpty || numbers.next(4) != 0 {
                let shift = ScheduledShift(
                    id: ShiftID(uuid(n)), shiftTypeID: types[numbers.next(types.count)],
                    date: Self.base.adding(days: numbers.next(300)),
                    personID: numbers.next(6) == 0 ? nil : people[numbers.next(people.count)])
                index.insert(shift)
                held.append(shift)
            } else {
                index.remove(held.remove(at: numbers.next(held.count)))
            }
        }
        for person in people + [PersonID(uuid(9999))] {
            let expected = held.filter { $0.personID == person }
                .map { ShiftReference(date: $0.date, id: $0.id, type: $0.shiftTypeID) }.sorted()
            guard let shifts = index.shifts(of: person) else {
                #expect(expected.isEmpty)
                continue
            }
            #expect(Array(shifts) == expected)
            #expect(shifts.count == expected.count)
            for day in stride(from: -1, through: 301, by: 7) {
                let date = Self.base.adding(days: day)
                let position = shifts.lowerBound(date)
                #expect(position == (expected.firstIndex { $0.date >= date } ?? expected.count))
                if position < expected.count { #expect(shifts[position] == expected[position]) }
                let upper = shifts.lowerBound(date.adding(days: 10))
                #expect(shifts.references(position..<upper) == Array(expected[position..<upper]))
                #expect(Array(IteratorSequence(shifts.elements(in: position..<upper))) == Array(expected[position..<upper]))
                var walked: [ShiftReference] = []
                index.forEachShift(of: person, from: date, to: date.adding(days: 9)) { walked.append($0); return true }
                #expect(walked == Array(expected[position..<upper]))
                #expect(index.hasShift(of: person, on: date) == expected.contains { $0.date == date })
            }
        }
        for type in types {
            #expect(index.count(ofType: type) == held.filter { $0.shiftTypeID == type }.count)
            for day in [0, 17, 150, 299] {
                let date = Self.base.adding(days: day)
                var ids: [ShiftID] = []
                index.forEachShift(ofType: type, on: date) { ids.append($0) }
                #expect(ids == held.filter { $0.shiftTypeID == type && $0.date == date }.map(\.id).sorted())
            }
        }
        // The index built in one pass from the same shifts reads the same.
        let built = ShiftIndex(shifts: held)
        #expect(built.byPerson.structuralProblem() == nil && built.byType.structuralProblem() == nil)
        for person in people { #expect(built.shifts(of: person).map(Array.init) == index.shifts(of: person).map(Array.init)) }
        for type in types {
            #expect(built.count(ofType: type) == index.count(ofType: type))
            for day in 0..<300 {
                var fromBuilt: [ShiftID] = []
                var fromInserts: [ShiftID] = []
                built.forEachShift(ofType: type, on: Self.base.adding(days: day)) { fromBuilt.append($0) }
                index.forEachShift(ofType: type, on: Self.base.adding(days: day)) { fromInserts.append($0) }
                #expect(fromBuilt == fromInserts)
            }
        }
        #expect(built.count(ofType: ShiftTypeID(uuid(9999))) == 0)
        let from = Self.base.adding(days: 40)
        let to = Self.base.adding(days: 60)
        #expect(index.dates(ofTypes: Array(types.prefix(2)), from: from, to: to)
                == Set(held.filter { types.prefix(2).contains($0.shiftTypeID) && $0.date >= from && $0.date <= to }.map(\.date)))
    }
}
