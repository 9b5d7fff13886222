import Dependencies
import Foundation
import ShiftCore
import ShiftDependencies
import TestSupport
import Testing

@Suite struct PersistenceClientTests {
    @Test func savesAndFetchesLocationsShiftTypesAndPeople() async throws {
        let (configuration, repository) = try memoryStore()
        try await withLiveClients(configuration) {
            @Dependency(\.persistenceClient) var persistence
            let annex = Location(id: LocationID(UUID(900)), name: "Annex")
            try await persistence.saveLocation(annex)
            var moved = clinic
            moved.address = "Side St 2"
            try await persistence.saveLocation(moved)
            #expect(try await persistence.fetchLocations().map(\.name) == ["Annex", "Day Clinic", "Ward 3"])
            #expect(repository.snapshot.location(clinic.id)?.address == "Side St 2", "saving an existing id updates it")

            let day = ShiftType(id: ShiftTypeID(UUID(901)), symbol: "D", title: "Day", duration: ShiftDuration("08:00-16:00")!, locationID: annex.id)
            try await persistence.saveShiftType(day)
            #expect(try await persistence.fetchShiftTypes().map(\.symbol) == ["D", "E", "L", "N"])
            try await persistence.deleteShiftType(day.id)
            #expect(repository.snapshot.shiftType(day.id) == nil)

            try await persistence.savePerson(Person(id: PersonID(UUID(902)), displayName: "Dave"))
            #expect(try await persistence.fetchPeople().map(\.displayName) == ["Alice", "Bob", "Carol", "Dave"])
            try await persistence.deletePerson(PersonID(UUID(902)))
            #expect(repository.snapshot.personCount == 3)
        }
    }

    @Test func aLocationInUseIsNotDeletedAndTheCountSaysHowManyShiftTypesUseIt() async throws {
        let (configuration, repository) = try memoryStore(rules: [])
        try await withLiveClients(configuration) {
            @Dependency(\.persistenceClient) var persistence
            #expect(try await persistence.canDeleteLocation(id: ward.id) == false)
            #expect(try await persistence.canDeleteLocation(id: clinic.id))
            let before = repository.snapshot
            await #expect(throws: ShiftClientError.locationInUse(count: 3)) { try await persistence.safeDeleteLocation(id: ward.id) }
            #expect(repository.snapshot == before, "nothing was written, even with no rules loaded")

            try await persistence.safeDeleteLocation(id: clinic.id)
            #expect(repository.snapshot.location(clinic.id) == nil)
            await #expect(throws: ScheduleError.notFound(entity: .location, id: clinic.id.description, field: "locationID")) {
                _ = try await persistence.canDeleteLocation(id: clinic.id)
            }
        }
    }

    @Test func deletingALocationInUseIsRejectedByTheStockRuleWithItsViolation() async throws {
        let (configuration, repository) = try memoryStore()
        try await withLiveClients(configuration) {
            @Dependency(\.persistenceClient) var persistence
            let before = repository.snapshot
            do {
                try await persistence.deleteLocation(id: ward.id)
                Issue.record("the location_in_use rule should have rejected the removal")
            } catch let ScheduleError.rejected(violations) {
                #expect(violations.map(\.ruleID) == ["location_in_use"])
                #expect(violations.first?.message.hasPrefix("Ward 3 is used by 3 shift types") == true)
            }
            #expect(repository.snapshot == before)
        }
    }

    @Test func theRetentionPolicyIsAStoreSettingThatPurgingApplies() async throws {
        let (configuration, repository) = try memoryStore(rules: [])
        try await withLiveClients(configuration) {
            @Dependency(\.persistenceClient) var persistence
            @Dependency(\.changeLogClient) var changeLog
            #expect(try await persistence.changeLogRetention() == .forever)
            for (n, age) in [(1, 40.0), (2, 5.0)] {
                try await changeLog.save(entry: ChangeLogEntry(
                    id: ChangeLogEntryID(UUID(800 + n)), timestamp: fixedNow.addingTimeInterval(-age * 86_400), userId: "app",
                    userDisplayName: "App", changeType: .updated, scheduledShiftDate: date("2026-01-01")))
            }
            #expect(try await persistence.purgeExpiredChangeLogEntries() == 0, "forever keeps everything")
            try await persistence.setChangeLogRetention(policy: .days(30))
            #expect(repository.snapshot.settings.changeLogRetention == .days(30))
            #expect(try await persistence.purgeExpiredChangeLogEntries() == 1)
            #expect(try await persistence.fetchChangeLogEntries().map(\.id) == [ChangeLogEntryID(UUID(802))])
        }
    }

    @Test func observingYieldsTheScheduleAfterEachChange() async throws {
        let (configuration, _) = try memoryStore(rules: [])
        try await withLiveClients(configuration) {
            @Dependency(\.persistenceClient) var persistence
            var schedules = persistence.observe().makeAsyncIterator()
            #expect(await schedules.next()?.locationCount == 2)
            try await persistence.saveLocation(Location(id: LocationID(UUID(900)), name: "Annex"))
            #expect(await schedules.next()?.locationCount == 3)
        }
    }
}
