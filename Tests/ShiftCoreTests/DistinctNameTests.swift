import Foundation
import TestSupport
import Testing
@testable import ShiftCore

/// People and locations need names that can be told apart: every lookup by name relies on it.
@Suite struct DistinctNameTests {
    let f = Fixture()

    private func expectConflict(_ field: String, _ reason: String, _ mutation: Mutation, on store: ScheduleStore) async {
        let before = await store.schedule
        await #expect(throws: ScheduleError.conflict(field: field, reason: reason)) { try await store.apply(mutation) }
        #expect(await store.schedule == before, "a refused mutation leaves the store unchanged")
    }

    @Test func aSecondPersonOrLocationWithTheSameNameIsRefused() async throws {
        let (store, _) = try await f.store()
        let bob = "another person is already called 'Bob' (20000000); give each person a name of their own"
        await expectConflict("person.displayName", bob, .addPerson(Person(id: PersonID(uuid(50)), displayName: "Bob")), on: store)
        await expectConflict("person.displayName", bob, .addPerson(Person(id: PersonID(uuid(50)), displayName: " bob ")), on: store)
        var carol = f.carol
        carol.displayName = "BOB"
        await expectConflict("person.displayName", bob, .updatePerson(carol), on: store)
        await expectConflict("batch[1].location.name", "another location is already called 'Ward 3' (20000000); give each location a name of its own",
                             .batch([.addPerson(Person(id: PersonID(uuid(51)), displayName: "Dave")),
                                     .addLocation(Location(id: LocationID(uuid(52)), name: "ward 3"))]), on: store)
        let twins = Mutation.batch([.addPerson(Person(id: PersonID(uuid(53)), displayName: "Erin")),
                                    .addPerson(Person(id: PersonID(uuid(54)), displayName: "Erin"))])
        await #expect(throws: ScheduleError.self) { try await store.apply(twins) }
    }

    @Test func renamesKeepingTheNameOrFreeingItAreAccepted() async throws {
        let (store, _) = try await f.store()
        var bob = f.bob
        bob.attributes["team"] = .string("A")
        try await store.apply(.updatePerson(bob))
        bob.displayName = "bob"
        try await store.apply(.updatePerson(bob))
        // One batch: Bob gives up his name, then someone new takes it.
        bob.displayName = "Robert"
        try await store.apply(.batch([.updatePerson(bob), .addPerson(Person(id: PersonID(uuid(60)), displayName: "Bob"))]))
        try await store.apply(.removePerson(f.carol.id))
        try await store.apply(.addPerson(Person(id: PersonID(uuid(61)), displayName: "Carol")))
        #expect(await store.schedule.people.map(\.displayName) == ["Bob", "Carol", "Robert"])
    }

    @Test func aStoredScheduleWithDuplicatesStillLoadsAndCanBeRenamedApart() async throws {
        let twin = Person(id: PersonID(uuid(70)), displayName: "Bob")
        let stored = try Schedule(settings: StoreSettings(timeZoneIdentifier: "UTC"), people: [f.bob, twin])
        let store = try ScheduleStore(repository: InMemoryRepository(stored), actingUser: alice, environment: testEnvironment())
        #expect(await store.schedule.people.count == 2)
        var edited = twin
        edited.attributes["team"] = .string("B")
        try await store.apply(.updatePerson(edited))
        edited.displayName = "Bobby"
        try await store.apply(.updatePerson(edited))
        #expect(Set(await store.schedule.people.map(\.displayName)) == ["Bob", "Bobby"])
    }
}
