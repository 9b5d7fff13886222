import Foundation

/// "Today" in a time zone from an injectable clock, and the day arithmetic the seed apps'
/// current-day client offers (today, tomorrow, yesterday, isToday, daysBetween).
///
/// ```swift
/// let day = CurrentDay(zone: schedule.zone, now: { fixedDate })
/// day.isToday(shift.date)
/// ```
public struct CurrentDay: Sendable {
    public let zone: ZoneRules
    public let now: @Sendable () -> Date

    /// - Parameters:
    ///   - zone: the time zone whose calendar decides when a day starts (the store's zone).
    ///   - now: the clock; tests pass a fixed one.
    public init(zone: ZoneRules, now: @escaping @Sendable () -> Date = { Date() }) {
        self.zone = zone
        self.now = now
    }

    /// The local date now.
    public var today: LocalDate {
        zone.localDateTime(at: now()).date
    }

    public var tomorrow: LocalDate { today.adding(days: 1) }
    public var yesterday: LocalDate { today.adding(days: -1) }

    public func isToday(_ date: LocalDate) -> Bool { date == today }

    /// Whole calendar days from `start` to `end` (negative when `end` is earlier).
    public func daysBetween(_ start: LocalDate, _ end: LocalDate) -> Int { start.days(to: end) }

    /// Whole calendar days from today to `date` (0 today, 1 tomorrow, -1 yesterday).
    public func daysFromToday(to date: LocalDate) -> Int { today.days(to: date) }
}

extension Schedule {
    /// The shifts that start on a date, by start time.
    public func shifts(on date: LocalDate) -> [ScheduledShift] { shifts(.on(date)) }

    /// The shifts that start between two dates (both inclusive), oldest first.
    public func shifts(from: LocalDate, to: LocalDate) -> [ScheduledShift] { shifts(ShiftQuery(from: from, to: to)) }

    /// Whether a shift of this type starts on the date (any person, or open).
    public func hasShift(type: ShiftTypeID, on date: LocalDate) -> Bool {
        count(ShiftQuery(from: date, to: date, shiftTypeIDs: [type], limit: 1)) > 0
    }

    /// Whether this person (or, for `nil`, an open shift) already has a shift of this type on the
    /// date: the duplicate check of the seed's calendar client.
    public func hasShift(type: ShiftTypeID, on date: LocalDate, person: PersonID?) -> Bool {
        var found = false
        let query = ShiftQuery(from: date, to: date, personID: person, unassignedOnly: person == nil, shiftTypeIDs: [type])
        forEachShift(query) { _ in found = true; return false }
        return found
    }
}

/// Calendar operations in the shape of the seed's `CalendarClient`: create, fetch, delete,
/// duplicate check and switch. Every write is one mutation through `apply`, so the rules see it
/// and a rejection leaves the store unchanged.
extension ScheduleStore {
    /// Schedules a shift of a type on a date.
    ///
    /// - Parameters:
    ///   - type: the shift type.
    ///   - date: the date the shift starts on.
    ///   - person: who works it; `nil` schedules an open shift.
    ///   - notes: an optional note.
    ///   - id: the new shift's id (a random one by default; tests pass fixed ones).
    ///   - allowDuplicate: when false (the default), a shift of the same type on the same date for
    ///     the same person (or a second open one) is refused as a duplicate.
    /// - Returns: the shift as committed.
    /// - Throws: `ScheduleError.conflict` for a duplicate, or whatever `apply` throws.
    @discardableResult
    public func createShift(
        type: ShiftTypeID, date: LocalDate, person: PersonID? = nil, notes: String? = nil,
        id: ShiftID = ShiftID(UUID.random()), allowDuplicate: Bool = false
    ) async throws -> ScheduledShift {
        try refresh()
        if !allowDuplicate, schedule.hasShift(type: type, on: date, person: person) {
            let symbol = schedule.shiftType(type)?.symbol ?? type.description
            let who = person.flatMap { schedule.person($0)?.displayName } ?? "an open shift"
            throw ScheduleError.conflict(field: "shift", reason: "\(who) already has \(symbol) on \(date) (a duplicate)")
        }
        let shift = ScheduledShift(id: id, shiftTypeID: type, date: date, personID: person, notes: notes)
        try await apply(.scheduleShift(shift))
        return schedule.shift(id) ?? shift
    }

    /// The shifts that start on a date, by start time.
    public func shifts(on date: LocalDate) -> [ScheduledShift] { schedule.shifts(on: date) }

    /// The shifts that start between two dates (both inclusive), oldest first.
    public func shifts(from: LocalDate, to: LocalDate) -> [ScheduledShift] { schedule.shifts(from: from, to: to) }

    /// Whether a shift of this type already starts on the date (the duplicate check).
    public func hasShift(type: ShiftTypeID, on date: LocalDate) -> Bool { schedule.hasShift(type: type, on: date) }

    /// Removes the shift with this calendar UID.
    /// - Throws: `ScheduleError.notFound` when no shift has the UID, or whatever `apply` throws.
    public func deleteShift(eventIdentifier: String, reason: String? = nil) async throws {
        let shift = try shift(withEventIdentifier: eventIdentifier)
        try await apply(.unscheduleShift(shift.id, reason: reason))
    }

    /// Changes the type of the shift with this calendar UID (the seeds' shift switch), logged
    /// with the old and new snapshot.
    /// - Returns: the shift after the switch.
    @discardableResult
    public func switchShift(eventIdentifier: String, to type: ShiftTypeID, reason: String? = nil) async throws -> ScheduledShift {
        let shift = try shift(withEventIdentifier: eventIdentifier)
        try await apply(.switchShift(shift.id, to: type, reason: reason))
        return schedule.shift(shift.id) ?? shift
    }

    /// Today, tomorrow… in the store's time zone, from the given clock.
    public func currentDay(now: @escaping @Sendable () -> Date = { Date() }) -> CurrentDay {
        CurrentDay(zone: schedule.zone, now: now)
    }

    private func shift(withEventIdentifier eventIdentifier: String) throws -> ScheduledShift {
        try refresh()
        guard let shift = schedule.shift(eventIdentifier: eventIdentifier) else {
            throw ScheduleError.notFound(entity: .shift, id: eventIdentifier, field: "eventIdentifier")
        }
        return shift
    }
}
