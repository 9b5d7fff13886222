import Foundation
import TestSupport
import Testing
@testable import ShiftCore

/// Every mutation kind, once accepted and once refused, with the store unchanged after the refusal.
@Suite struct EveryMutationTests {
    static let f = Fixture()
    static let demand = Demand(id: DemandID(uuid(50)), day: .weekday(.monday), shiftTypeID: f.day.id, minimum: 1, optimal: 2)
    static let request = Availability(id: AvailabilityID(uuid(60)), personID: f.bob.id, from: date("2026-03-02"), kind: .undesired)
    static let shift = f.shift(1, f.day, "2026-03-02", f.bob)
    static let ghost = uuid(999)

    /// A store holding one of everything.
    private func populated() async throws -> ScheduleStore {
        let (store, _) = try await Self.f.store()
        try await store.apply(.batch([.addDemand(Self.demand), .addAvailability(Self.request), .scheduleShift(Self.shift)]))
        return store
    }

    // Computed, not stored: a static array of mutations would live until exit, and LeakSanitizer
    // cannot follow the enum payload pointers Swift tags with spare bits (docs/guarantees.md, 6).
    static var accepted: [(String, Mutation)] {
        var ward = f.ward; ward.address = "Elsewhere"
        var night = f.night; night.title = "Late night"
        var carol = f.carol; carol.attributes = ["team": .string("B")]
        var more = demand; more.optimal = 3
        var longer = request; longer.to = date("2026-03-04")
        var noted = shift; noted.notes = "keys"
        var settings = StoreSettings(timeZoneIdentifier: "Asia/Tokyo"); settings.weekStart = .sunday
        return [
            ("addLocation", .addLocation(Location(id: LocationID(uuid(2000)), name: "Annex"))),
            ("updateLocation", .updateLocation(ward)), ("removeLocation", .removeLocation(f.ward.id)),
            ("addShiftType", .addShiftType(ShiftType(id: ShiftTypeID(uuid(2001)), symbol: "L", title: "Late", duration: ShiftDuration("14:00-22:00")!))),
            ("updateShiftType", .updateShiftType(night)), ("removeShiftType", .removeShiftType(f.night.id)),
            ("addPerson", .addPerson(Person(id: PersonID(uuid(2002)), displayName: "Dave"))),
            ("updatePerson", .updatePerson(carol)), ("removePerson", .removePerson(f.carol.id)),
            ("addDemand", .addDemand(Demand(id: DemandID(uuid(2003)), day: .date(date("2026-03-03")), shiftTypeID: f.night.id, minimum: 1, optimal: 1))),
            ("updateDemand", .updateDemand(more)), ("removeDemand", .removeDemand(demand.id)),
            ("addAvailability", .addAvailability(Availability(id: AvailabilityID(uuid(2004)), personID: f.carol.id, from: date("2026-03-05"), kind: .desired))),
            ("updateAvailability", .updateAvailability(longer)), ("removeAvailability", .removeAvailability(request.id)),
            ("scheduleShift", .scheduleShift(f.shift(2, f.night, "2026-03-03", f.carol))),
            ("updateShift", .updateShift(noted, reason: "note")), ("unscheduleShift", .unscheduleShift(shift.id, reason: "gone")),
            ("reassignShift", .reassignShift(shift.id, to: f.carol.id, reason: "swap")),
            ("switchShift", .switchShift(shift.id, to: f.night.id, reason: "nights")),
            ("updateSettings", .updateSettings(settings)), ("pruneChangeLog", .pruneChangeLog(before: fixedNow.addingTimeInterval(1))),
            ("recordChangeLogEntry", .recordChangeLogEntry(ChangeLogEntry(
                id: ChangeLogEntryID(uuid(2006)), timestamp: fixedNow, userId: "app", userDisplayName: "App",
                changeType: .updated, scheduledShiftDate: date("2026-03-02"), reason: "imported"))),
            ("batch", .batch([.addPerson(Person(id: PersonID(uuid(2005)), displayName: "Erin")), .unscheduleShift(shift.id)])),
        ]
    }

    @Test(arguments: accepted.map(\.0)) func isAccepted(_ name: String) async throws {
        let mutation = Self.accepted.first { $0.0 == name }!.1
        let store = try await populated()
        let before = await store.schedule
        let result = try await store.apply(mutation)
        #expect(!result.changes.isEmpty)
        #expect(await store.schedule != before)
    }

    static var refused: [(String, Mutation, ScheduleError)] {
        let missing = ghost.lowercasedString
        var ghostLocation = f.ward; ghostLocation.id = LocationID(ghost)
        var ghostType = f.night; ghostType.id = ShiftTypeID(ghost); ghostType.symbol = "G"
        var ghostPerson = f.carol; ghostPerson.id = PersonID(ghost)
        var ghostDemand = demand; ghostDemand.id = DemandID(ghost)
        var ghostRequest = request; ghostRequest.id = AvailabilityID(ghost)
        var ghostShift = shift; ghostShift.id = ShiftID(ghost)
        var badDemand = demand; badDemand.id = DemandID(uuid(2010)); badDemand.minimum = -1
        return [
            ("addLocation", .addLocation(f.ward), .duplicateID(entity: .location, id: f.ward.id.description, field: "location.id")),
            ("updateLocation", .updateLocation(ghostLocation), .notFound(entity: .location, id: missing, field: "location.id")),
            ("removeLocation", .removeLocation(LocationID(ghost)), .notFound(entity: .location, id: missing, field: "locationID")),
            ("addShiftType", .addShiftType(f.day), .duplicateID(entity: .shiftType, id: f.day.id.description, field: "shiftType.id")),
            ("updateShiftType", .updateShiftType(ghostType), .notFound(entity: .shiftType, id: missing, field: "shiftType.id")),
            ("removeShiftType", .removeShiftType(ShiftTypeID(ghost)), .notFound(entity: .shiftType, id: missing, field: "shiftTypeID")),
            ("addPerson", .addPerson(f.bob), .duplicateID(entity: .person, id: f.bob.id.description, field: "person.id")),
            ("updatePerson", .updatePerson(ghostPerson), .notFound(entity: .person, id: missing, field: "person.id")),
            ("removePerson", .removePerson(PersonID(ghost)), .notFound(entity: .person, id: missing, field: "personID")),
            ("addDemand", .addDemand(badDemand), .invalidValue(field: "demand.minimum", reason: "must be 0 or more, not -1")),
            ("updateDemand", .updateDemand(ghostDemand), .notFound(entity: .demand, id: missing, field: "demand.id")),
            ("removeDemand", .removeDemand(DemandID(ghost)), .notFound(entity: .demand, id: missing, field: "demandID")),
            ("addAvailability", .addAvailability(request), .duplicateID(entity: .availability, id: request.id.description, field: "availability.id")),
            ("updateAvailability", .updateAvailability(ghostRequest), .notFound(entity: .availability, id: missing, field: "availability.id")),
            ("removeAvailability", .removeAvailability(AvailabilityID(ghost)), .notFound(entity: .availability, id: missing, field: "availabilityID")),
            ("scheduleShift", .scheduleShift(shift), .duplicateID(entity: .shift, id: shift.id.description, field: "shift.id")),
            ("updateShift", .updateShift(ghostShift), .notFound(entity: .shift, id: missing, field: "shift.id")),
            ("unscheduleShift", .unscheduleShift(ShiftID(ghost)), .notFound(entity: .shift, id: missing, field: "shiftID")),
            ("reassignShift", .reassignShift(shift.id, to: PersonID(ghost)), .unknownReference(field: "shift.personID", id: missing)),
            ("switchShift", .switchShift(shift.id, to: ShiftTypeID(ghost)), .unknownReference(field: "shift.shiftTypeID", id: missing)),
            ("updateSettings", .updateSettings(StoreSettings(timeZoneIdentifier: "Nowhere/Land")),
             .invalidValue(field: "settings.timeZone", reason: "'Nowhere/Land' is not an IANA time zone (e.g. Europe/Berlin)")),
            ("recordChangeLogEntry", .recordChangeLogEntry(ChangeLogEntry(
                id: ChangeLogEntryID(uuid(2012)), timestamp: fixedNow, userId: " ", userDisplayName: "App",
                changeType: .updated, scheduledShiftDate: date("2026-03-02"))),
             .invalidValue(field: "changeLogEntry.userId", reason: "must not be empty")),
            ("batch", .batch([.addPerson(Person(id: PersonID(uuid(2011)), displayName: "Fay")), .removePerson(PersonID(ghost))]),
             .notFound(entity: .person, id: missing, field: "batch[1].personID")),
        ]
    }

    @Test(arguments: refused.map(\.0)) func isRefused(_ name: String) async throws {
        let (_, mutation, expected) = Self.refused.first { $0.0 == name }!
        let store = try await populated()
        let before = await store.schedule
        await #expect(throws: expected) { try await store.apply(mutation) }
        #expect(await store.schedule == before)
    }
}
