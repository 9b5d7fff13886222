import Foundation
import HashTreeCollections
import Synchronization

/// The whole state of a schedule: settings, entities, the change log, and the indexes that
/// answer rule queries without scanning.
///
/// `Schedule` is a value. Its storage is persistent (hash-array-mapped tries and chunked arrays),
/// so a copy costs O(1) and a change to a copy costs O(log n): the mutation funnel builds the
/// proposed schedule as a copy, shows both to the rules, and keeps or drops it.
public struct Schedule: Sendable {
    public private(set) var settings: StoreSettings { didSet { catalogVersion = Self.newCatalogVersion() } }
    /// The time-zone table for `settings.timeZoneIdentifier`.
    public private(set) var zone: ZoneRules
    public internal(set) var changeLog: ChangeLog

    var locationStore: TreeDictionary<LocationID, Location> = [:] { didSet { catalogVersion = Self.newCatalogVersion() } }
    var shiftTypeStore: TreeDictionary<ShiftTypeID, ShiftType> = [:] { didSet { catalogVersion = Self.newCatalogVersion() } }
    var personStore: TreeDictionary<PersonID, Person> = [:] { didSet { catalogVersion = Self.newCatalogVersion() } }
    var shiftStore = ShiftTable()
    var demandStore: TreeDictionary<DemandID, Demand> = [:] { didSet { catalogVersion = Self.newCatalogVersion() } }
    var availabilityStore: TreeDictionary<AvailabilityID, Availability> = [:] { didSet { catalogVersion = Self.newCatalogVersion() } }
    var requestStore: TreeDictionary<RequestID, Request> = [:] { didSet { catalogVersion = Self.newCatalogVersion() } }

    /// A number that stands for everything but the shifts and the change log (settings,
    /// locations, shift types, people, demand, availability, requests): it is new, unique in the
    /// process, whenever any of them changes, and only copies of a schedule share it. Two
    /// schedules with the same number hold the same catalog, whatever their shifts; what a rule
    /// keeps between calls from the catalog alone (its `cache`, docs/rules.md) stays good while
    /// the number does. A schedule built anew gets a new number even when its catalog is equal.
    public private(set) var catalogVersion: UInt64 = Schedule.newCatalogVersion()

    private static let catalogVersions = Atomic<UInt64>(0)
    private static func newCatalogVersion() -> UInt64 { catalogVersions.add(1, ordering: .relaxed).newValue }

    /// Where the shifts and the change log live when they are not held in memory (a SQLite
    /// store). Then `shiftStore` and the shift indexes hold only what this schedule changed (the
    /// overlay), and `hiddenShifts` the source's shifts it replaced or removed.
    public private(set) var source: (any ScheduleSource)?
    var hiddenShifts: TreeSet<ShiftID> = []

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
        changeLog: [ChangeLogEntry] = [], changeLogSource: (any ChangeLogSource)? = nil, requests: [Request] = []
    ) throws(ScheduleError) {
        try self.init(settings: settings)
        var context = MutationContext(schedule: self, recordsChanges: false, defersShiftIndex: true)
        for (i, location) in locations.enumerated() { try context.add(location, field: "locations[\(i)]") }
        for (i, type) in shiftTypes.enumerated() { try context.add(type, field: "shiftTypes[\(i)]") }
        for (i, person) in people.enumerated() { try context.add(person, field: "people[\(i)]") }
        for (i, shift) in shifts.enumerated() { try context.add(shift, namedOnFailure: "shifts[\(i)]") }
        for (i, item) in demand.enumerated() { try context.add(item, field: "demand[\(i)]") }
        for (i, item) in availability.enumerated() { try context.add(item, field: "availability[\(i)]") }
        for (i, item) in requests.enumerated() { try context.load(item, field: "requests[\(i)]") }
        self = context.schedule
        self.index = ShiftIndex(shifts: shifts)
        // A log section left unread (a JSON store opened by a command that does not show the
        // log) stays in its source, the given entries after it.
        self.changeLog = changeLogSource.map { ChangeLog(source: $0) } ?? ChangeLog()
        self.changeLog.append(contentsOf: changeLog)
    }

    /// A schedule whose catalog (settings, locations, shift types, people, demand, availability)
    /// is held in memory, checked as one batch of additions, and whose shifts and change log a
    /// source serves. Used by repositories that do not load everything (SQLite).
    public init(
        settings: StoreSettings, locations: [Location], shiftTypes: [ShiftType], people: [Person],
        demand: [Demand], availability: [Availability], requests: [Request] = [], source: any ScheduleSource
    ) throws(ScheduleError) {
        try self.init(
            settings: settings, locations: locations, shiftTypes: shiftTypes, people: people, demand: demand,
            availability: availability, requests: requests)
        self.source = source
        self.changeLog = ChangeLog(source: source)
    }

    /// This schedule after its repository stored it: the overlay dropped, shifts and the change
    /// log read from the source again. A schedule without a source is returned as it is.
    public func rebased() -> Schedule {
        guard source != nil else { return self }
        var copy = self
        copy.shiftStore = ShiftTable()
        copy.index = ShiftIndex()
        copy.eventIdentifierIndex = [:]
        copy.hiddenShifts = []
        copy.changeLog = changeLog.rebased()
        return copy
    }

    /// The same schedule held wholly in memory: every shift and log entry read from the source
    /// once. `readingChangeLog: false` leaves the log in the source, read from it when asked:
    /// for whole-schedule work that never shows it (`validate`). For whole-schedule work (validating, exporting, migrating) where one read beats many
    /// queries. A schedule without a source is returned as it is.
    public func materialized(readingChangeLog: Bool = true) throws(ScheduleError) -> Schedule {
        guard source != nil else { return self }
        var copy = try Schedule(settings: settings)
        var context = MutationContext(schedule: copy, recordsChanges: false, defersShiftIndex: true)
        for location in locationStore.values { try context.add(location, field: "locations") }
        for type in shiftTypeStore.values { try context.add(type, field: "shiftTypes") }
        for person in personStore.values { try context.add(person, field: "people") }
        // The stored shifts in the source's order (no merge into query order: storage has none),
        // less the ones this schedule hid, then the ones it holds.
        for shift in unorderedShifts() { try context.add(shift, field: "shifts") }
        for item in demandStore.values { try context.add(item, field: "demand") }
        for item in availabilityStore.values { try context.add(item, field: "availability") }
        for item in requestStore.values { try context.load(item, field: "requests") }
        copy = context.schedule
        copy.index = ShiftIndex(shifts: copy.shiftStore.values)
        copy.changeLog = readingChangeLog ? ChangeLog(changeLog) : changeLog
        return copy
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
    /// A person's display name (without copying the person).
    func personName(_ id: PersonID) -> String? {
        personStore.index(forKey: id).map { personStore[$0].value.displayName }
    }
    /// Whether the source holds a shift with this id that this schedule has not hidden.
    func containsStoredShift(_ id: ShiftID) -> Bool {
        guard let source, !hiddenShifts.contains(id) else { return false }
        return source.shift(id) != nil
    }
    public func shift(_ id: ShiftID) -> ScheduledShift? {
        if let shift = shiftStore[id] { return shift }
        guard let source, !hiddenShifts.contains(id) else { return nil }
        return source.shift(id)
    }
    public func demand(_ id: DemandID) -> Demand? { demandStore[id] }
    public func availability(_ id: AvailabilityID) -> Availability? { availabilityStore[id] }
    public func request(_ id: RequestID) -> Request? { requestStore[id] }

    /// The shift type with this symbol (symbols are unique).
    public func shiftType(symbol: String) -> ShiftType? { symbolIndex[symbol].flatMap { shiftTypeStore[$0] } }

    /// The shift with this calendar UID.
    public func shift(eventIdentifier: String) -> ScheduledShift? {
        if let shift = shift(customEventIdentifier: eventIdentifier) { return shift }
        guard eventIdentifier.hasSuffix("@shiftscheduler"), let id = ShiftID(eventIdentifier.dropLast(15)),
              let shift = shift(id), !shift.hasCustomEventIdentifier else { return nil }
        return shift
    }

    /// The shift whose custom calendar UID this is.
    func shift(customEventIdentifier uid: String) -> ScheduledShift? {
        if let id = eventIdentifierIndex[uid] { return shiftStore[id] }
        guard let source, let shift = source.shift(customEventIdentifier: uid), !hiddenShifts.contains(shift.id) else { return nil }
        return shift
    }

    /// All locations, by name then id.
    public var locations: [Location] { locationStore.values.sorted { ($0.name, $0.id) < ($1.name, $1.id) } }
    /// All shift types, by symbol.
    public var shiftTypes: [ShiftType] { shiftTypeStore.values.sorted { ($0.symbol, $0.id) < ($1.symbol, $1.id) } }
    /// All people, by display name then id.
    public var people: [Person] {
        // Positions sorted, not the people: a move is an integer instead of a whole person
        // (several reference counts), and a whole-schedule check sorts them every time.
        let values = Array(personStore.values)
        let order = values.indices.sorted { a, b in
            let (x, y) = (values[a], values[b])
            return x.displayName != y.displayName ? x.displayName < y.displayName : x.id < y.id
        }
        return order.map { values[$0] }
    }
    /// All demand, by day then shift type.
    public var demand: [Demand] { demandStore.values.sorted(by: Demand.storageOrder) }
    /// All availability entries, by start date then person.
    public var availability: [Availability] { availabilityStore.values.sorted(by: Availability.storageOrder) }
    /// All requests, in the order they were made.
    public var requests: [Request] { requestStore.values.sorted(by: Request.storageOrder) }
    public var requestCount: Int { requestStore.count }

    public var locationCount: Int { locationStore.count }
    public var shiftTypeCount: Int { shiftTypeStore.count }
    public var personCount: Int { personStore.count }
    public var shiftCount: Int { shiftStore.count + (source.map { $0.shiftCount - hiddenShifts.count } ?? 0) }

    /// Shift types at a location, by symbol.
    public func shiftTypes(at locationID: LocationID) -> [ShiftType] {
        shiftTypeStore.values.filter { $0.locationID == locationID }.sorted { ($0.symbol, $0.id) < ($1.symbol, $1.id) }
    }

    /// How many scheduled shifts use a shift type (two binary searches in the type index).
    public func shiftCount(ofType id: ShiftTypeID) -> Int {
        var total = index.count(ofType: id)
        if let source {
            total += source.shiftCount(ofType: id)
            for hidden in hiddenShifts where source.shift(hidden)?.shiftTypeID == id { total -= 1 }
        }
        return total
    }

    /// How many scheduled shifts a person has (optionally from a date on).
    public func shiftCount(of person: PersonID, from date: LocalDate? = nil) -> Int {
        var total = 0
        if let refs = index.shifts(of: person) {
            total = refs.count - (date.map { refs.lowerBound($0) } ?? 0)
        }
        if let source {
            total += source.shiftCount(of: person, from: date)
            for hidden in hiddenShifts {
                if let shift = source.shift(hidden), shift.personID == person, date.map({ shift.date >= $0 }) ?? true { total -= 1 }
            }
        }
        return total
    }

    /// How many scheduled shifts each of these people has, in their order: what
    /// `shiftCount(of:)` says for each, with a store that counts everyone at once (SQLite,
    /// PostgreSQL) asked once instead of once per person.
    public func shiftCounts(of people: [PersonID]) -> [Int] {
        guard let source, let stored = source.shiftCountsByPerson() else { return people.map { shiftCount(of: $0) } }
        var hidden: [PersonID: Int] = [:]
        for id in hiddenShifts {
            if let person = source.shift(id)?.personID { hidden[person, default: 0] += 1 }
        }
        return people.map { person in
            (index.shifts(of: person)?.count ?? 0) + (stored[person] ?? 0) - (hidden[person] ?? 0)
        }
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
    public var shiftDateRange: ClosedRange<LocalDate>? {
        guard let stored = source?.shiftDateRange else { return index.dateRange }
        guard let held = index.dateRange else { return stored }
        return min(stored.lowerBound, held.lowerBound)...max(stored.upperBound, held.upperBound)
    }
}

// MARK: - Time

extension Schedule {
    /// The instants a shift type occupies when it runs on `date`, in the store's time zone.
    /// Daylight saving changes make a night shift 7 or 9 hours long.
    public func interval(of duration: ShiftDuration, on date: LocalDate) -> InstantInterval {
        zone.interval(of: duration, on: date)
    }

    /// The instants a scheduled shift occupies (nil if its type is unknown, which a stored schedule never has).
    public func interval(of shift: ScheduledShift) -> InstantInterval? {
        shiftTypeStore[shift.shiftTypeID].map { interval(of: $0.duration, on: shift.date) }
    }
}

// MARK: - Equality

extension Schedule: Equatable {
    /// Two schedules are equal when their settings, entities and change log are; indexes are derived.
    /// Every shift in no particular order: the source's (less those this schedule hid) and the
    /// ones it holds. Cheaper than `shifts()`, which puts them in query order.
    func unorderedShifts() -> [ScheduledShift] {
        var all: [ScheduledShift] = []
        if let source {
            all = source.shifts(ShiftSourceRequest(from: .minimum, to: .maximum))
            if !hiddenShifts.isEmpty { all.removeAll { hiddenShifts.contains($0.id) } }
        }
        all.append(contentsOf: shiftStore.values)
        return all
    }

    public static func == (lhs: Schedule, rhs: Schedule) -> Bool {
        guard lhs.settings == rhs.settings && lhs.locationStore == rhs.locationStore
            && lhs.shiftTypeStore == rhs.shiftTypeStore && lhs.personStore == rhs.personStore
            && lhs.demandStore == rhs.demandStore && lhs.availabilityStore == rhs.availabilityStore
            && lhs.requestStore == rhs.requestStore
        else { return false }
        if lhs.source == nil && rhs.source == nil {
            guard lhs.shiftStore == rhs.shiftStore else { return false }
        } else {
            guard lhs.shiftCount == rhs.shiftCount,
                  lhs.unorderedShifts().sorted(by: { $0.id < $1.id }) == rhs.unorderedShifts().sorted(by: { $0.id < $1.id })
            else { return false }
        }
        return lhs.changeLog == rhs.changeLog
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
