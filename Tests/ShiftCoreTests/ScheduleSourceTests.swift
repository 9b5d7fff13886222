import Foundation
import Synchronization
import TestSupport
import Testing
@testable import ShiftCore

/// A `ScheduleSource` over a schedule held in memory: what a SQLite store serves, without SQL.
/// It answers from a plain schedule, in the order the protocol promises (date, then id).
final class SnapshotSource: ScheduleSource {
    private struct State {
        var schedule: Schedule
        var failNextRead = false
        var failure: (any Error)?
        var reads = 0
    }

    struct ReadFailed: Error, CustomStringConvertible {
        var description: String { "snapshot: disk on fire" }
    }

    private let state: Mutex<State>

    init(_ schedule: Schedule) { state = Mutex(State(schedule: schedule)) }

    var schedule: Schedule {
        get { state.withLock { $0.schedule } }
        set { state.withLock { $0.schedule = newValue } }
    }

    /// The next read returns nothing and is remembered as a failure.
    func failNextRead() { state.withLock { $0.failNextRead = true } }
    var reads: Int { state.withLock { $0.reads } }

    private func read<T>(_ empty: T, _ body: (Schedule) -> T) -> T {
        let (schedule, failing) = state.withLock { state -> (Schedule, Bool) in
            state.reads += 1
            if state.failNextRead {
                state.failNextRead = false
                state.failure = state.failure ?? ReadFailed()
                return (state.schedule, true)
            }
            return (state.schedule, false)
        }
        return failing ? empty : body(schedule)
    }

    var shiftCount: Int { read(0) { $0.shiftCount } }
    var shiftDateRange: ClosedRange<LocalDate>? { read(nil) { $0.shiftDateRange } }
    func shift(_ id: ShiftID) -> ScheduledShift? { read(nil) { $0.shift(id) } }
    func shift(customEventIdentifier: String) -> ScheduledShift? {
        read(nil) { schedule in schedule.shift(eventIdentifier: customEventIdentifier).flatMap { $0.hasCustomEventIdentifier ? $0 : nil } }
    }

    func shifts(_ request: ShiftSourceRequest) -> [ScheduledShift] {
        read([]) { schedule in
            var query = ShiftQuery(from: request.from, to: request.to, personID: request.personID, unassignedOnly: request.unassignedOnly)
            query.shiftTypeIDs = request.shiftTypeIDs.map(Set.init)
            let sorted = schedule.shifts(query).sorted { a, b in
                let ascending = a.date != b.date ? a.date < b.date : a.id < b.id
                return request.newestFirst ? !ascending : ascending
            }
            return Array(sorted.prefix(request.limit ?? Int.max))
        }
    }

    func shiftReferences(of person: PersonID, from: LocalDate, to: LocalDate) -> [ShiftReference] {
        read([]) { $0.shiftReferences(of: person, from: from, to: to) }
    }

    func shiftCount(ofType type: ShiftTypeID) -> Int { read(0) { $0.shiftCount(ofType: type) } }
    func shiftCount(of person: PersonID, from: LocalDate?) -> Int { read(0) { $0.shiftCount(of: person, from: from) } }
    func shifts(idPrefix: String, limit: Int) -> [ScheduledShift] { read([]) { $0.shifts(idPrefix: idPrefix, limit: limit) } }

    func changeLogCount(notBefore: Date?) -> Int {
        read(0) { schedule in schedule.changeLog.count { notBefore == nil || $0.timestamp >= notBefore! } }
    }

    func changeLogEntries(notBefore: Date?, offset: Int, limit: Int) -> [ChangeLogEntry] {
        read([]) { schedule in
            Array(schedule.changeLog.filter { notBefore == nil || $0.timestamp >= notBefore! }.dropFirst(offset).prefix(limit))
        }
    }

    func changeLogEntries(from: Date?, to: Date?, newestFirst: Bool, limit: Int?) -> [ChangeLogEntry] {
        read([]) { $0.changeLog.entries(from: from, to: to, newestFirst: newestFirst, limit: limit) }
    }

    func containsChangeLogEntry(_ id: ChangeLogEntryID) -> Bool { read(false) { $0.changeLog.contains(id: id) } }

    func takeFailure() -> (any Error)? {
        state.withLock { state in
            defer { state.failure = nil }
            return state.failure
        }
    }
}

/// A repository whose schedules are served by a `SnapshotSource`: `load` hands out the catalog
/// over the source, `save` stores the committed overlay into it (as SQLite does).
final class SourceRepository: ScheduleRepository {
    let source: SnapshotSource
    private let generation = Mutex(0)
    private let locked = Mutex(false)
    let location = "snapshot"

    init(_ schedule: Schedule) { source = SnapshotSource(schedule) }

    func load() throws -> (Schedule, StoreRevision) {
        let plain = source.schedule
        let schedule = try Schedule(
            settings: plain.settings, locations: plain.locations, shiftTypes: plain.shiftTypes, people: plain.people,
            demand: plain.demand, availability: plain.availability, source: source)
        return (schedule, try revision())
    }

    func revision() throws -> StoreRevision { StoreRevision(String(generation.withLock { $0 })) }

    func tryLockForWriting() throws -> Bool {
        locked.withLock { held in
            if held { return false }
            held = true
            return true
        }
    }

    func unlockForWriting() { locked.withLock { $0 = false } }

    func save(_ schedule: Schedule, summary: CommitSummary) throws -> StoreRevision {
        source.schedule = try schedule.materialized()
        return StoreRevision(String(generation.withLock { $0 += 1; return $0 }))
    }
}

/// A schedule over a source must answer every query exactly as the same schedule held in
/// memory, before a commit (the overlay over the source) and after it (read back from the source).
@Suite struct ScheduleSourceTests {
    let f = Fixture()
    let early = ShiftType(id: ShiftTypeID(uuid(5)), symbol: "E", title: "Early", duration: ShiftDuration("05:00-13:00")!)
    let dan = Person(id: PersonID(uuid(12)), displayName: "Dan")

    private struct Pair {
        let memory: ScheduleStore
        let sourced: ScheduleStore
        let repository: SourceRepository
    }

    private func pair() async throws -> Pair {
        let empty = try Schedule(settings: StoreSettings(timeZoneIdentifier: "Europe/Berlin"))
        // Counters of one block: both stores make the same change-log ids.
        let memory = try ScheduleStore(repository: InMemoryRepository(empty), actingUser: alice, environment: testEnvironment(ids: Counter(block: 0)))
        let repository = SourceRepository(empty)
        let sourced = try ScheduleStore(repository: repository, actingUser: alice, environment: testEnvironment(ids: Counter(block: 0)))
        let setup = Mutation.batch([
            .addLocation(f.ward), .addShiftType(f.day), .addShiftType(f.night), .addShiftType(f.office),
            .addShiftType(early), .addPerson(f.bob), .addPerson(f.carol), .addPerson(dan),
        ])
        try await memory.apply(setup)
        try await sourced.apply(setup)
        return Pair(memory: memory, sourced: sourced, repository: repository)
    }

    private var types: [ShiftType] { [f.day, f.night, f.office, early] }
    private var people: [Person] { [f.bob, f.carol, dan] }
    private let firstDay = date("2026-03-23")  // the week of the spring change in Berlin

    private func randomShift(_ n: Int, _ random: inout some RandomNumberGenerator) -> ScheduledShift {
        let person = Int.random(in: 0...3, using: &random)
        let custom = Int.random(in: 0..<8, using: &random) == 0 ? "uid-\(n)@example.org" : nil
        return ScheduledShift(
            id: ShiftID(uuid(1000 + n)), shiftTypeID: types.randomElement(using: &random)!.id,
            date: firstDay.adding(days: Int.random(in: 0..<21, using: &random)),
            personID: person < 3 ? people[person].id : nil, eventIdentifier: custom)
    }

    /// A random mutation over what `schedule` holds: mostly shift edits, sometimes a cascade.
    private func randomMutation(_ schedule: Schedule, next: inout Int, _ random: inout some RandomNumberGenerator) -> Mutation {
        let existing = schedule.shifts()
        func pick() -> ScheduledShift? { existing.randomElement(using: &random) }
        var items: [Mutation] = []
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            switch Int.random(in: 0..<20, using: &random) {
            case 0..<8:
                next += 1
                items.append(.scheduleShift(randomShift(next, &random)))
            case 8..<10:
                if let shift = pick() { items.append(.unscheduleShift(shift.id, reason: "gone")) }
            case 10..<12:
                if let shift = pick() { items.append(.reassignShift(shift.id, to: people.randomElement(using: &random)!.id, reason: "swap")) }
            case 12..<14:
                if let shift = pick() { items.append(.switchShift(shift.id, to: types.randomElement(using: &random)!.id, reason: "switch")) }
            case 14..<16:
                if var shift = pick() {
                    shift.date = shift.date.adding(days: Int.random(in: -3...3, using: &random))
                    shift.notes = "moved"
                    items.append(.updateShift(shift, reason: "move"))
                }
            case 16:
                items.append(.pruneChangeLog(before: fixedNow.addingTimeInterval(Double(Int.random(in: -1...1, using: &random)))))
            case 17:
                if let person = people.randomElement(using: &random), schedule.person(person.id) != nil {
                    items.append(.updatePerson(Person(id: person.id, displayName: person.displayName + "!")))
                }
            default:
                next += 1
                items.append(.scheduleShift(randomShift(next, &random)))
            }
        }
        return .batch(items)
    }

    /// The same answers from both schedules, for many random queries.
    private func expectSameAnswers(_ a: Schedule, _ b: Schedule, _ random: inout some RandomNumberGenerator, _ note: String) {
        #expect(a.shiftCount == b.shiftCount, "\(note): shiftCount")
        #expect(a.shifts() == b.shifts(), "\(note): all shifts")
        for type in types { #expect(a.shiftCount(ofType: type.id) == b.shiftCount(ofType: type.id), "\(note): count of \(type.symbol)") }
        for person in people {
            let from = firstDay.adding(days: Int.random(in: -2..<22, using: &random))
            #expect(a.shiftCount(of: person.id) == b.shiftCount(of: person.id), "\(note): count of \(person.displayName)")
            #expect(a.shiftCount(of: person.id, from: from) == b.shiftCount(of: person.id, from: from), "\(note): count from")
            let to = from.adding(days: Int.random(in: 0..<10, using: &random))
            #expect(a.shiftReferences(of: person.id, from: from, to: to) == b.shiftReferences(of: person.id, from: from, to: to), "\(note): refs")
            #expect(a.minutesWorked(by: person.id, from: from, to: to) == b.minutesWorked(by: person.id, from: from, to: to), "\(note): minutes")
            for day in 0..<21 {
                let date = firstDay.adding(days: day)
                #expect(a.works(person.id, on: date) == b.works(person.id, on: date), "\(note): works")
                #expect(a.workRun(of: person.id, containing: date) == b.workRun(of: person.id, containing: date), "\(note): run")
                #expect(a.workRun(of: person.id, containing: date, limit: 2) == b.workRun(of: person.id, containing: date, limit: 2), "\(note): run ≤2")
            }
        }
        for _ in 0..<25 {
            var query = ShiftQuery()
            if Bool.random(using: &random) { query.from = firstDay.adding(days: Int.random(in: -2..<22, using: &random)) }
            if Bool.random(using: &random) { query.to = (query.from ?? firstDay).adding(days: Int.random(in: 0..<12, using: &random)) }
            switch Int.random(in: 0..<4, using: &random) {
            case 0: query.personID = people.randomElement(using: &random)!.id
            case 1: query.unassignedOnly = true
            default: break
            }
            if Int.random(in: 0..<3, using: &random) == 0 { query.shiftTypeIDs = Set(types.shuffled(using: &random).prefix(2).map(\.id)) }
            if Int.random(in: 0..<5, using: &random) == 0 { query.locationID = f.ward.id }
            if Int.random(in: 0..<5, using: &random) == 0 {
                let start = a.zone.instant(of: firstDay.adding(days: Int.random(in: 0..<21, using: &random)), minutes: Int.random(in: 0..<1440, using: &random))
                query.overlapping = InstantInterval(start: start, end: start + 3600 * Int64.random(in: 1...30, using: &random))
            }
            if Bool.random(using: &random) { query.order = .newestFirst }
            if Bool.random(using: &random) { query.limit = [0, 1, 2, 3, 7].randomElement(using: &random)! }
            if Int.random(in: 0..<3, using: &random) == 0 { query.excluding = a.shifts().randomElement(using: &random)?.id }
            #expect(a.shifts(query) == b.shifts(query), "\(note): \(query)")
            #expect(a.count(query) == b.count(query), "\(note): count \(query)")
            // Excluding a shift is the same query without it, less that shift.
            var open = query
            open.excluding = nil
            open.limit = nil
            let expected = a.shifts(open).filter { $0.id != query.excluding }.prefix(query.limit ?? .max)
            #expect(a.shifts(query) == Array(expected), "\(note): excluding \(query)")
        }
        for shift in a.shifts().prefix(20) {
            #expect(b.shift(shift.id) == shift, "\(note): by id")
            #expect(b.shift(eventIdentifier: shift.eventIdentifier) == shift, "\(note): by uid")
            let prefix = String(shift.id.description.prefix(Int.random(in: 1...36, using: &random)))
            #expect(a.shifts(idPrefix: prefix) == b.shifts(idPrefix: prefix), "\(note): prefix")
        }
        #expect(a.changeLog.count == b.changeLog.count, "\(note): log count")
        #expect(Array(a.changeLog) == Array(b.changeLog), "\(note): log")
        if !a.changeLog.isEmpty { #expect(a.changeLog.last == b.changeLog.last, "\(note): last entry") }
        for newestFirst in [false, true] {
            let limit = [nil, 1, 5].randomElement(using: &random)!
            let from = fixedNow.addingTimeInterval(Double(Int.random(in: -1...1, using: &random)))
            #expect(a.changeLog.entries(from: from, newestFirst: newestFirst, limit: limit)
                    == b.changeLog.entries(from: from, newestFirst: newestFirst, limit: limit), "\(note): log entries")
        }
        #expect(a == b, "\(note): equal")
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64]) func answersMatchAScheduleHeldInMemory(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        let stores = try await pair()
        var next = 0
        for step in 0..<40 {
            let current = await stores.memory.schedule
            let mutation = randomMutation(current, next: &next, &random)
            // The proposed schedules (the overlay over the source) answer alike…
            let proposedA = try? current.applying(mutation).schedule
            let proposedB = try? await stores.sourced.schedule.applying(mutation).schedule
            #expect((proposedA == nil) == (proposedB == nil), "step \(step): same verdict")
            if let proposedA, let proposedB { expectSameAnswers(proposedA, proposedB, &random, "step \(step) proposed") }
            // …and so do the committed ones (read back from the source).
            let a = try? await stores.memory.apply(mutation)
            let b = try? await stores.sourced.apply(mutation)
            #expect((a == nil) == (b == nil), "step \(step): same commit verdict")
            expectSameAnswers(await stores.memory.schedule, await stores.sourced.schedule, &random, "step \(step) committed")
        }
        #expect(await stores.sourced.schedule.source != nil)
        #expect(try await stores.sourced.schedule.materialized().source == nil)
    }

    @Test func aCascadeOverTheSourceMatchesMemory() async throws {
        let stores = try await pair()
        let shifts = (0..<12).map { n in
            ScheduledShift(id: ShiftID(uuid(2000 + n)), shiftTypeID: types[n % 4].id, date: firstDay.adding(days: n % 5),
                           personID: people[n % 3].id)
        }
        try await stores.memory.apply(.batch(shifts.map(Mutation.scheduleShift)))
        try await stores.sourced.apply(.batch(shifts.map(Mutation.scheduleShift)))
        for mutation in [Mutation.removePerson(f.bob.id), .removeShiftType(f.night.id), .pruneChangeLog(before: fixedNow + 1)] {
            try await stores.memory.apply(mutation)
            try await stores.sourced.apply(mutation)
            var random = SplitMix64(seed: 9)
            expectSameAnswers(await stores.memory.schedule, await stores.sourced.schedule, &random, "\(mutation.name)")
        }
    }

    @Test func aFailedReadRejectsTheMutationAndWritesNothing() async throws {
        let stores = try await pair()
        let shift = ScheduledShift(id: ShiftID(uuid(3000)), shiftTypeID: f.day.id, date: firstDay, personID: f.bob.id)
        let revision = try stores.repository.revision()
        stores.repository.source.failNextRead()
        await #expect(throws: SnapshotSource.ReadFailed.self) { try await stores.sourced.apply(.scheduleShift(shift)) }
        #expect(try stores.repository.revision() == revision)
        #expect(stores.repository.source.schedule.shiftCount == 0)
        try await stores.sourced.apply(.scheduleShift(shift))
        #expect(stores.repository.source.schedule.shift(shift.id) == shift)
    }

    @Test func aBulkBatchIsCheckedInMemoryThenReadFromTheSourceAgain() async throws {
        let stores = try await pair()
        let count = ScheduleStore.bulkThreshold
        let shifts = (0..<count).map { n in
            ScheduledShift(id: ShiftID(uuid(100_000 + n)), shiftTypeID: types[n % 4].id, date: firstDay.adding(days: n / 40),
                           personID: n % 5 == 0 ? nil : people[n % 3].id)
        }
        let before = stores.repository.source.reads
        let result = try await stores.sourced.apply(.batch(shifts.map(Mutation.scheduleShift)))
        #expect(result.changes.count == count)
        #expect(stores.repository.source.reads - before < 100, "no query per shift")
        let schedule = await stores.sourced.schedule
        #expect(schedule.source != nil, "the store reads shifts from the source again")
        #expect(schedule.shiftCount == count)
        #expect(schedule.changeLog.count == 1, "one entry for the batch")
        #expect(schedule.changeLog.first?.createdShifts?.shiftIDs == shifts.map(\.id))
        #expect(schedule.shift(shifts[777].id) == shifts[777])
    }

    @Test func oneMutationReadsNoMoreOfABiggerSource() async throws {
        // The number of source reads one add makes does not grow with the shifts stored.
        func reads(storing count: Int) async throws -> Int {
            let stores = try await pair()
            let stored = (0..<count).map { n in
                ScheduledShift(id: ShiftID(uuid(10_000 + n)), shiftTypeID: f.day.id, date: firstDay.adding(days: n / 3),
                               personID: people[n % 3].id)
            }
            try await stores.sourced.apply(.batch(stored.map(Mutation.scheduleShift)))
            let before = stores.repository.source.reads
            try await stores.sourced.apply(.scheduleShift(ScheduledShift(
                id: ShiftID(uuid(9)), shiftTypeID: f.night.id, date: firstDay.adding(days: 2), personID: f.bob.id)))
            return stores.repository.source.reads - before
        }
        let small = try await reads(storing: 10)
        let large = try await reads(storing: 3000)
        #expect(large == small)
    }
}
