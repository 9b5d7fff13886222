import Foundation
import ShiftCore
@testable import ShiftStorage
import TestSupport

let tester = UserProfile(userId: "tester", displayName: "Tester")

/// Entities of every kind, with attributes, notes, custom UIDs and a change log.
func richSchedule() throws -> Schedule {
    let ward = Location(id: LocationID(uuid(1)), name: "Ward \"3\", east", address: "Main St 1\nFloor 2",
                        attributes: ["beds": .number(24), "icu": .bool(false)])
    let day = ShiftType(id: ShiftTypeID(uuid(2)), symbol: "D", title: "Day", description: "Early day",
                        duration: ShiftDuration("07:00-19:00")!, locationID: ward.id, attributes: ["hours": .number(11.5)])
    let night = ShiftType(id: ShiftTypeID(uuid(3)), symbol: "N", title: "Nacht", duration: ShiftDuration("19:00-07:00")!)
    let office = ShiftType(id: ShiftTypeID(uuid(4)), symbol: "O", title: "Office", duration: .allDay)
    let bob = Person(id: PersonID(uuid(10)), displayName: "Bob Øster; \"B\"",
                     attributes: ["skills": .list([.string("nurse"), .string("head")]), "max_hours": .number(38.5)])
    let carol = Person(id: PersonID(uuid(11)), displayName: "Carol ☀︎")
    var shifts: [ScheduledShift] = []
    for n in 0..<40 {
        var shift = ScheduledShift(
            id: ShiftID(uuid(100 + n)), shiftTypeID: [day.id, night.id, office.id][n % 3],
            date: date("2026-03-01").adding(days: n / 2), personID: n % 5 == 0 ? nil : (n % 2 == 0 ? bob.id : carol.id))
        if n % 7 == 0 { shift.notes = "note \(n)\twith tab" }
        if n % 11 == 0 { shift.attributes = ["skill": .string("nurse")] }
        if n % 13 == 0 { shift.eventIdentifier = "imported-\(n)@example.com" }
        shifts.append(shift)
    }
    let demand = [
        Demand(id: DemandID(uuid(50)), day: .weekday(.monday), shiftTypeID: day.id, skill: "nurse", minimum: 1, optimal: 2),
        Demand(id: DemandID(uuid(51)), day: .date(date("2026-03-04")), shiftTypeID: night.id, minimum: 2, optimal: 2),
    ]
    let availability = [
        Availability(id: AvailabilityID(uuid(60)), personID: bob.id, from: date("2026-03-10"), to: date("2026-03-12"), kind: .unavailable),
        Availability(id: AvailabilityID(uuid(61)), personID: carol.id, from: date("2026-03-02"), shiftTypeID: night.id,
                     kind: .undesired, weight: 2.5),
    ]
    let snapshot = ShiftSnapshot(shiftID: shifts[1].id, shiftTypeID: night.id, symbol: "N", title: "Nacht",
                                 duration: night.duration, date: shifts[1].date, locationName: "Ward", personID: carol.id,
                                 personName: "Carol ☀︎", notes: "x")
    let log = [
        ChangeLogEntry(id: ChangeLogEntryID(uuid(70)), timestamp: Date(timeIntervalSince1970: 1_790_000_000.25), userId: "alice",
                       userDisplayName: "Alice", changeType: .created, scheduledShiftDate: shifts[1].date, newShiftSnapshot: snapshot),
        ChangeLogEntry(id: ChangeLogEntryID(uuid(71)), timestamp: Date(timeIntervalSince1970: 1_790_000_100), userId: "alice",
                       userDisplayName: "Alice", changeType: .switched, scheduledShiftDate: shifts[1].date,
                       oldShiftSnapshot: snapshot, newShiftSnapshot: snapshot, reason: "swap, \"urgent\""),
    ]
    return try Schedule(
        settings: StoreSettings(timeZoneIdentifier: "Europe/Berlin", weekStart: .sunday, changeLogRetention: .days(365),
                                extra: ["rules.directories": .list([.string("rules")])]),
        locations: [ward], shiftTypes: [day, night, office], people: [bob, carol], shifts: shifts, demand: demand,
        availability: availability, changeLog: log, requests: sampleRequests(shifts, bob: bob, carol: carol, night: night))
}

/// One request of each kind, in several states, with reasons that need escaping.
func sampleRequests(_ shifts: [ScheduledShift], bob: Person, carol: Person, night: ShiftType) -> [Request] {
    func at(_ seconds: Double, _ state: RequestState, _ reason: String? = nil) -> RequestTransition {
        RequestTransition(state: state, timestamp: Date(timeIntervalSince1970: 1_790_000_000.5 + seconds), userId: "bob",
                          userDisplayName: "Bob Øster", reason: reason)
    }
    return [
        Request(id: RequestID(uuid(80)), kind: .swap, requesterID: bob.id, shift: SeenShift(shifts[2]), colleagueID: carol.id,
                colleagueShift: SeenShift(shifts[1]),
                history: [at(0, .pending, "wedding, \"Saturday\"\nsorry"), at(60, .accepted), at(120, .approved, "ok")]),
        Request(id: RequestID(uuid(81)), kind: .offer, requesterID: bob.id, shift: SeenShift(shifts[4]), history: [at(10, .pending)]),
        Request(id: RequestID(uuid(82)), kind: .claim, requesterID: carol.id, shift: SeenShift(shifts[5]),
                history: [at(20, .pending), at(30, .cancelled, "never mind")]),
        Request(id: RequestID(uuid(83)), kind: .timeOff, requesterID: carol.id, from: date("2026-04-01"), to: date("2026-04-03"),
                shiftTypeID: night.id, history: [at(40, .pending, "holiday")]),
    ]
}

func readBytes(_ path: String) -> [UInt8] { [UInt8](FileManager.default.contents(atPath: path) ?? Data()) }
func writeText(_ text: String, to path: String) { _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) }
