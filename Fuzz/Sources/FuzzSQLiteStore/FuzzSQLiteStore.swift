// libFuzzer target: a damaged SQLite store. The input is a list of edits to a valid store file
// (a small schedule with every kind of entity and a change log, written once per process): each
// edit is 4 bytes of offset, 1 byte of length, then that many bytes written there. Opening the
// edited file must either give a schedule whose shifts and log read back, or throw a
// StorageError / record a failed read; any crash, hang or runaway allocation is a bug.
import Foundation
import ShiftCore
import ShiftStorage
import ShiftStorageSQLite

private let valid: [UInt8] = {
    let folder = NSTemporaryDirectory() + "fuzz-sqlite-seed-\(getpid())"
    try! FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let path = folder + "/seed.sqlite"
    func id(_ n: Int) -> UUID { UUID(uuidString: String(format: "5e1f0000-0000-4000-8000-%012x", n))! }
    let ward = Location(id: LocationID(id(1)), name: "Ward", address: "Main St 1", attributes: ["floor": .number(3)])
    let day = ShiftType(id: ShiftTypeID(id(2)), symbol: "D", title: "Day", duration: ShiftDuration("07:00-19:00")!, locationID: ward.id)
    let night = ShiftType(id: ShiftTypeID(id(3)), symbol: "N", title: "Night", duration: ShiftDuration("19:00-07:00")!)
    let people = (0..<4).map { Person(id: PersonID(id(10 + $0)), displayName: "Person \($0)", attributes: ["skills": .list([.string("nurse")])]) }
    var shifts: [ScheduledShift] = []
    for n in 0..<120 {
        shifts.append(ScheduledShift(
            id: ShiftID(id(100 + n)), shiftTypeID: n % 2 == 0 ? day.id : night.id, date: LocalDate("2026-03-01")!.adding(days: n / 4),
            personID: n % 5 == 0 ? nil : people[n % 4].id, notes: n % 7 == 0 ? "note \(n)" : nil,
            eventIdentifier: n % 11 == 0 ? "uid-\(n)@example.org" : nil))
    }
    let demand = [Demand(id: DemandID(id(50)), day: .weekday(.monday), shiftTypeID: day.id, minimum: 1, optimal: 2)]
    let availability = [Availability(id: AvailabilityID(id(60)), personID: people[0].id, from: LocalDate("2026-03-02")!,
                                     to: LocalDate("2026-03-04")!, kind: .unavailable)]
    let log = (0..<20).map { n in
        ChangeLogEntry(id: ChangeLogEntryID(id(200 + n)), timestamp: Date(timeIntervalSince1970: 1_790_000_000 + Double(n)),
                       userId: "fuzz", userDisplayName: "Fuzz", changeType: .created, scheduledShiftDate: shifts[n].date,
                       oldShiftSnapshot: nil, newShiftSnapshot: nil, reason: n % 3 == 0 ? "because" : nil)
    }
    let schedule = try! Schedule(
        settings: StoreSettings(timeZoneIdentifier: "Europe/Berlin"), locations: [ward], shiftTypes: [day, night], people: people,
        shifts: shifts, demand: demand, availability: availability, changeLog: log)
    try! SQLiteRepository(path: path, createIfMissing: true).write(schedule)
    // Fold the write-ahead log into the file, so the bytes are the whole store.
    _ = try! SQLiteRepository(path: path).load()
    return Array(FileManager.default.contents(atPath: path)!)
}()

private let scratch = NSTemporaryDirectory() + "fuzz-sqlite-\(getpid())"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSQLiteStore(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    var bytes = valid
    var position = 0
    while position + 5 <= input.count {
        let offset = Int(input[position]) | Int(input[position + 1]) << 8 | Int(input[position + 2]) << 16 | Int(input[position + 3]) << 24
        let length = Int(input[position + 4])
        position += 5
        let patch = input[position..<min(position + length, input.count)]
        position += length
        let start = offset % (bytes.count + 1)
        if start + patch.count > bytes.count { bytes += [UInt8](repeating: 0, count: start + patch.count - bytes.count) }
        bytes.replaceSubrange(start..<start + patch.count, with: patch)
    }
    try? FileManager.default.removeItem(atPath: scratch)
    try! FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    let path = scratch + "/store.sqlite"
    _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
    do {
        let repository = try SQLiteRepository(path: path)
        let (schedule, _) = try repository.load()
        let whole = try schedule.materialized()
        _ = schedule.source?.takeFailure()
        _ = (whole.shiftCount, whole.changeLog.count, schedule.shifts(ShiftQuery(limit: 5)).count)
    } catch {
        // Refused: the expected outcome for most edits.
    }
    return 0
}
