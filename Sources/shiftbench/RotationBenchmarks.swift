import Foundation
import ShiftCore
import ShiftRules
import ShiftStorage

/// Rotating 1,000 people (250 crews of 4, each crew on the stock Panama pattern, one person per
/// team) over 365 days as one batch checked by all stock rules, into memory and into a JSON store.
enum RotationBenchmarks {
    static func run(runs: Int, people: Int, days: Int, rulesDirectory: String) async throws {
        print("## Rotate \(people) people over \(days) days with all stock rules\n")
        print("\(people / 4) crews of 4 on the stock `panama` rotation (one person per team), from 2026-01-05 for \(days) days: one batch mutation that every stock rule checks, applied through `ScheduleStore.apply`. Generation, rule evaluation and commit included; the store starts empty except for people and shift types.\n")
        let engine = try RuleEngine(RuleEngineConfiguration(directories: [rulesDirectory]))
        var base = try Schedule(settings: StoreSettings(timeZoneIdentifier: "Europe/Berlin"))
        let day = ShiftType(id: ShiftTypeID(Generator.id(1)), symbol: "D", title: "Day", duration: ShiftDuration("07:00-19:00")!)
        let night = ShiftType(id: ShiftTypeID(Generator.id(2)), symbol: "N", title: "Night", duration: ShiftDuration("19:00-07:00")!)
        var mutations: [Mutation] = [.addShiftType(day), .addShiftType(night)]
        var crews: [[PersonID]] = []
        for crew in 0..<(people / 4) {
            var members: [PersonID] = []
            for member in 0..<4 {
                let id = PersonID(Generator.id(10_000 + crew * 4 + member))
                members.append(id)
                mutations.append(.addPerson(Person(id: id, displayName: "Crew \(crew) \(member)")))
            }
            crews.append(members)
        }
        base = try base.applying(.batch(mutations)).schedule
        let from = LocalDate("2026-01-05")!
        let to = from.adding(days: days - 1)

        func batch() throws -> Mutation {
            var shifts: [ScheduledShift] = []
            for crew in crews {
                let request = RotationRequest(rotation: "panama", teams: zip(["A", "B", "C", "D"], crew).map { ($0, [$1]) }, from: from, to: to)
                shifts += try engine.generateRotation(request, in: base)
            }
            return .batch(shifts.map { .scheduleShift($0) })
        }

        var report = Report(["into", "shifts", "runs", "median", "min–max", "peak RSS"])
        var count = 0
        let memory = try await measureAsync(runs: runs) {
            let store = try ScheduleStore(repository: InMemoryRepository(base), validators: [engine],
                                          actingUser: UserProfile(userId: "bench", displayName: "Bench"), environment: .live)
            let mutation = try batch()
            if case let .batch(items) = mutation { count = items.count }
            try await store.apply(mutation)
        }
        report.add(["memory", "\(count)", "\(runs)", formatTime(memory.median), "\(formatTime(memory.min))–\(formatTime(memory.max))",
                    String(format: "%.0f MiB", peakRSSMiB())])
        let directory = NSTemporaryDirectory() + "shiftbench-rotate-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let json = try await measureAsync(runs: runs) {
            let path = directory + "/schedule.json"
            try JSONFileRepository(path: path).write(StoreFileCodec.encode(base))
            let store = try ScheduleStore(repository: JSONFileRepository(path: path), validators: [engine],
                                          actingUser: UserProfile(userId: "bench", displayName: "Bench"), environment: .live)
            try await store.apply(try batch())
        }
        report.add(["JSON store", "\(count)", "\(runs)", formatTime(json.median), "\(formatTime(json.min))–\(formatTime(json.max))",
                    String(format: "%.0f MiB", peakRSSMiB())])
        print(report.markdown())
        print("")
    }
}
