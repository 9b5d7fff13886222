// A small writer process for the crash-safety and multi-process tests of the stores.
//
//   StoreWriter PATH COUNT
//   StoreWriter --book URL DATE
//
// Opens (or creates) the store at PATH (SQLite when it ends in `.sqlite`, PostgreSQL for a
// `postgres://` URL, else JSON) and schedules COUNT shifts, one mutation each.
// `--book` tries once to book the worker on DATE with a rule that allows one shift a day, and
// prints `ok <shift-id>` or `rejected` (the contention test starts many at once).
// After each commit it prints `ok <n> <shift-id>` and flushes, so a test that kills it knows which
// mutations were acknowledged.
import Foundation
import ShiftCore
import ShiftStorage
import ShiftStorageSQLite
import ShiftStoragePostgres

let arguments = CommandLine.arguments

let typeID = ShiftTypeID(UUID(uuidString: "5E1F0000-0000-4000-8000-000000000001")!)
let workerID = PersonID(UUID(uuidString: "5E1F0000-0000-4000-8000-000000000002")!)

if arguments.count == 4, arguments[1] == "--book" {
    await book(url: arguments[2], date: arguments[3])
    exit(0)
}
guard arguments.count == 3, let count = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: StoreWriter PATH COUNT | StoreWriter --book URL DATE\n".utf8))
    exit(2)
}

// In a function, not at top level: locals of the asynchronous top-level code live in a frame
// that is never freed, which LeakSanitizer reports as leaks (the test runs use it).
do {
    try await write(path: arguments[1], count: count)
} catch {
    FileHandle.standardError.write(Data("StoreWriter: \(error)\n".utf8))
    exit(1)
}

/// Schedules `count` shifts in the store at `path`, one mutation each, acknowledging each.
func write(path: String, count: Int) async throws {
    let settings = StoreSettings(timeZoneIdentifier: "UTC")
    let repository: any ScheduleRepository = if PostgresLocation.isURL(path) {
        try PostgresRepository(url: path, createIfMissing: true, initialSettings: settings)
    } else if path.hasSuffix(".sqlite") {
        try SQLiteRepository(path: path, createIfMissing: true, initialSettings: settings)
    } else {
        JSONFileRepository(path: path, createIfMissing: true, initialSettings: settings)
    }
    let store = try ScheduleStore(
        repository: repository, actingUser: UserProfile(userId: "writer-\(getpid())", displayName: "Writer \(getpid())"),
        environment: StoreEnvironment(now: { Date() }, makeUUID: { UUID() }, lockTimeout: .seconds(60)))
    // Each on its own: another writer, or the test, may have set up one of them already.
    for setUp in [
        Mutation.addShiftType(ShiftType(id: typeID, symbol: "W", title: "Work", duration: ShiftDuration("08:00-16:00")!)),
        .addPerson(Person(id: workerID, displayName: "Worker")),
    ] {
        do {
            try await store.apply(setUp)
        } catch ScheduleError.duplicateID {}
    }
    let first = LocalDate("2026-01-01")!
    for n in 0..<count {
        let shift = ScheduledShift(
            id: ShiftID(UUID()), shiftTypeID: typeID, date: first.adding(days: Int.random(in: 0..<3650)), personID: workerID)
        try await store.apply(.scheduleShift(shift))
        FileHandle.standardOutput.write(Data("ok \(n) \(shift.id)\n".utf8))
    }
}

/// One shift a day for anyone, read through the store (inside the transaction on PostgreSQL).
struct OneShiftADay: ScheduleValidator {
    let name = "one shift a day"

    func evaluate(_ proposal: Proposal) throws -> [Violation] {
        proposal.changes.compactMap { change -> Violation? in
            guard case let .shift(_, after?, _) = change, let person = after.personID,
                  proposal.after.shifts(ShiftQuery(from: after.date, to: after.date, personID: person)).count > 1 else { return nil }
            return Violation(ruleID: "one_shift_a_day", severity: .error, message: "double booking", shiftID: after.id)
        }
    }
}

func book(url: String, date: String) async {
    do {
        let store = try ScheduleStore(
            repository: try PostgresRepository(url: url), validators: [OneShiftADay()],
            actingUser: UserProfile(userId: "writer-\(getpid())", displayName: "Writer \(getpid())"))
        let shift = ScheduledShift(id: ShiftID(UUID()), shiftTypeID: typeID, date: LocalDate(date)!, personID: workerID)
        do {
            try await store.apply(.scheduleShift(shift))
            print("ok \(shift.id)")
        } catch ScheduleError.rejected {
            print("rejected")
        }
    } catch {
        FileHandle.standardError.write(Data("StoreWriter: \(error)\n".utf8))
        exit(1)
    }
}
