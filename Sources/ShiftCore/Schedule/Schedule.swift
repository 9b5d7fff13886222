import Foundation
import HashTreeCollections

/// The whole state of a schedule: settings, entities, the change log, and the indexes that
/// answer rule queries without scanning.
///
/// `Schedule` is a value. Its storage is persistent (hash-array-mapped tries and chunked arrays),
/// so a copy costs O(1) and a change to a copy costs O(log n): the mutation funnel builds the
/// proposed schedule as a copy, shows both to the rules, and keeps or drops it.
public struct Schedule: Sendable {
    public private(set) var settings: StoreSettings
    /// The time-zone table for `settings.timeZoneIdentifier`.
    public private(set) var zone: ZoneRules
    public internal(set) var changeLog: ChangeLog

    var locationStore: TreeDictionary<LocationID, Location> = [:]
    var shiftTypeStore: TreeDictionary<ShiftTypeID, ShiftType> = [:]
    var personStore: TreeDictionary<PersonID, Person> = [:]
    var shiftStore: TreeDictionary<ShiftID, ScheduledShift> = [:]
    var demandStore: TreeDictionary<DemandID, Demand> = [:]
    var availabilityStore: TreeDictionary<AvailabilityID, Availability> = [:]

    var index = ShiftIndex()
    var symbolIndex: TreeDictionary<String, ShiftTypeID> = [:]
    var eventIdentifierIndex: TreeDictionary<String, ShiftID> = [:]
    var demandByDay: TreeDictionary<DemandDay, [DemandID]> = [:]
    var availabilityByPerson: TreeDictionary<PersonID, [AvailabilityID]> = [:]

    /// An empty schedule. Throws when the settings' time zone is unknown.
    public init(settings: StoreSettings = StoreSettings()) throws(ScheduleError) {
        guard let zone = ZoneRules(identifier: settings.timeZoneIdentifier) else {
            throw .invalidValue(field: "settings.timeZone", reason: "'\(settings.timeZoneIdentifier)' is not an IANA time zone (e.g. Europe/Berlin)")
        }
        self.settings = settings
        self.zone = zone
        self.changeLog = ChangeLog()
    }

    /// A schedule holding the given entities, checked as one batch of additions (ids unique,
    /// references resolve, values valid). Used by repositories when they load a store.
    public init(
        settings: StoreSettings, locations: [Location] = [], shiftTypes: [ShiftType] = [], people: [Person] = [],
        shifts: [ScheduledShift] = [], demand: [Demand] = [], availability: [Availability] = [],
        changeLog: [ChangeLogEntry] = []
    ) throws(ScheduleError) {
        try self.init(settings: settings)
        var context = MutationContext(schedule: self, recordsChanges: false)
        for (i, location) in locations.enumerated() { try context.add(location, field: "locations[\(i)]") }
        for (i, type) in shiftTypes.enumerated() { try context.add(type, field: "shiftTypes[\(i)]") }
        for (i, person) in people.enumerated() { try context.add(person, field: "people[\(i)]") }
        for (i, shift) in shifts.enumerated() { try context.add(shift, field: "shifts[\(i)]") }
        for (i, item) in demand.enumerated() { try context.add(item, field: "demand[\(i)]") }
        for (i, item) in availability.enumerated() { try context.add(item, field: "availability[\(i)]") }
        self = context.schedule
        self.changeLog = ChangeLog(changeLog)
    }

    mutating func replaceSettings(_ newSettings: StoreSettings) throws(ScheduleError) {
        guard let zone = ZoneRules(identifier: newSettings.timeZoneIdentifier) else {
            throw .invalidValue(field: "settings.timeZone", reason: "'\(newSettings.timeZoneIdentifier)' is not an IANA time zone (e.g. Europe/Berlin)")
        }
        settings = newSettings
        self.zone = zone
    }
}

// MARK: - Reading entities

extension Schedule {
    public func location(_ id: LocationID) -> Location? { locationStore[id] }
    public func shiftType(_ id: ShiftTypeID) -> ShiftType? { shiftTypeStore[id] }
    public func person(_ id: PersonID) -> Person? { personStore[id] }
    public func shift(_ id: ShiftID) -> ScheduledShift? { shiftStore[id] }
    public func demand(_ id: DemandID) -> Demand? { demandStore[id] }
    public func availability(_ id: AvailabilityID) -> Availability? { availabilityStore[id] }

    /// The shift type with this symbol (symbols are unique).
    public func shiftType(symbol: String) -> ShiftType? { symbolIndex[symbol].flatMap { shiftTypeStore[$0] } }

    /// The shift with this calendar UID.
    public func shift(eventIdentifier: String) -> ScheduledShift? {
        if let id = eventIdentifierIndex[eventIdentifier] { return shiftStore[id] }
        guard eventIdentifier.hasSuffix("@shiftscheduler"), let id = ShiftID(eventIdentifier.dropLast(15)),
              let shift = shiftStore[id], !shift.hasCustomEventIdentifier else { return nil }
        return shift
    }

    /// All locations, by name then id.
    public var locations: [Location] { locationStore.values.sorted { ($0.name, $0.id) < ($1.name, $1.id) } }
    /// All shift types, by symbol.
    public var shiftTypes: [ShiftType] { shiftTypeStore.values.sorted { ($0.symbol, $0.id) < ($1.symbol, $1.id) } }
    /// All people, by display name then id.
    public var people: [Person] { personStore.values.sorted { ($0.displayName, $0.id) < ($1.displayName, $1.id) } }
    /// All demand, by day then shift type.
    public var demand: [Demand] { demandStore.values.sorted(by: Demand.storageOrder) }
    /// All availability entries, by start date then person.
    public var availability: [Availability] { availabilityStore.values.sorted(by: Availability.storageOrder) }

    public var locationCount: Int { locationStore.count }
    public var shiftTypeCount: Int { shiftTypeStore.count }
    public var personCount: Int { personStore.count }
    public var shiftCount: Int { shiftStore.count }

    /// Shift types at a location, by symbol.
    public func shiftTypes(at locationID: LocationID) -> [ShiftType] {
        shiftTypeStore.values.filter { $0.locationID == locationID }.sorted { ($0.symbol, $0.id) < ($1.symbol, $1.id) }
    }

    /// How many scheduled shifts use a shift type (a walk over the type's days, not the store).
    public func shiftCount(ofType id: ShiftTypeID) -> Int {
        guard let range = index.dateRange else { return 0 }
        var total = 0
        for date in stride(from: range.lowerBound, through: range.upperBound, by: 1) {
            total += index.byTypeDate[TypeDay(type: id, date: date)]?.count ?? 0
        }
        return total
    }

    /// How many scheduled shifts a person has (optionally from a date on).
    public func shiftCount(of person: PersonID, from date: LocalDate? = nil) -> Int {
        guard let refs = index.byPerson[person] else { return 0 }
        guard let date else { return refs.count }
        return refs.count - ShiftIndex.lowerBound(refs, date)
    }

    /// Demand that applies on a date: entries for that date and for its weekday.
    public func demand(on date: LocalDate) -> [Demand] {
        let ids = (demandByDay[.date(date)] ?? []) + (demandByDay[.weekday(date.weekday)] ?? [])
        return ids.compactMap { demandStore[$0] }.sorted(by: Demand.storageOrder)
    }

    /// Availability entries covering a date, for one person or everyone.
    public func availability(on date: LocalDate, personID: PersonID? = nil) -> [Availability] {
        let candidates: [Availability]
        if let personID {
            candidates = (availabilityByPerson[personID] ?? []).compactMap { availabilityStore[$0] }
        } else {
            candidates = Array(availabilityStore.values)
        }
        return candidates.filter { $0.covers(date) }.sorted(by: Availability.storageOrder)
    }

    /// Every availability entry of a person.
    public func availability(of personID: PersonID) -> [Availability] {
        (availabilityByPerson[personID] ?? []).compactMap { availabilityStore[$0] }.sorted(by: Availability.storageOrder)
    }

    /// Earliest and latest date that has a shift (nil when there are none).
    public var shiftDateRange: ClosedRange<LocalDate>? { index.dateRange }
}

// MARK: - Time

extension Schedule {
    /// The instants a shift type occupies when it runs on `date`, in the store's time zone.
    /// Daylight saving changes make a night shift 7 or 9 hours long.
    public func interval(of duration: ShiftDuration, on date: LocalDate) -> InstantInterval {
        let (start, end) = duration.minuteRange
        return InstantInterval(start: zone.instant(of: date, minutes: start), end: zone.instant(of: date, minutes: end))
    }

    /// The instants a scheduled shift occupies (nil if its type is unknown, which a stored schedule never has).
    public func interval(of shift: ScheduledShift) -> InstantInterval? {
        shiftTypeStore[shift.shiftTypeID].map { interval(of: $0.duration, on: shift.date) }
    }
}

// MARK: - Equality

extension Schedule: Equatable {
    /// Two schedules are equal when their settings, entities and change log are; indexes are derived.
    public static func == (lhs: Schedule, rhs: Schedule) -> Bool {
        lhs.settings == rhs.settings && lhs.locationStore == rhs.locationStore
            && lhs.shiftTypeStore == rhs.shiftTypeStore && lhs.personStore == rhs.personStore
            && lhs.shiftStore == rhs.shiftStore && lhs.demandStore == rhs.demandStore
            && lhs.availabilityStore == rhs.availabilityStore && lhs.changeLog == rhs.changeLog
    }
}

// MARK: - Orders

extension Demand {
    /// The order demand is listed and stored in: dated entries by date, then weekday entries.
    public static func storageOrder(_ a: Demand, _ b: Demand) -> Bool {
        func key(_ d: Demand) -> (Int, Int32, String, String, UUID) {
            switch d.day {
            case let .date(date): (0, date.dayNumber, d.shiftTypeID.description, d.skill ?? "", d.id.rawValue)
            case let .weekday(day): (1, Int32(day.rawValue), d.shiftTypeID.description, d.skill ?? "", d.id.rawValue)
            }
        }
        let (ka, kb) = (key(a), key(b))
        if ka.0 != kb.0 { return ka.0 < kb.0 }
        if ka.1 != kb.1 { return ka.1 < kb.1 }
        if ka.2 != kb.2 { return ka.2 < kb.2 }
        if ka.3 != kb.3 { return ka.3 < kb.3 }
        return a.id < b.id
    }
}

extension Availability {
    public static func storageOrder(_ a: Availability, _ b: Availability) -> Bool {
        if a.from != b.from { return a.from < b.from }
        if a.personID != b.personID { return a.personID < b.personID }
        return a.id < b.id
    }
}

extension ScheduledShift {
    /// The order shifts are stored in: by date, then id.
    public static func storageOrder(_ a: ScheduledShift, _ b: ScheduledShift) -> Bool {
        a.date != b.date ? a.date < b.date : a.id < b.id
    }
}
