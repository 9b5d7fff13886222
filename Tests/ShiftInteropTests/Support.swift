import Foundation
import ShiftCore
import TestSupport
import Testing

/// A Berlin schedule with awkward names (commas, semicolons, quotes, non-ASCII letters), a night
/// shift across the spring and the autumn DST change, an all-day type and an open shift.
struct InteropFixture {
    let ward = Location(id: LocationID(uuid(1)), name: "Station 3; Nord, \"Süd\"", address: "Hauptstraße 1, Köln")
    let day = ShiftType(id: ShiftTypeID(uuid(2)), symbol: "D", title: "Früh, lang", duration: ShiftDuration("07:00-19:00")!,
                        locationID: LocationID(uuid(1)))
    let night = ShiftType(id: ShiftTypeID(uuid(3)), symbol: "N", title: "Nacht; \"dunkel\"", duration: ShiftDuration("19:00-07:00")!,
                          locationID: LocationID(uuid(1)))
    let office = ShiftType(id: ShiftTypeID(uuid(4)), symbol: "O", title: "Büro", duration: .allDay)
    let zoe = Person(id: PersonID(uuid(10)), displayName: "Zoë \"Zo\" Müller, Jr.; ß")
    let bob = Person(id: PersonID(uuid(11)), displayName: "Bob")

    var shifts: [ScheduledShift] {
        [
            ScheduledShift(id: ShiftID(uuid(100)), shiftTypeID: night.id, date: date("2026-03-28"), personID: zoe.id,
                           notes: "Übergabe um 06:45, Station; \"bitte\" pünktlich\nzweite Zeile"),
            ScheduledShift(id: ShiftID(uuid(101)), shiftTypeID: day.id, date: date("2026-03-29"), personID: bob.id),
            ScheduledShift(id: ShiftID(uuid(102)), shiftTypeID: office.id, date: date("2026-03-30"), personID: zoe.id),
            ScheduledShift(id: ShiftID(uuid(103)), shiftTypeID: night.id, date: date("2026-10-24"), personID: bob.id,
                           notes: String(repeating: "Lange Notiz mit Umlauten äöü und ß, ", count: 6)),
            ScheduledShift(id: ShiftID(uuid(104)), shiftTypeID: day.id, date: date("2026-03-31"), notes: "open, anyone?"),
            ScheduledShift(id: ShiftID(uuid(105)), shiftTypeID: day.id, date: date("2026-04-01"), personID: zoe.id,
                           eventIdentifier: "imported-123@example.com"),
        ]
    }

    func schedule(zone: String = "Europe/Berlin", shifts: [ScheduledShift]? = nil) throws -> Schedule {
        try Schedule(settings: StoreSettings(timeZoneIdentifier: zone), locations: [ward], shiftTypes: [day, night, office],
                     people: [zoe, bob], shifts: shifts ?? self.shifts)
    }

    /// The same people and types, no shifts: the target of a round trip.
    func emptySchedule(zone: String = "Europe/Berlin") throws -> Schedule { try schedule(zone: zone, shifts: []) }
}

/// Where the tests find things on this machine.
enum Environment {
    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// A Python that can `import icalendar`: the repository's `.venv-interop` (made by .ci/run),
    /// else `python3` on the PATH.
    static let pythonWithICalendar: String? = {
        let venv = repositoryRoot + "/.venv-interop/bin/python"
        for candidate in [venv, "python3"] where candidate != venv || FileManager.default.isExecutableFile(atPath: venv) {
            if let result = try? runProgram(candidate, ["-c", "import icalendar"]), result.status == 0 { return candidate }
        }
        return nil
    }()
}
