import Foundation

/// An entry of the person index: ordered by person, then date, then id. It carries the shift's
/// type, so that totals over a person's shifts (hours in a period) need no lookup of the shift;
/// the type is its number in the index (`ShiftTypeNumbers`), which keeps an entry at 40 bytes.
struct PersonShiftKey: Comparable, Sendable {
    var person: PersonID
    var date: LocalDate
    var type: UInt32
    var id: ShiftID

    static func < (lhs: Self, rhs: Self) -> Bool {
        if lhs.person != rhs.person { return lhs.person < rhs.person }
        if lhs.date != rhs.date { return lhs.date < rhs.date }
        return lhs.id < rhs.id
    }
}

/// An entry of the type index: ordered by the type's number, then date, then id (24 bytes).
struct TypeShiftKey: Comparable, Sendable {
    var type: UInt32
    var date: LocalDate
    var id: ShiftID

    static func < (lhs: Self, rhs: Self) -> Bool {
        if lhs.type != rhs.type { return lhs.type < rhs.type }
        if lhs.date != rhs.date { return lhs.date < rhs.date }
        return lhs.id < rhs.id
    }
}

/// The numbers the indexes give shift types: one on a type's first shift, never reused, so that
/// entries hold 4 bytes for a type instead of its 16-byte id.
struct ShiftTypeNumbers: Sendable {
    private(set) var ids: [ShiftTypeID] = []
    private var numbers: [ShiftTypeID: UInt32] = [:]

    func number(of id: ShiftTypeID) -> UInt32? { numbers[id] }

    mutating func assign(_ id: ShiftTypeID) -> UInt32 {
        if let number = numbers[id] { return number }
        let number = UInt32(ids.count)
        ids.append(id)
        numbers[id] = number
        return number
    }
}

/// Indexes over scheduled shifts, each a persistent sorted tree of plain entries (`SortedTree`):
/// every shift by (type, date, id), and every assigned shift by (person, date, id). A shift
/// mutation changes one leaf of each and the branches above it; a person's shifts, or a type's
/// on a day, are a range of positions found by one walk down the tree.
struct ShiftIndex: Sendable {
    private(set) var byType = SortedTree<TypeShiftKey>()
    private(set) var byPerson = SortedTree<PersonShiftKey>()
    private(set) var typeNumbers = ShiftTypeNumbers()
    /// Earliest and latest date ever indexed. Only widens, so it is a bound, not an exact range.
    var dateRange: ClosedRange<LocalDate>?

    init() {}

    /// The index of `shifts`, built in one pass (sorted entries, full nodes), one tree at a time
    /// so that only one tree's entries are held in an array besides the trees.
    init(shifts: some Collection<ScheduledShift>) {
        var first: LocalDate?
        var last: LocalDate?
        do {
            var types: [TypeShiftKey] = []
            types.reserveCapacity(shifts.count)
            for shift in shifts {
                types.append(TypeShiftKey(type: typeNumbers.assign(shift.shiftTypeID), date: shift.date, id: shift.id))
                first = Swift.min(first ?? shift.date, shift.date)
                last = Swift.max(last ?? shift.date, shift.date)
            }
            types.sort()
            byType = SortedTree(sorted: types)
        }
        var people: [PersonShiftKey] = []
        people.reserveCapacity(shifts.count)
        for shift in shifts {
            if let person = shift.personID {
                people.append(PersonShiftKey(person: person, date: shift.date, type: typeNumbers.assign(shift.shiftTypeID), id: shift.id))
            }
        }
        people.sort()
        byPerson = SortedTree(sorted: people)
        if let first, let last { dateRange = first...last }
    }

    mutating func insert(_ shift: ScheduledShift) {
        let type = typeNumbers.assign(shift.shiftTypeID)
        byType.insert(TypeShiftKey(type: type, date: shift.date, id: shift.id))
        if let person = shift.personID {
            byPerson.insert(PersonShiftKey(person: person, date: shift.date, type: type, id: shift.id))
        }
        if let range = dateRange {
            if shift.date < range.lowerBound || shift.date > range.upperBound {
                dateRange = min(range.lowerBound, shift.date)...max(range.upperBound, shift.date)
            }
        } else {
            dateRange = shift.date...shift.date
        }
    }

    mutating func remove(_ shift: ScheduledShift) {
        guard let type = typeNumbers.number(of: shift.shiftTypeID) else { return }
        byType.remove(TypeShiftKey(type: type, date: shift.date, id: shift.id))
        if let person = shift.personID {
            byPerson.remove(PersonShiftKey(person: person, date: shift.date, type: type, id: shift.id))
        }
    }

    /// `shift` (indexed) now held by `person`: only the person index changes.
    mutating func reassign(_ shift: ScheduledShift, to person: PersonID?) {
        guard let type = typeNumbers.number(of: shift.shiftTypeID) else { return }
        if let holder = shift.personID {
            byPerson.remove(PersonShiftKey(person: holder, date: shift.date, type: type, id: shift.id))
        }
        if let person {
            byPerson.insert(PersonShiftKey(person: person, date: shift.date, type: type, id: shift.id))
        }
    }

    /// The (date, id, type) of a person index entry.
    func reference(_ key: PersonShiftKey) -> ShiftReference {
        ShiftReference(date: key.date, id: key.id, type: typeNumbers.ids[Int(key.type)])
    }

    /// A person's shifts in (date, id) order; nil when they have none.
    func shifts(of person: PersonID) -> PersonShifts? {
        let start = byPerson.index { $0.person < person }
        let end = byPerson.index { !(person < $0.person) }
        return start < end ? PersonShifts(index: self, person: person, range: start..<end) : nil
    }

    /// The positions of a type's shifts dated `from` up to `to` (inclusive) in `byType`.
    private func positions(ofType type: UInt32, from: LocalDate, to: LocalDate) -> Range<Int> {
        let start = byType.index { $0.type < type || ($0.type == type && $0.date < from) }
        let end = byType.index { $0.type < type || ($0.type == type && $0.date <= to) }
        return start..<max(start, end)
    }

    /// Calls `body` with the ids of a type's shifts on a date, in id order.
    func forEachShift(ofType id: ShiftTypeID, on date: LocalDate, _ body: (ShiftID) -> Void) {
        guard let type = typeNumbers.number(of: id) else { return }
        for key in byType.elements(from: { $0.type < type || ($0.type == type && $0.date < date) }) {
            guard key.type == type && key.date == date else { return }
            body(key.id)
        }
    }

    /// Calls `body` with a person's shifts dated `from` up to `to` (inclusive), in (date, id)
    /// order, until it returns false: one walk down the person index, then along its leaves.
    func forEachShift(of person: PersonID, from: LocalDate, to: LocalDate, _ body: (ShiftReference) throws -> Bool) rethrows {
        for key in byPerson.elements(from: { $0.person < person || ($0.person == person && $0.date < from) }) {
            guard key.person == person && key.date <= to else { return }
            guard try body(reference(key)) else { return }
        }
    }

    /// Calls `body` with the date and type number of each of a person's shifts dated `from` up to
    /// `to` (inclusive), in (date, id) order: `forEachShift(of:from:to:)` without making a
    /// reference of each entry (see `typeID(number:)`).
    func forEachEntry(of person: PersonID, from: LocalDate, to: LocalDate, _ body: (LocalDate, UInt32) -> Void) {
        for key in byPerson.elements(from: { $0.person < person || ($0.person == person && $0.date < from) }) {
            guard key.person == person && key.date <= to else { return }
            body(key.date, key.type)
        }
    }

    /// The shift type an entry's type number stands for.
    func typeID(number: UInt32) -> ShiftTypeID { typeNumbers.ids[Int(number)] }

    /// Whether a person has a shift dated `date`.
    func hasShift(of person: PersonID, on date: LocalDate) -> Bool {
        var found = false
        forEachShift(of: person, from: date, to: date) { _ in
            found = true
            return false
        }
        return found
    }

    /// How many shifts of a type are held.
    func count(ofType id: ShiftTypeID) -> Int {
        guard let type = typeNumbers.number(of: id) else { return 0 }
        return byType.index { $0.type <= type } - byType.index { $0.type < type }
    }

    /// The dates from `from` to `to` on which one of `types` has a shift.
    func dates(ofTypes types: [ShiftTypeID], from: LocalDate, to: LocalDate) -> Set<LocalDate> {
        var dates = Set<LocalDate>()
        for id in types {
            guard let type = typeNumbers.number(of: id) else { continue }
            for key in byType.elements(in: positions(ofType: type, from: from, to: to)) { dates.insert(key.date) }
        }
        return dates
    }
}

/// One person's shift references in (date, id) order: a range of the person index.
struct PersonShifts: RandomAccessCollection, Sendable {
    private let index: ShiftIndex
    private let person: PersonID
    private let range: Range<Int>

    init(index: ShiftIndex, person: PersonID, range: Range<Int>) {
        self.index = index
        self.person = person
        self.range = range
    }

    var startIndex: Int { 0 }
    var endIndex: Int { range.count }
    var count: Int { range.count }

    /// A walk down the tree (walks use `forEach(in:)` or the iterator, which descend once a leaf).
    subscript(position: Int) -> ShiftReference {
        precondition(position >= 0 && position < range.count, "PersonShifts position out of range")
        return index.reference(index.byPerson[range.lowerBound + position])
    }

    func makeIterator() -> Iterator { Iterator(index: index, elements: index.byPerson.elements(in: range)) }

    struct Iterator: IteratorProtocol, Sequence {
        let index: ShiftIndex
        var elements: SortedTree<PersonShiftKey>.Elements
        mutating func next() -> ShiftReference? { elements.next().map(index.reference) }
    }

    /// The references at positions `positions`, in order.
    func elements(in positions: Range<Int>) -> Iterator {
        Iterator(index: index, elements: index.byPerson.elements(in: (range.lowerBound + positions.lowerBound)..<(range.lowerBound + positions.upperBound)))
    }

    /// Calls `body` with the references from `positions.lowerBound` up to `positions.upperBound`, in order.
    func forEach(in positions: Range<Int>, _ body: (ShiftReference) throws -> Void) rethrows {
        // The types through a buffer pointer: nothing is retained per element (two threads
        // walking timelines at once would contend for the array's reference count).
        try index.typeNumbers.ids.withUnsafeBufferPointer { types in
            try index.byPerson.forEach(in: (range.lowerBound + positions.lowerBound)..<(range.lowerBound + positions.upperBound)) {
                try body(ShiftReference(date: $0.date, id: $0.id, type: types[Int($0.type)]))
            }
        }
    }

    /// The references from `positions.lowerBound` up to `positions.upperBound`, as one array.
    func references(_ positions: Range<Int>) -> [ShiftReference] {
        var result: [ShiftReference] = []
        result.reserveCapacity(positions.count)
        forEach(in: positions) { result.append($0) }
        return result
    }

    /// Position of the first reference dated on or after `date` (`count` if none).
    func lowerBound(_ date: LocalDate) -> Int {
        let person = self.person
        let position = index.byPerson.index { $0.person < person || ($0.person == person && $0.date < date) }
        return Swift.min(Swift.max(position, range.lowerBound), range.upperBound) - range.lowerBound
    }
}
