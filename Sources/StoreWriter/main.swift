// A small writer process for the crash-safety and multi-process tests of the file stores.
//
//   StoreWriter PATH COUNT
//
// Opens (or creates) the store at PATH (SQLite when it ends in `.sqlite`, else JSON) and
// schedules COUNT shifts, one mutation each.
// After each commit it prints `ok <n> <shift-id>` and flushes, so a test that kills it knows which
// mutations were acknowledged.
import Foundation
import ShiftCore
import ShiftStorage
import ShiftStorageSQLite

let arguments = CommandLine.arguments
guard arguments.count == 3, let count = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: StoreWriter PATH COUNT\n".utf8))
    exit(2)
}

let typeID = ShiftTypeID(UUID(uuidString: "5E1F0000-0000-4000-8000-000000000001")!)
let workerID = PersonID(UUID(uuidString: "5E1F0000-0000-4000-8000-000000000002")!)

do {
    let path = arguments[1]
    let settings = StoreSettings(timeZoneIdentifier: "UTC")
    let repository: any ScheduleRepository = path.hasSuffix(".sqlite")
        ? try SQLiteRepository(path: path, createIfMissing: true, initialSettings: settings)
        : JSONFileRepository(path: path, createIfMissing: true, initialSettings: settings)
    let store = try ScheduleStore(
        repository: repository, actingUser: UserProfile(userId: "writer-\(getpid())", displayName: "Writer \(getpid())"),
        environment: StoreEnvironment(now: { Date() }, makeUUID: { UUID() }, lockTimeout: .seconds(60)))
    do {
        try await store.apply(.batch([
            .addShiftType(ShiftType(id: typeID, symbol: "W", title: "Work", duration: ShiftDuration("08:00-16:00")!)),
            .addPerson(Person(id: workerID, displayName: "Worker")),
        ]))
    } catch ScheduleError.duplicateID {
        // Another writer set the store up first.
    }
    let first = LocalDate("2026-01-01")!
    for n in 0..<count {
        let shift = ScheduledShift(
            id: ShiftID(UUID()), shiftTypeID: typeID, date: first.adding(days: Int.random(in: 0..<3650)), personID: workerID)
        try await store.apply(.scheduleShift(shift))
        FileHandle.standardOutput.write(Data("ok \(n) \(shift.id)\n".utf8))
    }
} catch {
    FileHandle.standardError.write(Data("StoreWriter: \(error)\n".utf8))
    exit(1)
}
