import Dependencies
import Foundation
import ShiftCore

/// A small schedule for previews and examples: one ward, three shift types, three people and
/// two weeks of shifts starting on the Monday of a given week, plus two change-log entries.
/// Ids are fixed, so previews and snapshots are stable.
public enum SampleSchedule {
    public static let ward = Location(id: LocationID(id(1)), name: "Ward 3", address: "Main St 1")
    public static let clinic = Location(id: LocationID(id(2)), name: "Day Clinic")
    public static let early = ShiftType(
        id: ShiftTypeID(id(10)), symbol: "E", title: "Early", duration: ShiftDuration("06:00-14:00")!, locationID: ward.id)
    public static let late = ShiftType(
        id: ShiftTypeID(id(11)), symbol: "L", title: "Late", duration: ShiftDuration("14:00-22:00")!, locationID: ward.id)
    public static let night = ShiftType(
        id: ShiftTypeID(id(12)), symbol: "N", title: "Night", duration: ShiftDuration("22:00-06:00")!, locationID: ward.id)
    public static let alice = Person(id: PersonID(id(20)), displayName: "Alice")
    public static let bob = Person(id: PersonID(id(21)), displayName: "Bob")
    public static let carol = Person(id: PersonID(id(22)), displayName: "Carol")
    /// The user previews act as.
    public static let profile = UserProfile(userId: "preview", displayName: "Preview User")

    /// The sample schedule for the two weeks from the Monday on or before `date`.
    /// - Parameter timeZone: the store's IANA time zone.
    public static func schedule(around date: LocalDate, timeZone: String = "UTC") throws -> Schedule {
        let monday = date.startOfWeek(weekStart: .monday)
        let rotation = [(alice, early), (bob, late), (carol, night)]
        var shifts: [ScheduledShift] = []
        for day in 0..<14 {
            for (slot, (person, type)) in rotation.enumerated() where (day + slot) % 5 < 4 {
                shifts.append(ScheduledShift(
                    id: ShiftID(id(1000 + day * 10 + slot)), shiftTypeID: type.id, date: monday.adding(days: day), personID: person.id))
            }
        }
        let first = shifts[0]
        let logged = Date(timeIntervalSince1970: TimeInterval(monday.dayNumber) * 86_400 - 86_400 * 3)
        let schedule = try Schedule(
            settings: StoreSettings(timeZoneIdentifier: timeZone), locations: [ward, clinic], shiftTypes: [early, late, night],
            people: [alice, bob, carol], shifts: shifts)
        let created = ShiftSnapshot(
            shiftID: first.id, shiftTypeID: late.id, symbol: late.symbol, title: late.title, duration: late.duration,
            date: first.date, locationID: ward.id, locationName: ward.name, personID: alice.id, personName: alice.displayName)
        return try Schedule(
            settings: schedule.settings, locations: [ward, clinic], shiftTypes: [early, late, night], people: [alice, bob, carol],
            shifts: shifts, changeLog: [
                ChangeLogEntry(
                    id: ChangeLogEntryID(id(5000)), timestamp: logged, userId: profile.userId, userDisplayName: profile.displayName,
                    changeType: .created, scheduledShiftDate: first.date, newShiftSnapshot: created),
                ChangeLogEntry(
                    id: ChangeLogEntryID(id(5001)), timestamp: logged.addingTimeInterval(3600), userId: profile.userId,
                    userDisplayName: profile.displayName, changeType: .switched, scheduledShiftDate: first.date,
                    oldShiftSnapshot: created, newShiftSnapshot: schedule.snapshot(of: first), reason: "Alice prefers earlies"),
            ])
    }

    private static func id(_ n: Int) -> UUID {
        UUID(uuidString: String(format: "5a3e0000-0000-4000-8000-%012x", n))!
    }
}

extension ScheduleConfiguration {
    /// A store in memory holding `SampleSchedule` around today (from the `date` dependency, in
    /// the current time zone), acting as `SampleSchedule.profile`, with no Lua rules unless
    /// folders are given.
    public static var preview: ScheduleConfiguration { preview(rulesDirectories: []) }

    /// `preview` with rules loaded from folders.
    public static func preview(rulesDirectories: [String]) -> ScheduleConfiguration {
        let backend = StoreBackend(description: "preview memory") {
            @Dependency(\.date) var date
            let zone = ZoneRules(identifier: TimeZone.current.identifier) != nil ? TimeZone.current.identifier : "UTC"
            let rules = ZoneRules(identifier: zone)!
            let today = rules.localDateTime(at: date.now).date
            return InMemoryRepository(try SampleSchedule.schedule(around: today, timeZone: zone))
        }
        return ScheduleConfiguration(backend: backend, rulesDirectories: rulesDirectories, defaultProfile: SampleSchedule.profile)
    }
}
