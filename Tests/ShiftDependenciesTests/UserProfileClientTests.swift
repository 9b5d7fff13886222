import Dependencies
import Foundation
import ShiftCore
import ShiftDependencies
import ShiftStorage
import TestSupport
import Testing

@Suite struct UserProfileClientTests {
    @Test func aNewDisplayNameIsSavedInTheStoreAndNamesLaterChanges() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path + "/schedule.json"
        let configuration = ScheduleConfiguration(
            backend: .jsonFile(path: path, createIfMissing: true, initialSettings: StoreSettings(timeZoneIdentifier: "Europe/Berlin")),
            rulesDirectories: [stockRules], defaultProfile: alice)
        try await withLiveClients(configuration) {
            @Dependency(\.userProfileClient) var userProfile
            @Dependency(\.persistenceClient) var persistence
            @Dependency(\.calendarClient) var calendar
            #expect(try await userProfile.current() == alice)
            #expect(try await userProfile.updateDisplayName(displayName: "  Alice Smith ") == UserProfile(userId: "alice", displayName: "Alice Smith"))
            try await persistence.saveLocation(ward)
            try await persistence.saveShiftType(early)
            _ = try await calendar.createShift(shiftTypeID: early.id, date: date("2026-03-02"), personID: nil, notes: nil)
        }
        let stored = try JSONFileRepository(path: path).load().0
        #expect(stored.changeLog.last?.userDisplayName == "Alice Smith")
        #expect(stored.changeLog.last?.userId == "alice")

        try await withLiveClients(configuration) {
            @Dependency(\.userProfileClient) var userProfile
            let saved = try await userProfile.current()
            #expect(saved.displayName == "Alice Smith", "a new connection reads the saved name")
            #expect(try await userProfile.reset() == alice)
            #expect(try await userProfile.current() == alice)
        }
        #expect(try JSONFileRepository(path: path).load().0.settings.extra.isEmpty, "a reset removes the saved name")
    }

    @Test func anEmptyOrGarbledDisplayNameIsRefused() async throws {
        let (configuration, repository) = try memoryStore(rules: [])
        try await withLiveClients(configuration) {
            @Dependency(\.userProfileClient) var userProfile
            let before = repository.snapshot
            await #expect(throws: ScheduleError.invalidValue(field: "displayName", reason: "must not be empty")) {
                _ = try await userProfile.updateDisplayName(displayName: " \n ")
            }
            await #expect(throws: ScheduleError.invalidValue(field: "displayName", reason: "contains the control character U+1B")) {
                _ = try await userProfile.updateDisplayName(displayName: "Eve\u{1B}[2J")
            }
            #expect(repository.snapshot == before)
            let current = try await userProfile.current()
            #expect(current == alice)
        }
    }

    @Test func peopleSharingAStoreKeepTheirOwnDisplayNames() async throws {
        let repository = InMemoryRepository(try catalogue())
        let bobProfile = UserProfile(userId: "bob", displayName: "Bob")
        try await withLiveClients(ScheduleConfiguration(backend: .repository(repository), defaultProfile: alice)) {
            @Dependency(\.userProfileClient) var userProfile
            _ = try await userProfile.updateDisplayName(displayName: "Ali")
        }
        try await withLiveClients(ScheduleConfiguration(backend: .repository(repository), defaultProfile: bobProfile)) {
            @Dependency(\.userProfileClient) var userProfile
            #expect(try await userProfile.current() == bobProfile)
            _ = try await userProfile.updateDisplayName(displayName: "Robert")
        }
        try await withLiveClients(ScheduleConfiguration(backend: .repository(repository), defaultProfile: alice)) {
            @Dependency(\.userProfileClient) var userProfile
            let current = try await userProfile.current()
            #expect(current.displayName == "Ali")
        }
        #expect(repository.snapshot.settings.extra == ["user.displayName.alice": .string("Ali"), "user.displayName.bob": .string("Robert")])
    }

    @Test func onceRolesAreOnStaffStillNameThemselvesButChangeNoOtherSetting() async throws {
        let base = try catalogue()
        var staff = bob
        staff.attributes[Role.attribute] = .string(Role.staff.rawValue)
        let repository = InMemoryRepository(try Schedule(
            settings: base.settings, locations: base.locations, shiftTypes: base.shiftTypes, people: [SampleSchedule.alice, staff, carol]))
        let bobProfile = UserProfile(userId: "bob", displayName: "Bob")
        try await withLiveClients(ScheduleConfiguration(backend: .repository(repository), defaultProfile: bobProfile)) {
            @Dependency(\.userProfileClient) var userProfile
            @Dependency(\.persistenceClient) var persistence
            let renamed = try await userProfile.updateDisplayName(displayName: "Robert")
            #expect(renamed.displayName == "Robert")
            await #expect(throws: ScheduleError.forbidden(message: "Bob (staff) may not change settings entries; a scheduler or admin may")) {
                try await persistence.setChangeLogRetention(policy: .days(30))
            }
        }
        #expect(repository.snapshot.settings.extra == ["user.displayName.bob": .string("Robert")])
    }
}
