import Foundation
import TestSupport
import Testing
import ShiftCore
@testable import ShiftStorage
import ShiftStorageSQLite
#if canImport(Glibc)
import Glibc
#endif

/// Real processes writing one store (JSON or SQLite): killed mid-save, and racing each other.
@Suite(.serialized) struct ProcessTests {
    /// The StoreWriter executable built next to the test bundle.
    static var writerPath: String {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return directory.appendingPathComponent("StoreWriter").path
    }

    private func launchWriter(_ path: String, count: Int) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.writerPath)
        process.arguments = [path, String(count)]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        return (process, output)
    }

    /// The shift ids the writer acknowledged (printed after each commit).
    private func acknowledged(_ output: Pipe) -> [String] {
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            return parts.count == 3 && parts[0] == "ok" ? String(parts[2]) : nil
        }
    }

    @Test func killingAWriterMidSaveNeverCorruptsTheStore() throws {
        let directory = try TemporaryFolder()
        let path = directory.file("schedule.json")
        // A store big enough that a save takes a while, so kills land inside saves.
        let typeID = ShiftTypeID(UUID(uuidString: "5E1F0000-0000-4000-8000-000000000001")!)
        let type = ShiftType(id: typeID, symbol: "W", title: "Work", duration: ShiftDuration("08:00-16:00")!)
        let filler = (0..<20_000).map { n in
            ScheduledShift(id: ShiftID(UUID()), shiftTypeID: typeID, date: date("2020-01-01").adding(days: n % 2000))
        }
        try JSONFileRepository(path: path).write(StoreFileCodec.encode(
            try Schedule(settings: StoreSettings(timeZoneIdentifier: "UTC"), shiftTypes: [type], shifts: filler)))

        var acknowledgedIDs: Set<String> = []
        var kills = 0
        for round in 0..<25 {
            let (process, output) = try launchWriter(path, count: 1_000)
            usleep(UInt32(20_000 + (round * 7_919) % 150_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            if process.terminationReason == .uncaughtSignal { kills += 1 }
            acknowledgedIDs.formUnion(acknowledged(output))

            let (schedule, _) = try JSONFileRepository(path: path).load()
            let present = Set(schedule.shifts().map(\.id.description))
            #expect(acknowledgedIDs.isSubset(of: present), "round \(round): an acknowledged mutation was lost")
            let extra = present.count - filler.count - acknowledgedIDs.count
            #expect((0...1).contains(extra), "round \(round): at most the one unacknowledged commit may be present")
            #expect(schedule.changeLog.count == present.count - filler.count, "round \(round): shifts and log entries commit together")
            acknowledgedIDs = Set(present.subtracting(filler.map(\.id.description)))
        }
        #expect(kills >= 20, "the writer was killed mid-run")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.count <= 1, "at most the last killed writer's temporary file remains until the next save")
    }

    /// The store at `path`, read as a fresh process would (the backend follows the extension).
    private func load(_ path: String) throws -> Schedule {
        path.hasSuffix(".sqlite") ? try SQLiteRepository(path: path).load().0 : try JSONFileRepository(path: path).load().0
    }

    @Test func killingASQLiteWriterNeverLosesAnAcknowledgedCommit() throws {
        let directory = try TemporaryFolder()
        let path = directory.file("schedule.sqlite")
        let typeID = ShiftTypeID(UUID(uuidString: "5E1F0000-0000-4000-8000-000000000001")!)
        let type = ShiftType(id: typeID, symbol: "W", title: "Work", duration: ShiftDuration("08:00-16:00")!)
        let filler = (0..<20_000).map { n in
            ScheduledShift(id: ShiftID(UUID()), shiftTypeID: typeID, date: date("2020-01-01").adding(days: n % 2000))
        }
        // With the writer's person, so its set-up batch (refused as a duplicate) is not needed.
        let worker = Person(id: PersonID(UUID(uuidString: "5E1F0000-0000-4000-8000-000000000002")!), displayName: "Worker")
        try SQLiteRepository(path: path, createIfMissing: true).write(
            try Schedule(settings: StoreSettings(timeZoneIdentifier: "UTC"), shiftTypes: [type], people: [worker], shifts: filler))

        var acknowledgedIDs: Set<String> = []
        var kills = 0
        for round in 0..<12 {
            let (process, output) = try launchWriter(path, count: 1_000)
            usleep(UInt32(30_000 + (round * 7_919) % 150_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            if process.terminationReason == .uncaughtSignal { kills += 1 }
            acknowledgedIDs.formUnion(acknowledged(output))

            let schedule = try load(path)
            let present = Set(schedule.shifts().map(\.id.description))
            #expect(acknowledgedIDs.isSubset(of: present), "round \(round): an acknowledged mutation was lost")
            let extra = present.count - filler.count - acknowledgedIDs.count
            #expect((0...1).contains(extra), "round \(round): at most the one unacknowledged commit may be present")
            #expect(schedule.changeLog.count == present.count - filler.count, "round \(round): shifts and log entries commit together")
            acknowledgedIDs = Set(present.subtracting(filler.map(\.id.description)))
        }
        #expect(kills >= 8, "the writer was killed mid-run")
    }

    /// Opening a second repository on a store this process has open must not disturb SQLite's
    /// locks (closing any descriptor of the file would drop them all): else another process that
    /// opens and closes the store believes it was the last, checkpoints and deletes the WAL, and
    /// the commits this process makes next are acknowledged and lost.
    @Test func openingTheStoreAgainInOneProcessLosesNoCommit() async throws {
        let directory = try TemporaryFolder()
        let path = directory.file("schedule.sqlite")
        try SQLiteRepository(path: path, createIfMissing: true).write(try richSchedule())
        var names: [String] = []
        do {
            let reader = try SQLiteRepository(path: path)
            _ = try reader.load()
            let store = try ScheduleStore(repository: try SQLiteRepository(path: path), actingUser: tester, environment: testEnvironment())
            for round in 0..<4 {
                _ = try SQLiteRepository(path: path).load()
                let (other, _) = try launchWriter(path, count: 0)
                other.waitUntilExit()
                let name = "Person \(round)"
                try await store.apply(.addPerson(Person(id: PersonID(uuid(900 + round)), displayName: name)))
                names.append(name)
            }
            let (last, _) = try launchWriter(path, count: 0)
            last.waitUntilExit()
            withExtendedLifetime(reader) {}
        }
        let people = try SQLiteRepository(path: path).load().0.people.map(\.displayName)
        #expect(Set(names).isSubset(of: Set(people)), "\(people)")
    }

    @Test(arguments: ["schedule.json", "schedule.sqlite"]) func twoWritersAtOnceLoseNothing(_ file: String) throws {
        let directory = try TemporaryFolder()
        let path = directory.file(file)
        let (first, firstOutput) = try launchWriter(path, count: 40)
        let (second, secondOutput) = try launchWriter(path, count: 40)
        let firstIDs = acknowledged(firstOutput)
        let secondIDs = acknowledged(secondOutput)
        first.waitUntilExit()
        second.waitUntilExit()
        #expect(first.terminationStatus == 0 && second.terminationStatus == 0)
        #expect(firstIDs.count == 40 && secondIDs.count == 40)
        let schedule = try load(path)
        #expect(Set(schedule.shifts().map(\.id.description)) == Set(firstIDs + secondIDs))
        #expect(schedule.changeLog.count == 80)
        #expect(Set(schedule.changeLog.map(\.userId)).count == 2, "both writers are in the log")
    }
}
