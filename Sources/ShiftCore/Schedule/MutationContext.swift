import Foundation
import HashTreeCollections

/// Applies mutations to a proposed schedule, checking the core invariants (ids unique,
/// references resolve, values valid) and recording each entity's net change.
struct MutationContext {
    var schedule: Schedule
    private(set) var changes: [Change] = []
    private var changeKeys: [ChangeKey] = []
    private var changeSlots: [ChangeKey: Int] = [:]
    /// Entities removed in this mutation (an add of one merges with its removal).
    private var removedKeys: Set<ChangeKey> = []
    /// Off while loading a stored schedule: nothing to report, and a million slots would cost.
    private let recordsChanges: Bool
    /// On while a whole schedule is read in: added shifts are not indexed one by one, and the
    /// caller builds the index once at the end (`ShiftIndex(shifts:)`).
    private let defersShiftIndex: Bool
    /// Whether adds and renames must keep names of people and locations apart: always for a
    /// change, never while a stored schedule is read in (it loads whatever it holds).
    private var checksNames: Bool { recordsChanges }
    /// Names of people and locations, built on the first add or rename (see `NameIndex`).
    private var personNames: NameIndex<PersonID>?
    private var locationNames: NameIndex<LocationID>?

    private enum ChangeKey: Hashable {
        case location(LocationID), shiftType(ShiftTypeID), person(PersonID), shift(ShiftID)
        case demand(DemandID), availability(AvailabilityID), settings, request(RequestID)
        /// A change-log change: never merged, keyed by its position so keys stay parallel to changes.
        case log(Int)
    }

    init(schedule: Schedule, recordsChanges: Bool = true, defersShiftIndex: Bool = false) {
        self.schedule = schedule
        self.recordsChanges = recordsChanges
        self.defersShiftIndex = defersShiftIndex
    }

    mutating func apply(_ mutation: Mutation, field: String) throws(ScheduleError) {
        switch mutation {
        case let .addLocation(location): try add(location, field: Self.join(field, "location"))
        case let .updateLocation(location): try update(location, field: Self.join(field, "location"))
        case let .removeLocation(id): try removeLocation(id, field: Self.join(field, "locationID"))
        case let .addShiftType(type): try add(type, field: Self.join(field, "shiftType"))
        case let .updateShiftType(type): try update(type, field: Self.join(field, "shiftType"))
        case let .removeShiftType(id): try removeShiftType(id, field: Self.join(field, "shiftTypeID"))
        case let .addPerson(person): try add(person, field: Self.join(field, "person"))
        case let .updatePerson(person): try update(person, field: Self.join(field, "person"))
        case let .removePerson(id): try removePerson(id, field: Self.join(field, "personID"))
        case let .addDemand(item): try add(item, field: Self.join(field, "demand"))
        case let .updateDemand(item): try update(item, field: Self.join(field, "demand"))
        case let .removeDemand(id): try removeDemand(id, field: Self.join(field, "demandID"))
        case let .addAvailability(item): try add(item, field: Self.join(field, "availability"))
        case let .updateAvailability(item): try update(item, field: Self.join(field, "availability"))
        case let .removeAvailability(id): try removeAvailability(id, field: Self.join(field, "availabilityID"))
        case let .scheduleShift(shift): try add(shift, field: Self.join(field, "shift"))
        case let .updateShift(shift, reason): try update(shift, reason: reason, field: Self.join(field, "shift"))
        case let .unscheduleShift(id, reason): try removeShift(id, reason: reason, field: Self.join(field, "shiftID"))
        case let .reassignShift(id, person, reason):
            guard var shift = schedule.shift(id) else { throw .notFound(entity: .shift, id: id.description, field: Self.join(field, "shiftID")) }
            shift.personID = person
            try update(shift, reason: reason, field: Self.join(field, "shift"))
        case let .switchShift(id, type, reason):
            guard var shift = schedule.shift(id) else { throw .notFound(entity: .shift, id: id.description, field: Self.join(field, "shiftID")) }
            shift.shiftTypeID = type
            try update(shift, reason: reason, field: Self.join(field, "shift"))
        case let .addRequest(request): try add(request, field: Self.join(field, "request"))
        case let .updateRequest(request): try update(request, field: Self.join(field, "request"))
        case let .updateSettings(settings):
            let before = schedule.settings
            try schedule.replaceSettings(settings)
            record(key: .settings, .settings(before: before, after: settings))
        case let .pruneChangeLog(cutoff):
            let removed = schedule.changeLog.prune(before: cutoff)
            // An entry this mutation recorded and now pruned is not written: not a change either.
            let kept = changes.indices.filter { index in
                guard case let .changeLogRecorded(entry) = changes[index] else { return true }
                return entry.timestamp >= cutoff
            }
            if kept.count < changes.count {
                changes = kept.map { changes[$0] }
                changeKeys = kept.map { changeKeys[$0] }
                changeSlots = [:]
            }
            if removed > 0 { appendLogChange(.changeLogPruned(removed: removed)) }
        case let .recordChangeLogEntry(entry):
            try record(entry, field: Self.join(field, "changeLogEntry"))
        case let .batch(items):
            if recordsChanges && changes.isEmpty {
                changes.reserveCapacity(items.count)
                changeKeys.reserveCapacity(items.count)
            }
            for (position, item) in items.enumerated() {
                // The bulk item of imports and rotations.
                if case let .scheduleShift(shift) = item {
                    try add(shift, namedOnFailure: "\(field)[\(position)].shift")
                } else {
                    try apply(item, field: "\(field)[\(position)]")
                }
            }
        }
    }

    static func join(_ field: String, _ name: String) -> String { field.isEmpty ? name : field + "." + name }

    // MARK: Net changes

    private mutating func record(key: ChangeKey, _ change: Change) {
        guard recordsChanges else { return }
        let action = change.action
        // An entity added that was not removed earlier in this mutation has no earlier change to
        // merge with (an add needs it absent; only a removal makes a changed entity absent): a
        // batch of adds is recorded without a hash table.
        if action == .added, removedKeys.isEmpty || !removedKeys.contains(key) {
            if !changeSlots.isEmpty { changeSlots[key] = changes.count }
            changeKeys.append(key)
            changes.append(change)
            return
        }
        if action == .removed { removedKeys.insert(key) }
        // Most mutations change one entity: a linear scan of a few keys beats a hash table.
        if changes.count < 8 {
            if let slot = changeKeys.firstIndex(of: key) {
                changes[slot] = MutationContext.merge(changes[slot], change)
            } else {
                changeKeys.append(key)
                changes.append(change)
            }
            return
        }
        if changeSlots.isEmpty {
            changeSlots.reserveCapacity(changeKeys.capacity)
            for (slot, existing) in changeKeys.enumerated() { changeSlots[existing] = slot }
        }
        guard let slot = changeSlots[key] else {
            changeSlots[key] = changes.count
            changeKeys.append(key)
            changes.append(change)
            return
        }
        changes[slot] = MutationContext.merge(changes[slot], change)
    }

    /// Appends a change-log change (never merged with another).
    private mutating func appendLogChange(_ change: Change) {
        if !changeSlots.isEmpty { changeSlots[.log(changes.count)] = changes.count }
        changeKeys.append(.log(changes.count))
        changes.append(change)
    }

    /// The first change's before with the second change's after.
    private static func merge(_ first: Change, _ second: Change) -> Change {
        switch (first, second) {
        case let (.location(b, _), .location(_, a)): .location(before: b, after: a)
        case let (.shiftType(b, _), .shiftType(_, a)): .shiftType(before: b, after: a)
        case let (.person(b, _), .person(_, a)): .person(before: b, after: a)
        case let (.shift(b, _, r1), .shift(_, a, r2)): .shift(before: b, after: a, reason: r2 ?? r1)
        case let (.demand(b, _), .demand(_, a)): .demand(before: b, after: a)
        case let (.availability(b, _), .availability(_, a)): .availability(before: b, after: a)
        case let (.settings(b, _), .settings(_, a)): .settings(before: b, after: a)
        case let (.request(b, _), .request(_, a)): .request(before: b, after: a)
        default: second
        }
    }

    /// Net changes without entities that were added and removed again within the mutation.
    var netChanges: [Change] {
        // Usually every change is one (no copy of a big batch's list is made then).
        guard !changes.allSatisfy(Self.isNetChange) else { return changes }
        return changes.filter(Self.isNetChange)
    }

    private static func isNetChange(_ change: Change) -> Bool {
        switch change {
        case let .location(b, a): !(b == nil && a == nil) && b != a
        case let .shiftType(b, a): !(b == nil && a == nil) && b != a
        case let .person(b, a): !(b == nil && a == nil) && b != a
        case let .shift(b, a, _): !(b == nil && a == nil) && b != a
        case let .demand(b, a): !(b == nil && a == nil) && b != a
        case let .availability(b, a): !(b == nil && a == nil) && b != a
        case let .settings(b, a): b != a
        case let .request(b, a): !(b == nil && a == nil) && b != a
        case .changeLogPruned, .changeLogRecorded: true
        }
    }

    // MARK: Change log

    mutating func record(_ entry: ChangeLogEntry, field: String) throws(ScheduleError) {
        if schedule.changeLog.contains(id: entry.id) {
            throw .duplicateID(entity: .changeLog, id: entry.id.description, field: field + ".id")
        }
        try Self.checkName(entry.userId, field: field + ".userId")
        try Self.checkName(entry.userDisplayName, field: field + ".userDisplayName")
        if let reason = entry.reason { try Self.checkText(reason, field: field + ".reason", allowNewlines: true) }
        guard entry.timestamp.timeIntervalSince1970.isFinite else {
            throw .invalidValue(field: field + ".timestamp", reason: "must be a finite instant")
        }
        if let created = entry.createdShifts {
            guard entry.changeType == .created else {
                throw .invalidValue(field: field + ".createdShifts", reason: "only an entry of change type created lists created shifts")
            }
            guard !created.shiftIDs.isEmpty else { throw .invalidValue(field: field + ".createdShifts.shiftIDs", reason: "must not be empty") }
            guard created.lastDate >= entry.scheduledShiftDate else {
                throw .invalidValue(field: field + ".createdShifts.lastDate", reason: "must not be before scheduledShiftDate")
            }
        }
        var stored = entry
        stored.timestamp = Timestamp.truncated(entry.timestamp)
        schedule.changeLog.append(stored)
        appendLogChange(.changeLogRecorded(stored))
    }

    // MARK: Locations

    mutating func add(_ location: Location, field: String) throws(ScheduleError) {
        guard schedule.locationStore[location.id] == nil else {
            throw .duplicateID(entity: .location, id: location.id.description, field: field + ".id")
        }
        try Self.checkName(location.name, field: field + ".name")
        try claim(location.name, for: location.id, replacing: nil, field: field + ".name")
        schedule.locationStore[location.id] = location
        record(key: .location(location.id), .location(before: nil, after: location))
    }

    mutating func update(_ location: Location, field: String) throws(ScheduleError) {
        guard let before = schedule.locationStore[location.id] else {
            throw .notFound(entity: .location, id: location.id.description, field: field + ".id")
        }
        try Self.checkName(location.name, field: field + ".name")
        try claim(location.name, for: location.id, replacing: before.name, field: field + ".name")
        schedule.locationStore[location.id] = location
        record(key: .location(location.id), .location(before: before, after: location))
    }

    mutating func removeLocation(_ id: LocationID, field: String) throws(ScheduleError) {
        guard let before = schedule.locationStore[id] else {
            throw .notFound(entity: .location, id: id.description, field: field)
        }
        for type in schedule.shiftTypeStore.values where type.locationID == id {
            var cleared = type
            cleared.locationID = nil
            try update(cleared, field: field)
        }
        schedule.locationStore[id] = nil
        locationNames?.remove(id, before.name)
        record(key: .location(id), .location(before: before, after: nil))
    }

    // MARK: Shift types

    mutating func add(_ type: ShiftType, field: String) throws(ScheduleError) {
        guard schedule.shiftTypeStore[type.id] == nil else {
            throw .duplicateID(entity: .shiftType, id: type.id.description, field: field + ".id")
        }
        try checkShiftType(type, field: field)
        schedule.shiftTypeStore[type.id] = type
        schedule.symbolIndex[type.symbol] = type.id
        record(key: .shiftType(type.id), .shiftType(before: nil, after: type))
    }

    mutating func update(_ type: ShiftType, field: String) throws(ScheduleError) {
        guard let before = schedule.shiftTypeStore[type.id] else {
            throw .notFound(entity: .shiftType, id: type.id.description, field: field + ".id")
        }
        try checkShiftType(type, field: field)
        schedule.symbolIndex[before.symbol] = nil
        schedule.symbolIndex[type.symbol] = type.id
        schedule.shiftTypeStore[type.id] = type
        record(key: .shiftType(type.id), .shiftType(before: before, after: type))
    }

    private func checkShiftType(_ type: ShiftType, field: String) throws(ScheduleError) {
        let symbol = type.symbol
        guard !symbol.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw .invalidValue(field: field + ".symbol", reason: "a shift type needs a symbol (e.g. D, N, E1)")
        }
        guard symbol.count <= 8, !symbol.contains(where: { $0.isWhitespace || $0.isNewline }) else {
            throw .invalidValue(field: field + ".symbol", reason: "'\(symbol)' must be 1 to 8 characters without spaces")
        }
        try Self.checkText(symbol, field: field + ".symbol")
        try Self.checkText(type.title, field: field + ".title")
        if let owner = schedule.symbolIndex[symbol], owner != type.id {
            throw .conflict(field: field + ".symbol", reason: "symbol '\(symbol)' is already used by another shift type")
        }
        if let location = type.locationID, schedule.locationStore[location] == nil {
            throw .unknownReference(field: field + ".locationID", id: location.description)
        }
    }

    mutating func removeShiftType(_ id: ShiftTypeID, field: String) throws(ScheduleError) {
        guard let before = schedule.shiftTypeStore[id] else {
            throw .notFound(entity: .shiftType, id: id.description, field: field)
        }
        for shift in schedule.shifts(ShiftQuery(shiftTypeIDs: [id])) {
            try removeShift(shift.id, reason: "shift type \(before.symbol) removed", field: field)
        }
        for item in schedule.demandStore.values where item.shiftTypeID == id { try removeDemand(item.id, field: field) }
        for item in schedule.availabilityStore.values where item.shiftTypeID == id {
            try removeAvailability(item.id, field: field)
        }
        for request in schedule.requestStore.values where request.shiftTypeID == id { removeRequest(request) }
        schedule.shiftTypeStore[id] = nil
        schedule.symbolIndex[before.symbol] = nil
        record(key: .shiftType(id), .shiftType(before: before, after: nil))
    }

    // MARK: People

    mutating func add(_ person: Person, field: String) throws(ScheduleError) {
        guard schedule.personStore[person.id] == nil else {
            throw .duplicateID(entity: .person, id: person.id.description, field: field + ".id")
        }
        try Self.checkName(person.displayName, field: field + ".displayName")
        try claim(person.displayName, for: person.id, replacing: nil, field: field + ".displayName")
        schedule.personStore[person.id] = person
        record(key: .person(person.id), .person(before: nil, after: person))
    }

    mutating func update(_ person: Person, field: String) throws(ScheduleError) {
        guard let before = schedule.personStore[person.id] else {
            throw .notFound(entity: .person, id: person.id.description, field: field + ".id")
        }
        try Self.checkName(person.displayName, field: field + ".displayName")
        try claim(person.displayName, for: person.id, replacing: before.displayName, field: field + ".displayName")
        schedule.personStore[person.id] = person
        record(key: .person(person.id), .person(before: before, after: person))
    }

    mutating func removePerson(_ id: PersonID, field: String) throws(ScheduleError) {
        guard let before = schedule.personStore[id] else {
            throw .notFound(entity: .person, id: id.description, field: field)
        }
        for shift in schedule.shifts(ShiftQuery(personID: id)) {
            var open = shift
            open.personID = nil
            try update(open, reason: "\(before.displayName) removed", field: field)
        }
        for availabilityID in schedule.availabilityByPerson[id] ?? [] { try removeAvailability(availabilityID, field: field) }
        for request in schedule.requestStore.values where request.requesterID == id || request.colleagueID == id {
            removeRequest(request)
        }
        schedule.personStore[id] = nil
        personNames?.remove(id, before.displayName)
        record(key: .person(id), .person(before: before, after: nil))
    }

    /// Takes a person's name for `id`, or fails when another person has it (ignoring case and
    /// outer spaces): every lookup by name would be ambiguous. A rename to the same name, or
    /// a load of a stored schedule, is not checked, so a store with duplicates from before
    /// still opens and its people can be renamed apart.
    private mutating func claim(_ name: String, for id: PersonID, replacing old: String?, field: String) throws(ScheduleError) {
        guard checksNames, old.map({ NameIndex<PersonID>.key($0) != NameIndex<PersonID>.key(name) }) ?? true else { return }
        var index = personNames ?? NameIndex(schedule.personStore.values.map { ($0.id, $0.displayName) })
        if let other = index.otherHolder(of: name, than: id) {
            throw .conflict(field: field, reason: "another person is already called '\(schedule.personStore[other]?.displayName ?? name)' (\(other.description.prefix(8))); give each person a name of their own")
        }
        if let old { index.remove(id, old) }
        index.insert(id, name)
        personNames = index
    }

    /// As for people: two locations may not share a name.
    private mutating func claim(_ name: String, for id: LocationID, replacing old: String?, field: String) throws(ScheduleError) {
        guard checksNames, old.map({ NameIndex<LocationID>.key($0) != NameIndex<LocationID>.key(name) }) ?? true else { return }
        var index = locationNames ?? NameIndex(schedule.locationStore.values.map { ($0.id, $0.name) })
        if let other = index.otherHolder(of: name, than: id) {
            throw .conflict(field: field, reason: "another location is already called '\(schedule.locationStore[other]?.name ?? name)' (\(other.description.prefix(8))); give each location a name of its own")
        }
        if let old { index.remove(id, old) }
        index.insert(id, name)
        locationNames = index
    }

    // MARK: Shifts

    mutating func add(_ shift: ScheduledShift, field: String) throws(ScheduleError) {
        try checkShift(shift, field: field)
        // One walk of the map both stores the shift and finds one already there (put back).
        if let existing = schedule.shiftStore.updateValue(shift, forKey: shift.id) {
            schedule.shiftStore[shift.id] = existing
            throw .duplicateID(entity: .shift, id: shift.id.description, field: field + ".id")
        }
        if schedule.source != nil, schedule.containsStoredShift(shift.id) {
            schedule.shiftStore[shift.id] = nil
            throw .duplicateID(entity: .shift, id: shift.id.description, field: field + ".id")
        }
        if !defersShiftIndex { schedule.index.insert(shift) }
        if shift.hasCustomEventIdentifier { schedule.eventIdentifierIndex[shift.eventIdentifier] = shift.id }
        record(key: .shift(shift.id), .shift(before: nil, after: shift, reason: nil))
    }

    /// Adds a shift, spelling out its field only when there is an error to name it in: a
    /// million adds would otherwise build a million strings. A failed add changes nothing, so
    /// the second try throws the same error, named.
    mutating func add(_ shift: ScheduledShift, namedOnFailure field: @autoclosure () -> String) throws(ScheduleError) {
        do throws(ScheduleError) { try add(shift, field: "") } catch { try add(shift, field: field()) }
    }

    mutating func update(_ shift: ScheduledShift, reason: String?, field: String) throws(ScheduleError) {
        guard let before = schedule.shift(shift.id) else {
            throw .notFound(entity: .shift, id: shift.id.description, field: field + ".id")
        }
        try checkStored(before, field: field)
        try checkShift(shift, field: field)
        unindex(before)
        schedule.shiftStore[shift.id] = shift
        schedule.index.insert(shift)
        if shift.hasCustomEventIdentifier { schedule.eventIdentifierIndex[shift.eventIdentifier] = shift.id }
        record(key: .shift(shift.id), .shift(before: before, after: shift, reason: reason))
    }

    mutating func removeShift(_ id: ShiftID, reason: String?, field: String) throws(ScheduleError) {
        guard let before = schedule.shift(id) else {
            throw .notFound(entity: .shift, id: id.description, field: field)
        }
        try checkStored(before, field: field)
        unindex(before)
        schedule.shiftStore[id] = nil
        record(key: .shift(id), .shift(before: before, after: nil, reason: reason))
    }

    /// A shift read from a source (a database) whose type is gone: the store is damaged, and the
    /// change log could not describe the shift. Refused rather than written on.
    private func checkStored(_ shift: ScheduledShift, field: String) throws(ScheduleError) {
        guard schedule.shiftTypeStore[shift.shiftTypeID] == nil else { return }
        throw .invalidValue(
            field: field, reason: "the stored shift \(shift.id) refers to shift type \(shift.shiftTypeID), which the store does not have (the store is damaged; nothing was written)")
    }

    /// Takes a shift's current version out of the indexes. A version that lives in the schedule's
    /// source (not in memory) is hidden instead, so the source's copy no longer shows.
    private mutating func unindex(_ shift: ScheduledShift) {
        if !schedule.shiftStore.contains(shift.id) {
            schedule.hiddenShifts.insert(shift.id)
            return
        }
        schedule.index.remove(shift)
        if shift.hasCustomEventIdentifier { schedule.eventIdentifierIndex[shift.eventIdentifier] = nil }
    }

    private func checkShift(_ shift: ScheduledShift, field: String) throws(ScheduleError) {
        guard schedule.shiftTypeStore.index(forKey: shift.shiftTypeID) != nil else {
            throw .unknownReference(field: field + ".shiftTypeID", id: shift.shiftTypeID.description)
        }
        if let person = shift.personID, schedule.personStore.index(forKey: person) == nil {
            throw .unknownReference(field: field + ".personID", id: person.description)
        }
        if shift.hasCustomEventIdentifier {
            let uid = shift.eventIdentifier
            guard !uid.isEmpty, uid.utf8.count <= 255 else {
                throw .invalidValue(field: field + ".eventIdentifier", reason: "must be 1 to 255 bytes")
            }
            if let owner = schedule.shift(customEventIdentifier: uid)?.id, owner != shift.id {
                throw .conflict(field: field + ".eventIdentifier", reason: "'\(uid)' is already the UID of another shift")
            }
        }
        if let notes = shift.notes { try Self.checkText(notes, field: field + ".notes", allowNewlines: true) }
    }

    // MARK: Demand and availability

    mutating func add(_ item: Demand, field: String) throws(ScheduleError) {
        guard schedule.demandStore[item.id] == nil else {
            throw .duplicateID(entity: .demand, id: item.id.description, field: field + ".id")
        }
        try checkDemand(item, field: field)
        schedule.demandStore[item.id] = item
        schedule.demandByDay[item.day, default: []].append(item.id)
        record(key: .demand(item.id), .demand(before: nil, after: item))
    }

    mutating func update(_ item: Demand, field: String) throws(ScheduleError) {
        guard let before = schedule.demandStore[item.id] else {
            throw .notFound(entity: .demand, id: item.id.description, field: field + ".id")
        }
        try checkDemand(item, field: field)
        unindex(before)
        schedule.demandStore[item.id] = item
        schedule.demandByDay[item.day, default: []].append(item.id)
        record(key: .demand(item.id), .demand(before: before, after: item))
    }

    mutating func removeDemand(_ id: DemandID, field: String) throws(ScheduleError) {
        guard let before = schedule.demandStore[id] else {
            throw .notFound(entity: .demand, id: id.description, field: field)
        }
        unindex(before)
        schedule.demandStore[id] = nil
        record(key: .demand(id), .demand(before: before, after: nil))
    }

    private mutating func unindex(_ item: Demand) {
        var ids = schedule.demandByDay[item.day] ?? []
        ids.removeAll { $0 == item.id }
        schedule.demandByDay[item.day] = ids.isEmpty ? nil : ids
    }

    private func checkDemand(_ item: Demand, field: String) throws(ScheduleError) {
        guard schedule.shiftTypeStore[item.shiftTypeID] != nil else {
            throw .unknownReference(field: field + ".shiftTypeID", id: item.shiftTypeID.description)
        }
        guard item.minimum >= 0 else { throw .invalidValue(field: field + ".minimum", reason: "must be 0 or more, not \(item.minimum)") }
        guard item.optimal >= item.minimum else {
            throw .invalidValue(field: field + ".optimal", reason: "must be at least the minimum (\(item.minimum)), not \(item.optimal)")
        }
        if let skill = item.skill { try Self.checkName(skill, field: field + ".skill") }
    }

    mutating func add(_ item: Availability, field: String) throws(ScheduleError) {
        guard schedule.availabilityStore[item.id] == nil else {
            throw .duplicateID(entity: .availability, id: item.id.description, field: field + ".id")
        }
        try checkAvailability(item, field: field)
        schedule.availabilityStore[item.id] = item
        schedule.availabilityByPerson[item.personID, default: []].append(item.id)
        record(key: .availability(item.id), .availability(before: nil, after: item))
    }

    mutating func update(_ item: Availability, field: String) throws(ScheduleError) {
        guard let before = schedule.availabilityStore[item.id] else {
            throw .notFound(entity: .availability, id: item.id.description, field: field + ".id")
        }
        try checkAvailability(item, field: field)
        unindex(before)
        schedule.availabilityStore[item.id] = item
        schedule.availabilityByPerson[item.personID, default: []].append(item.id)
        record(key: .availability(item.id), .availability(before: before, after: item))
    }

    mutating func removeAvailability(_ id: AvailabilityID, field: String) throws(ScheduleError) {
        guard let before = schedule.availabilityStore[id] else {
            throw .notFound(entity: .availability, id: id.description, field: field)
        }
        unindex(before)
        schedule.availabilityStore[id] = nil
        record(key: .availability(id), .availability(before: before, after: nil))
    }

    private mutating func unindex(_ item: Availability) {
        var ids = schedule.availabilityByPerson[item.personID] ?? []
        ids.removeAll { $0 == item.id }
        schedule.availabilityByPerson[item.personID] = ids.isEmpty ? nil : ids
    }

    private func checkAvailability(_ item: Availability, field: String) throws(ScheduleError) {
        guard schedule.personStore.index(forKey: item.personID) != nil else {
            throw .unknownReference(field: field + ".personID", id: item.personID.description)
        }
        if let type = item.shiftTypeID, schedule.shiftTypeStore[type] == nil {
            throw .unknownReference(field: field + ".shiftTypeID", id: type.description)
        }
        guard item.from <= item.to else {
            throw .invalidValue(field: field + ".to", reason: "ends (\(item.to)) before it starts (\(item.from))")
        }
        if let weight = item.weight, !weight.isFinite || weight < 0 {
            throw .invalidValue(field: field + ".weight", reason: "must be a finite number, 0 or more")
        }
    }

    // MARK: Requests

    /// A new request: one `pending` transition, a shape that fits its kind, and shifts still as
    /// the requester saw them.
    mutating func add(_ request: Request, field: String) throws(ScheduleError) {
        guard schedule.requestStore[request.id] == nil else {
            throw .duplicateID(entity: .request, id: request.id.description, field: field + ".id")
        }
        guard request.history.count == 1, request.state == .pending else {
            throw .invalidValue(field: field + ".history", reason: "a new request has one state change, to pending")
        }
        try checkRequest(request, field: field)
        try checkSeen(request, field: field)
        try checkParties(request, field: field)
        schedule.requestStore[request.id] = request
        record(key: .request(request.id), .request(before: nil, after: request))
    }

    /// A stored request read back: its shape only (its shifts may have changed since, and a
    /// store over a source has not read its shifts).
    mutating func load(_ request: Request, field: String) throws(ScheduleError) {
        guard schedule.requestStore[request.id] == nil else {
            throw .duplicateID(entity: .request, id: request.id.description, field: field + ".id")
        }
        guard !request.history.isEmpty else { throw .invalidValue(field: field + ".history", reason: "must not be empty") }
        try checkRequest(request, field: field)
        schedule.requestStore[request.id] = request
        record(key: .request(request.id), .request(before: nil, after: request))
    }

    /// A request moved on: the stored one plus one allowed transition. Accepting or approving
    /// needs its shifts still as the requester saw them.
    mutating func update(_ request: Request, field: String) throws(ScheduleError) {
        guard let before = schedule.requestStore[request.id] else {
            throw .notFound(entity: .request, id: request.id.description, field: field + ".id")
        }
        guard let transition = request.history.last, request.history.count == before.history.count + 1,
              Array(request.history.dropLast()) == before.history else {
            throw .invalidValue(field: field + ".history", reason: "a request moves by one state change added to its history")
        }
        var unchanged = request
        unchanged.history = before.history
        guard unchanged == before else {
            throw .invalidValue(field: field, reason: "only a request's state changes once it is made; make a new request instead")
        }
        guard before.state.canMove(to: transition.state, kind: request.kind, needsAcceptance: request.needsAcceptance) else {
            throw .conflict(field: field + ".state", reason: Self.refusedMove(before, to: transition.state))
        }
        try Self.check(transition, field: field + ".history[\(request.history.count - 1)]")
        if transition.state == .accepted || transition.state == .approved { try checkSeen(request, field: field) }
        schedule.requestStore[request.id] = request
        record(key: .request(request.id), .request(before: before, after: request))
    }

    private mutating func removeRequest(_ request: Request) {
        schedule.requestStore[request.id] = nil
        record(key: .request(request.id), .request(before: request, after: nil))
    }

    /// Why a request cannot move from its state to `next`, in words.
    static func refusedMove(_ request: Request, to next: RequestState) -> String {
        let name = "request \(request.id.description.prefix(8))"
        if !request.state.isOpen { return "\(name) is already \(request.state.rawValue); only a pending or accepted request can be \(next.rawValue)" }
        switch next {
        case .accepted where request.kind != .swap: return "\(name) is \(request.kind.aRequest); only a swap is accepted"
        case .accepted where !request.needsAcceptance: return "\(name) names no colleague to accept it"
        case .accepted: return "\(name) is already accepted"
        case .approved: return "\(name) is a swap with a colleague, who has to accept it before it is approved"
        case .pending: return "\(name) cannot go back to pending"
        default: return "\(name) cannot be \(next.rawValue) now"
        }
    }

    /// Fields that fit the kind, references that resolve, values that are valid.
    private func checkRequest(_ request: Request, field: String) throws(ScheduleError) {
        guard schedule.personStore.index(forKey: request.requesterID) != nil else {
            throw .unknownReference(field: field + ".requesterID", id: request.requesterID.description)
        }
        for (position, transition) in request.history.enumerated() {
            try Self.check(transition, field: field + ".history[\(position)]")
        }
        func absent(_ present: Bool, _ name: String) throws(ScheduleError) {
            if present { throw .invalidValue(field: field + "." + name, reason: "\(request.kind.aRequest) has none") }
        }
        func required(_ present: Bool, _ name: String, _ what: String) throws(ScheduleError) {
            if !present { throw .invalidValue(field: field + "." + name, reason: "\(request.kind.aRequest) needs \(what)") }
        }
        switch request.kind {
        case .swap, .offer, .claim:
            try required(request.shift != nil, "shift", "a shift")
            try absent(request.from != nil, "from")
            try absent(request.to != nil, "to")
            try absent(request.shiftTypeID != nil, "shiftTypeID")
            if request.kind != .swap {
                try absent(request.colleagueID != nil, "colleagueID")
                try absent(request.colleagueShift != nil, "colleagueShift")
            } else {
                try required(request.colleagueID != nil, "colleagueID", "a colleague")
            }
        case .timeOff:
            try absent(request.shift != nil, "shift")
            try absent(request.colleagueID != nil, "colleagueID")
            try absent(request.colleagueShift != nil, "colleagueShift")
            guard let from = request.from, let to = request.to else {
                throw .invalidValue(field: field + (request.from == nil ? ".from" : ".to"), reason: "time off needs a first and a last day")
            }
            guard from <= to else { throw .invalidValue(field: field + ".to", reason: "ends (\(to)) before it starts (\(from))") }
            if let type = request.shiftTypeID, schedule.shiftTypeStore[type] == nil {
                throw .unknownReference(field: field + ".shiftTypeID", id: type.description)
            }
        }
        if let colleague = request.colleagueID {
            guard schedule.personStore.index(forKey: colleague) != nil else {
                throw .unknownReference(field: field + ".colleagueID", id: colleague.description)
            }
            guard colleague != request.requesterID else {
                throw .invalidValue(field: field + ".colleagueID", reason: "a swap is with someone else")
            }
        }
    }

    private static func check(_ transition: RequestTransition, field: String) throws(ScheduleError) {
        try checkName(transition.userId, field: field + ".userId")
        try checkName(transition.userDisplayName, field: field + ".userDisplayName")
        if let reason = transition.reason { try checkText(reason, field: field + ".reason", allowNewlines: true) }
        guard transition.timestamp.timeIntervalSince1970.isFinite else {
            throw .invalidValue(field: field + ".timestamp", reason: "must be a finite instant")
        }
    }

    /// Whose shifts they are: a swap or an offer gives the requester's own shift, an exchange
    /// takes the colleague's, a claim takes an open one.
    private func checkParties(_ request: Request, field: String) throws(ScheduleError) {
        guard let seen = request.shift else { return }
        switch request.kind {
        case .swap, .offer:
            guard seen.personID == request.requesterID else {
                throw .conflict(field: field + ".shift", reason: "the shift on \(seen.date) is not the requester's own")
            }
        case .claim:
            guard seen.personID == nil else {
                throw .conflict(field: field + ".shift", reason: "the shift on \(seen.date) is not open; only an open shift can be claimed")
            }
        case .timeOff: break
        }
        if let other = request.colleagueShift, other.personID != request.colleagueID {
            throw .conflict(field: field + ".colleagueShift", reason: "the shift on \(other.date) is not the colleague's")
        }
    }

    /// The shifts a request names still have the type, date and person it saw.
    private func checkSeen(_ request: Request, field: String) throws(ScheduleError) {
        for (seen, name) in [(request.shift, "shift"), (request.colleagueShift, "colleagueShift")] {
            guard let seen else { continue }
            guard let now = schedule.shift(seen.shiftID) else {
                throw .conflict(field: field + "." + name, reason: "the shift of \(seen.date) (\(seen.shiftID.description.prefix(8))) no longer exists")
            }
            guard seen.matches(now) else {
                throw .conflict(field: field + "." + name, reason: "the shift changed since it was read: \(describe(seen)) is now \(describe(SeenShift(now))); look again and make the request anew")
            }
        }
    }

    private func describe(_ seen: SeenShift) -> String {
        let symbol = schedule.shiftTypeStore[seen.shiftTypeID]?.symbol ?? seen.shiftTypeID.description.prefix(8).description
        let person = seen.personID.map { schedule.personName($0) ?? $0.description.prefix(8).description } ?? "nobody"
        return "\(symbol) on \(seen.date) for \(person)"
    }

    // MARK: Values

    static func checkName(_ name: String, field: String) throws(ScheduleError) {
        guard !name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw .invalidValue(field: field, reason: "must not be empty")
        }
        try checkText(name, field: field)
    }

    /// Rejects control characters (a name with an escape sequence would garble terminals).
    static func checkText(_ text: String, field: String, allowNewlines: Bool = false) throws(ScheduleError) {
        for scalar in text.unicodeScalars where scalar.properties.generalCategory == .control {
            if allowNewlines, scalar == "\n" || scalar == "\t" || scalar == "\r" { continue }
            throw .invalidValue(
                field: field, reason: "contains the control character U+\(String(scalar.value, radix: 16, uppercase: true))")
        }
        guard text.utf8.count <= 4096 else { throw .invalidValue(field: field, reason: "is longer than 4096 bytes") }
    }
}
