import Foundation
import Testing
import ShiftCore
@testable import ShiftStorage
import ShiftStorageSQLite
import TestSupport

/// A store that opens as a `ScheduleSource`: SQLite, and a JSON store through its index file.
enum SourceStore: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case jsonIndex

    var testDescription: String { rawValue }

    /// A store holding `schedule`, its repository, and the folder to keep while it is used.
    func make(_ schedule: Schedule) throws -> (any ScheduleRepository, TemporaryFolder) {
        let directory = try TemporaryFolder()
        switch self {
        case .sqlite:
            let repository = try SQLiteRepository(path: directory.file("schedule.sqlite"), createIfMissing: true)
            try repository.write(schedule)
            return (repository, directory)
        case .jsonIndex:
            let repository = JSONFileRepository(path: directory.file("schedule.json"), indexThreshold: 0)
            try repository.write(StoreFileCodec.encode(schedule))
            return (repository, directory)
        }
    }
}

/// The queries a source serves answer as the same schedule held in memory does.
@Suite struct SourceQueryTests {
    @Test(arguments: SourceStore.allCases, [1, 2, 3] as [UInt64])
    func sourceQueriesAnswerAsTheScheduleInMemoryDoes(_ kind: SourceStore, _ seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let memory = try randomSchedule(shifts: 3_000, logEntries: 400, using: &random)
        let (repository, directory) = try kind.make(memory)
        let (loaded, _) = try repository.load()
        let source = try #require(loaded.source)
        let all = memory.shifts()
        let range = try #require(memory.shiftDateRange)

        #expect(source.shiftCount == all.count)
        #expect(source.shiftDateRange == range)
        for shift in all.shuffled(using: &random).prefix(50) {
            #expect(source.shift(shift.id) == shift)
        }
        #expect(source.shift(ShiftID(uuid(999_999))) == nil)

        for _ in 0..<300 {
            let request = randomSourceRequest(memory, range, using: &random)
            #expect(source.shifts(request) == sourceAnswer(request, all), "\(request)")
            let query = ShiftQuery(
                from: request.from, to: request.to, personID: request.personID, unassignedOnly: request.unassignedOnly,
                shiftTypeIDs: request.shiftTypeIDs.map(Set.init), order: request.newestFirst ? .newestFirst : .oldestFirst,
                limit: request.limit)
            #expect(loaded.shifts(query) == memory.shifts(query), "\(query)")
        }
        for person in memory.people {
            let from = range.lowerBound.adding(days: Int.random(in: 0...60, using: &random))
            let to = from.adding(days: Int.random(in: 0...90, using: &random))
            let references = all.filter { $0.personID == person.id && $0.date >= from && $0.date <= to }
                .map { ShiftReference(date: $0.date, id: $0.id, type: $0.shiftTypeID) }.sorted()
            #expect(source.shiftReferences(of: person.id, from: from, to: to) == references)
            #expect(source.shiftCount(of: person.id, from: nil) == all.filter { $0.personID == person.id }.count)
            #expect(source.shiftCount(of: person.id, from: from) == all.filter { $0.personID == person.id && $0.date >= from }.count)
        }
        for type in memory.shiftTypes {
            #expect(source.shiftCount(ofType: type.id) == all.filter { $0.shiftTypeID == type.id }.count)
        }
        // Everyone's count at once (a database's one query) against the count person by person,
        // from the source and through a schedule over it with shifts added and removed.
        let people = memory.people.map(\.id)
        if let counts = source.shiftCountsByPerson() {
            #expect(people.map { counts[$0] ?? 0 } == people.map { source.shiftCount(of: $0, from: nil) })
            #expect(counts.values.reduce(0, +) == all.filter { $0.personID != nil }.count)
        }
        var edited = loaded
        for shift in all.shuffled(using: &random).prefix(40) { edited = try edited.applying(.unscheduleShift(shift.id)).schedule }
        for (n, shift) in all.shuffled(using: &random).prefix(10).enumerated() {
            edited = try edited.applying(.scheduleShift(ScheduledShift(
                id: ShiftID(uuid(800_000 + n)), shiftTypeID: shift.shiftTypeID, date: shift.date, personID: people.randomElement(using: &random)))).schedule
        }
        #expect(edited.shiftCounts(of: people) == people.map { edited.shiftCount(of: $0) })
        for shift in all where shift.hasCustomEventIdentifier {
            #expect(source.shift(customEventIdentifier: shift.eventIdentifier) == shift)
        }
        #expect(source.shift(customEventIdentifier: "nobody@example.com") == nil)
        #expect(source.takeFailure() == nil)
        withExtendedLifetime(directory) {}
    }

    @Test(arguments: SourceStore.allCases) func idPrefixesSelectByText(_ kind: SourceStore) throws {
        var random = SplitMix64(seed: 7)
        let memory = try randomSchedule(shifts: 2_000, logEntries: 0, using: &random)
        let (repository, directory) = try kind.make(memory)
        let source = try #require(try repository.load().0.source)
        let byID = memory.shifts().sorted { $0.id < $1.id }
        var prefixes = ["", "0", "f", "ff", "fff", "8", "a-", "zz", "A", "-", String(repeating: "f", count: 37)]
        for shift in byID.shuffled(using: &random).prefix(40) {
            prefixes.append(String(shift.id.description.prefix(Int.random(in: 1...36, using: &random))))
        }
        for prefix in prefixes {
            for limit in [0, 1, 5, 10_000] {
                let expected = Array(byID.filter { $0.id.description.hasPrefix(prefix) }.prefix(limit))
                #expect(source.shifts(idPrefix: prefix, limit: limit) == expected, "prefix '\(prefix)' limit \(limit)")
            }
        }
        withExtendedLifetime(directory) {}
    }
}

/// What a source must answer to `request` over `all`: by date then id, filtered, limited.
func sourceAnswer(_ request: ShiftSourceRequest, _ all: [ScheduledShift]) -> [ScheduledShift] {
    var selected = all.filter { shift in
        shift.date >= request.from && shift.date <= request.to
            && (request.personID.map { shift.personID == $0 } ?? true)
            && (!request.unassignedOnly || shift.personID == nil)
            && (request.shiftTypeIDs.map { $0.contains(shift.shiftTypeID) } ?? true)
    }
    selected.sort { ($0.date, $0.id) < ($1.date, $1.id) }
    if request.newestFirst { selected.reverse() }
    return Array(selected.prefix(request.limit ?? Int.max))
}

func randomSourceRequest(_ schedule: Schedule, _ range: ClosedRange<LocalDate>, using random: inout SplitMix64) -> ShiftSourceRequest {
    let span = range.lowerBound.days(to: range.upperBound)
    let from = range.lowerBound.adding(days: Int.random(in: -5...span, using: &random))
    let to = from.adding(days: Int.random(in: -1...(span / 3), using: &random))
    var request = ShiftSourceRequest(from: from, to: to)
    switch Int.random(in: 0..<4, using: &random) {
    case 0: request.personID = schedule.people.randomElement(using: &random)?.id
    case 1: request.unassignedOnly = true
    default: break
    }
    if Bool.random(using: &random) {
        request.shiftTypeIDs = Array(schedule.shiftTypes.map(\.id).shuffled(using: &random).prefix(Int.random(in: 1...2, using: &random))).sorted()
    }
    request.newestFirst = Bool.random(using: &random)
    if Bool.random(using: &random) { request.limit = Int.random(in: 0...40, using: &random) }
    return request
}
