import Foundation

/// Every change to a schedule. The store applies one mutation at a time through one funnel:
/// core invariants, then the rules, then an atomic commit (or nothing).
public indirect enum Mutation: Hashable, Sendable {
    case addLocation(Location)
    case updateLocation(Location)
    /// Removing a location clears it from shift types that use it (the `location_in_use` rule
    /// rejects this by default).
    case removeLocation(LocationID)

    case addShiftType(ShiftType)
    case updateShiftType(ShiftType)
    /// Removing a shift type removes its scheduled shifts, demand and availability entries
    /// (the `shift_type_in_use` rule rejects this by default when shifts use it).
    case removeShiftType(ShiftTypeID)

    case addPerson(Person)
    case updatePerson(Person)
    /// Removing a person unassigns their shifts and removes their availability
    /// (the `person_in_use` rule rejects this by default when they have future shifts).
    case removePerson(PersonID)

    case addDemand(Demand)
    case updateDemand(Demand)
    case removeDemand(DemandID)

    case addAvailability(Availability)
    case updateAvailability(Availability)
    case removeAvailability(AvailabilityID)

    /// Schedules a new shift.
    case scheduleShift(ScheduledShift)
    /// Replaces a shift's fields (type, date, person, notes, attributes) at once.
    case updateShift(ScheduledShift, reason: String? = nil)
    /// Removes a shift.
    case unscheduleShift(ShiftID, reason: String? = nil)
    /// Gives a shift to another person, or to nobody.
    case reassignShift(ShiftID, to: PersonID?, reason: String? = nil)
    /// Changes a shift's type (the seeds' shift switch), logged with old and new snapshot.
    case switchShift(ShiftID, to: ShiftTypeID, reason: String? = nil)

    /// Makes a request (swap, offer, claim, time off). Its history holds one `pending`
    /// transition; the shifts it names must still be as the request saw them.
    case addRequest(Request)
    /// Moves a request to its next state: the stored request plus one transition, and nothing
    /// else changed. Approving one is this together with the change it asks for, in a batch.
    case updateRequest(Request)

    case updateSettings(StoreSettings)
    /// Drops change-log entries older than the instant.
    case pruneChangeLog(before: Date)
    /// Appends an entry an app wrote itself (a change made elsewhere, an annotation) to the
    /// change log. The store logs its own shift changes; this is for everything else. The
    /// entry's id must be new; its timestamp is kept to whole milliseconds.
    case recordChangeLogEntry(ChangeLogEntry)

    /// Several mutations applied in order and committed together, or not at all.
    case batch([Mutation])

    /// How many single mutations this is (a batch counts its items, nested batches too).
    public var leafCount: Int {
        guard case let .batch(items) = self else { return 1 }
        return items.reduce(0) { $0 + $1.leafCount }
    }

    /// A short name for messages (`scheduleShift`, `batch of 12`).
    public var name: String {
        switch self {
        case .addLocation: "addLocation"
        case .updateLocation: "updateLocation"
        case .removeLocation: "removeLocation"
        case .addShiftType: "addShiftType"
        case .updateShiftType: "updateShiftType"
        case .removeShiftType: "removeShiftType"
        case .addPerson: "addPerson"
        case .updatePerson: "updatePerson"
        case .removePerson: "removePerson"
        case .addDemand: "addDemand"
        case .updateDemand: "updateDemand"
        case .removeDemand: "removeDemand"
        case .addAvailability: "addAvailability"
        case .updateAvailability: "updateAvailability"
        case .removeAvailability: "removeAvailability"
        case .scheduleShift: "scheduleShift"
        case .updateShift: "updateShift"
        case .unscheduleShift: "unscheduleShift"
        case .reassignShift: "reassignShift"
        case .switchShift: "switchShift"
        case .addRequest: "addRequest"
        case .updateRequest: "updateRequest"
        case .updateSettings: "updateSettings"
        case .pruneChangeLog: "pruneChangeLog"
        case .recordChangeLogEntry: "recordChangeLogEntry"
        case let .batch(items): "batch of \(items.count)"
        }
    }
}

/// The kinds of things a change touches; rules subscribe to them (`on = { "shift" }`).
public enum EntityKind: String, Codable, Hashable, Sendable, CaseIterable {
    case location
    case shiftType = "shift_type"
    case person
    case shift
    case demand
    case availability
    case settings
    case changeLog = "change_log"
    case request
}

/// Whether an entity appeared, changed or disappeared.
public enum ChangeAction: String, Codable, Hashable, Sendable {
    case added, updated, removed
}

/// One entity's net change within a mutation: its state before and after (a batch that touches
/// an entity twice yields one change from the first state to the last).
public enum Change: Hashable, Sendable {
    case location(before: Location?, after: Location?)
    case shiftType(before: ShiftType?, after: ShiftType?)
    case person(before: Person?, after: Person?)
    case shift(before: ScheduledShift?, after: ScheduledShift?, reason: String?)
    case demand(before: Demand?, after: Demand?)
    case availability(before: Availability?, after: Availability?)
    case settings(before: StoreSettings, after: StoreSettings)
    case request(before: Request?, after: Request?)
    case changeLogPruned(removed: Int)
    /// An entry appended by `recordChangeLogEntry`.
    case changeLogRecorded(ChangeLogEntry)

    public var entity: EntityKind {
        switch self {
        case .location: .location
        case .shiftType: .shiftType
        case .person: .person
        case .shift: .shift
        case .demand: .demand
        case .availability: .availability
        case .settings: .settings
        case .request: .request
        case .changeLogPruned, .changeLogRecorded: .changeLog
        }
    }

    public var action: ChangeAction {
        switch self {
        case let .location(b, a): ChangeAction(before: b != nil, after: a != nil)
        case let .shiftType(b, a): ChangeAction(before: b != nil, after: a != nil)
        case let .person(b, a): ChangeAction(before: b != nil, after: a != nil)
        case let .shift(b, a, _): ChangeAction(before: b != nil, after: a != nil)
        case let .demand(b, a): ChangeAction(before: b != nil, after: a != nil)
        case let .availability(b, a): ChangeAction(before: b != nil, after: a != nil)
        case let .request(b, a): ChangeAction(before: b != nil, after: a != nil)
        case .settings: .updated
        case .changeLogPruned: .removed
        case .changeLogRecorded: .added
        }
    }

    /// The id of the changed entity as text (nil for settings and the change log).
    public var entityID: String? {
        switch self {
        case let .location(b, a): (a?.id ?? b?.id)?.description
        case let .shiftType(b, a): (a?.id ?? b?.id)?.description
        case let .person(b, a): (a?.id ?? b?.id)?.description
        case let .shift(b, a, _): (a?.id ?? b?.id)?.description
        case let .demand(b, a): (a?.id ?? b?.id)?.description
        case let .availability(b, a): (a?.id ?? b?.id)?.description
        case let .request(b, a): (a?.id ?? b?.id)?.description
        case let .changeLogRecorded(entry): entry.id.description
        case .settings, .changeLogPruned: nil
        }
    }
}

extension ChangeAction {
    init(before: Bool, after: Bool) {
        self = before ? (after ? .updated : .removed) : .added
    }
}
