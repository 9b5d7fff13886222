import Foundation
import TestSupport
import ShiftCore
import Testing

func uuid(_ n: Int) -> UUID { UUID(uuidString: String(format: "20000000-0000-4000-8000-%012x", n))! }
func date(_ text: String) -> LocalDate { LocalDate(text)! }

/// 2026-01-02T03:04:05Z, for `DTSTAMP`.
let fixedNow = Date(timeIntervalSince1970: 1_767_323_045)

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
    /// The repository root (holds Package.swift), found above this source file.
    static let repositoryRoot: String = {
        var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while url.path != "/" {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url.path }
            url = url.deletingLastPathComponent()
        }
        return FileManager.default.currentDirectoryPath
    }()

    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// A Python that can `import icalendar`: the repository's `.venv-interop` (made by .ci/run),
    /// else `python3` on the PATH.
    static let pythonWithICalendar: String? = {
        let venv = repositoryRoot + "/.venv-interop/bin/python"
        for candidate in [venv, "python3"] where candidate != venv || FileManager.default.isExecutableFile(atPath: venv) {
            if let result = try? run(candidate, ["-c", "import icalendar"]), result.status == 0 { return candidate }
        }
        return nil
    }()

    /// Runs a program (found on the PATH when not absolute) and collects its output.
    static func run(_ program: String, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try runProgram(program, arguments)
    }
}

/// A temporary folder removed by `remove()` or when the last reference goes.
final class TemporaryFolder: Sendable {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("interop-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { remove() }
    func remove() { try? FileManager.default.removeItem(atPath: path) }

    func write(_ text: String, to name: String) throws -> String {
        let file = path + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }
}
