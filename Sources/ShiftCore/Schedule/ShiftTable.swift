import HashTreeCollections

/// The schedule's shifts by id, kept as two persistent maps: every shift's plain fields, and the
/// boxed extras (notes, attributes, a custom calendar UID) of the few shifts that have them.
///
/// A plain entry has no reference in it, so the big map's nodes are copied with a memcpy and
/// freed without visiting their entries. Every mutation copies a path of nodes and, when the
/// previous version is dropped, frees one: with a class reference in each entry both went
/// through per-entry retain and release.
struct ShiftTable: Sendable, Equatable {
    /// A shift's fields without its extras: trivially copyable (a test holds it to that).
    struct Entry: Hashable, Sendable {
        var shiftTypeID: ShiftTypeID
        var date: LocalDate
        var personID: PersonID?
        /// Whether `extras` holds a box for this shift.
        var hasExtras: Bool
    }

    private(set) var entries: TreeDictionary<ShiftID, Entry> = [:]
    private var extras: TreeDictionary<ShiftID, ScheduledShift.Extras> = [:]

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }

    subscript(id: ShiftID) -> ScheduledShift? {
        get { entries[id].map { shift(id, $0) } }
        set {
            if let newValue {
                store(newValue)
            } else if let old = entries.removeValue(forKey: id), old.hasExtras {
                extras[id] = nil
            }
        }
    }

    /// Stores a shift and returns the one it replaced.
    @discardableResult
    mutating func updateValue(_ shift: ScheduledShift, forKey id: ShiftID) -> ScheduledShift? {
        precondition(shift.id == id, "a shift is stored under its own id")
        return store(shift)
    }

    func contains(_ id: ShiftID) -> Bool { entries.index(forKey: id) != nil }

    /// A shift's plain fields, without making the shift.
    func entry(_ id: ShiftID) -> Entry? { entries[id] }

    /// A shift's attributes (empty when it has no extras), without making the shift.
    func attributes(of id: ShiftID, _ entry: Entry) -> Attributes {
        entry.hasExtras ? extras[id]?.attributes ?? [:] : [:]
    }

    /// Every shift, in the map's (unspecified) order.
    var values: some Collection<ScheduledShift> { entries.lazy.map { shift($0.key, $0.value) } }

    @discardableResult
    private mutating func store(_ shift: ScheduledShift) -> ScheduledShift? {
        let box = shift.extras
        let entry = Entry(shiftTypeID: shift.shiftTypeID, date: shift.date, personID: shift.personID, hasExtras: box != nil)
        guard let old = entries.updateValue(entry, forKey: shift.id) else {
            if let box { extras[shift.id] = box }
            return nil
        }
        let oldBox = if let box {
            extras.updateValue(box, forKey: shift.id)
        } else if old.hasExtras {
            extras.removeValue(forKey: shift.id)
        } else {
            nil as ScheduledShift.Extras?
        }
        return ScheduledShift(id: shift.id, shiftTypeID: old.shiftTypeID, date: old.date, personID: old.personID, extras: oldBox)
    }

    private func shift(_ id: ShiftID, _ entry: Entry) -> ScheduledShift {
        ScheduledShift(
            id: id, shiftTypeID: entry.shiftTypeID, date: entry.date, personID: entry.personID,
            extras: entry.hasExtras ? extras[id] : nil)
    }

    static func == (lhs: ShiftTable, rhs: ShiftTable) -> Bool {
        lhs.entries == rhs.entries && lhs.extras == rhs.extras
    }
}
