import Foundation
import Testing
import GRDB
import ShiftCore
@testable import ShiftStorage
@testable import ShiftStorageSQLite
import ShiftStoragePostgres
import TestSupport

/// Requests in every store: made, moved and removed through the funnel, read back the same,
/// and stores of the format before requests upgraded.
@Suite struct RequestStorageTests {
    let base = try! Schedule(settings: StoreSettings(timeZoneIdentifier: "Europe/Berlin"))
    let type = ShiftType(id: ShiftTypeID(uuid(2)), symbol: "D", title: "Day", duration: ShiftDuration("07:00-19:00")!)
    let bob = Person(id: PersonID(uuid(10)), displayName: "Bob")
    let carol = Person(id: PersonID(uuid(11)), displayName: "Carol")
    var bobsShift: ScheduledShift { ScheduledShift(id: ShiftID(uuid(100)), shiftTypeID: type.id, date: date("2026-03-02"), personID: bob.id) }
    var carolsShift: ScheduledShift { ScheduledShift(id: ShiftID(uuid(101)), shiftTypeID: type.id, date: date("2026-03-03"), personID: carol.id) }

    func step(_ state: RequestState, _ seconds: Double, _ reason: String? = nil) -> RequestTransition {
        RequestTransition(state: state, timestamp: Date(timeIntervalSince1970: 1_790_000_000 + seconds), by: tester, reason: reason)
    }

    @Test(arguments: Backend.all) func requestsAndTheirHistoriesSurviveReopening(_ backend: Backend) async throws {
        let (repository, reopen, keep) = try backend.make(base)
        let store = try ScheduleStore(repository: repository, actingUser: tester, environment: testEnvironment())
        try await store.apply(.batch([
            .addShiftType(type), .addPerson(bob), .addPerson(carol), .scheduleShift(bobsShift), .scheduleShift(carolsShift),
        ]))
        var swap = Request(
            id: RequestID(uuid(300)), kind: .swap, requesterID: bob.id, shift: SeenShift(bobsShift), colleagueID: carol.id,
            colleagueShift: SeenShift(carolsShift), history: [step(.pending, 0, "a wedding\nin Köln")])
        let timeOff = Request(
            id: RequestID(uuid(301)), kind: .timeOff, requesterID: carol.id, from: date("2026-03-10"), to: date("2026-03-11"),
            shiftTypeID: type.id, history: [step(.pending, 1)])
        try await store.apply(.addRequest(swap))
        try await store.apply(.addRequest(timeOff))
        swap = swap.moved(step(.accepted, 2))
        try await store.apply(.updateRequest(swap))
        swap = swap.moved(step(.approved, 3, "fine"))
        try await store.apply(.batch([
            .updateRequest(swap), .reassignShift(bobsShift.id, to: carol.id), .reassignShift(carolsShift.id, to: bob.id),
        ]))
        let (reloaded, _) = try reopen().load()
        #expect(reloaded.requests == [swap, timeOff])
        #expect(reloaded == (await store.schedule))

        // A person's removal takes their requests with them, in the store too.
        try await store.apply(.removePerson(carol.id))
        #expect(try reopen().load().0.requests == [])
        withExtendedLifetime(keep) {}
    }

    @Test(arguments: Backend.all) func aRefusedMoveWritesNothing(_ backend: Backend) async throws {
        let (repository, reopen, keep) = try backend.make(base)
        let store = try ScheduleStore(repository: repository, actingUser: tester, environment: testEnvironment())
        try await store.apply(.batch([.addShiftType(type), .addPerson(bob), .scheduleShift(bobsShift)]))
        let offer = Request(id: RequestID(uuid(302)), kind: .offer, requesterID: bob.id, shift: SeenShift(bobsShift), history: [step(.pending, 0)])
        try await store.apply(.addRequest(offer))
        let cancelled = offer.moved(step(.cancelled, 1))
        try await store.apply(.updateRequest(cancelled))
        let revision = try repository.revision()
        await #expect(throws: ScheduleError.self) { try await store.apply(.updateRequest(cancelled.moved(step(.approved, 2)))) }
        #expect(try repository.revision() == revision)
        #expect(try reopen().load().0.requests == [cancelled])
        withExtendedLifetime(keep) {}
    }

    // MARK: Stores from before requests

    @Test func aVersion3FileIsReadAndWrittenAsVersion4() async throws {
        let directory = try TemporaryFolder()
        let path = directory.file("schedule.json")
        var text = String(decoding: StoreFileCodec.encode(try Schedule(
            settings: StoreSettings(timeZoneIdentifier: "UTC"), shiftTypes: [type], people: [bob], shifts: [bobsShift])), as: UTF8.self)
        text = text.replacingOccurrences(of: "\"version\": 4", with: "\"version\": 3")
            .replacingOccurrences(of: "\n  \"requests\": [],", with: "")
        writeText(text, to: path)
        #expect(try StoreFileCodec.decode(readBytes(path), path: path).version == 3)
        let store = try ScheduleStore(repository: JSONFileRepository(path: path), actingUser: tester, environment: testEnvironment())
        try await store.apply(.addRequest(Request(
            id: RequestID(uuid(303)), kind: .offer, requesterID: bob.id, shift: SeenShift(bobsShift), history: [step(.pending, 0)])))
        let (reread, version) = try StoreFileCodec.decode(readBytes(path), path: path)
        #expect(version == 4)
        #expect(reread.requestCount == 1)
    }

    @Test func aVersion3FileWithRequestsIsRefusedNamingTheField() throws {
        var text = String(decoding: StoreFileCodec.encode(try Schedule(settings: StoreSettings(timeZoneIdentifier: "UTC"))), as: UTF8.self)
        text = text.replacingOccurrences(of: "\"version\": 4", with: "\"version\": 3")
        #expect { try StoreFileCodec.decode(Array(text.utf8), path: "old.json") } throws: { error in
            "\(error)".contains("\"requests\" is new in version 4; this file says version 3")
        }
    }

    @Test func aSQLiteStoreOfVersion2IsMigrated() async throws {
        let directory = try TemporaryFolder()
        let path = directory.file("schedule.sqlite")
        try SQLiteRepository(path: path, createIfMissing: true).write(try Schedule(
            settings: StoreSettings(timeZoneIdentifier: "UTC"), shiftTypes: [type], people: [bob], shifts: [bobsShift]))
        // Back to the layout before requests: what a store made by an older build holds.
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            try db.execute(sql: """
                DROP TABLE request_history; DROP TABLE requests;
                DELETE FROM grdb_migrations WHERE identifier = 'v3-requests';
                UPDATE meta SET version = 2 WHERE id = 1;
                """)
        }
        try queue.close()
        let repository = try SQLiteRepository(path: path)
        let store = try ScheduleStore(repository: repository, actingUser: tester, environment: testEnvironment())
        #expect(await store.schedule.shiftCount == 1)
        try await store.apply(.addRequest(Request(
            id: RequestID(uuid(304)), kind: .offer, requesterID: bob.id, shift: SeenShift(bobsShift), history: [step(.pending, 0)])))
        #expect(try SQLiteRepository(path: path).load().0.requestCount == 1)
        let version = try await DatabaseQueue(path: path).read { try Int.fetchOne($0, sql: "SELECT version FROM meta") }
        #expect(version == SQLiteSchema.currentVersion)
    }

    @Test(.enabled(if: PostgresTestServer.enabled, PostgresTestServer.skipReason))
    func aPostgresScheduleWithoutRequestsIsMigrated() async throws {
        let url = try PostgresTestServer.freshScheduleURL()
        try PostgresRepository(url: url, createIfMissing: true).write(try Schedule(
            settings: StoreSettings(timeZoneIdentifier: "UTC"), shiftTypes: [type], people: [bob], shifts: [bobsShift]))
        let schema = "shiftscheduler_" + url.components(separatedBy: "schedule=").last!
        try PostgresTestServer.psql("""
            DROP TABLE \(schema).request_history; DROP TABLE \(schema).requests;
            DELETE FROM \(schema).migrations WHERE name = 'v3-requests';
            """)
        let store = try ScheduleStore(repository: try PostgresRepository(url: url), actingUser: tester, environment: testEnvironment())
        try await store.apply(.addRequest(Request(
            id: RequestID(uuid(305)), kind: .offer, requesterID: bob.id, shift: SeenShift(bobsShift), history: [step(.pending, 0)])))
        #expect(try PostgresRepository(url: url).load().0.requestCount == 1)
    }
}
