import Foundation
import TestSupport
import Testing
@testable import ShiftCore

@Suite struct MutationTests {
    let f = Fixture()

    private func expectError(_ expected: ScheduleError, _ mutation: Mutation, on store: ScheduleStore) async throws {
        let before = await store.schedule
        await #expect(throws: expected) { try await store.apply(mutation) }
        #expect(await store.schedule == before, "a refused mutation leaves the store unchanged")
    }

    @Test func addsUpdatesAndRemovesEveryEntityKind() async throws {
        let (store, repository) = try await f.store()
        var ward = f.ward
        ward.name = "Ward 4"
        try await store.apply(.updateLocation(ward))
        var day = f.day
        day.title = "Long day"
        try await store.apply(.updateShiftType(day))
        var bob = f.bob
        bob.displayName = "Robert"
        try await store.apply(.updatePerson(bob))
        let demand = Demand(id: DemandID(uuid(50)), day: .date(date("2026-03-02")), shiftTypeID: f.day.id, minimum: 2, optimal: 3)
        try await store.apply(.addDemand(demand))
        var more = demand
        more.optimal = 4
        try await store.apply(.updateDemand(more))
        let off = Availability(id: AvailabilityID(uuid(60)), personID: f.bob.id, from: date("2026-03-02"), kind: .unavailable)
        try await store.apply(.addAvailability(off))
        var offLonger = off
        offLonger.to = date("2026-03-05")
        try await store.apply(.updateAvailability(offLonger))

        var schedule = await store.schedule
        #expect(schedule.location(f.ward.id)?.name == "Ward 4")
        #expect(schedule.shiftType(f.day.id)?.title == "Long day")
        #expect(schedule.person(f.bob.id)?.displayName == "Robert")
        #expect(schedule.demand(on: date("2026-03-02")) == [more])
        #expect(schedule.availability(on: date("2026-03-04"), personID: f.bob.id) == [offLonger])
        #expect(repository.snapshot == schedule, "every commit reaches the repository")

        try await store.apply(.removeDemand(demand.id))
        try await store.apply(.removeAvailability(off.id))
        try await store.apply(.removePerson(f.carol.id))
        try await store.apply(.removeShiftType(f.office.id))
        schedule = await store.schedule
        #expect(schedule.demand(on: date("2026-03-02")).isEmpty)
        #expect(schedule.availability(of: f.bob.id).isEmpty)
        #expect(schedule.person(f.carol.id) == nil)
        #expect(schedule.shiftType(symbol: "O") == nil)
    }

    @Test func refusesDuplicateIdsUnknownEntitiesAndDanglingReferences() async throws {
        let (store, _) = try await f.store()
        try await expectError(.duplicateID(entity: .location, id: f.ward.id.description, field: "location.id"), .addLocation(f.ward), on: store)
        try await expectError(.duplicateID(entity: .person, id: f.bob.id.description, field: "person.id"), .addPerson(f.bob), on: store)
        let ghost = Person(id: PersonID(uuid(99)), displayName: "Ghost")
        try await expectError(.notFound(entity: .person, id: ghost.id.description, field: "person.id"), .updatePerson(ghost), on: store)
        try await expectError(.notFound(entity: .person, id: ghost.id.description, field: "personID"), .removePerson(ghost.id), on: store)
        let stray = f.shift(1, f.day, "2026-03-02", ghost)
        try await expectError(.unknownReference(field: "shift.personID", id: ghost.id.description), .scheduleShift(stray), on: store)
        let typeless = ScheduledShift(id: ShiftID(uuid(200)), shiftTypeID: ShiftTypeID(uuid(98)), date: date("2026-03-02"))
        try await expectError(.unknownReference(field: "shift.shiftTypeID", id: uuid(98).lowercasedString), .scheduleShift(typeless), on: store)
        var elsewhere = f.office
        elsewhere.id = ShiftTypeID(uuid(97))
        elsewhere.symbol = "X"
        elsewhere.locationID = LocationID(uuid(96))
        try await expectError(.unknownReference(field: "shiftType.locationID", id: uuid(96).lowercasedString), .addShiftType(elsewhere), on: store)
        let noShift = ShiftID(uuid(95))
        try await expectError(.notFound(entity: .shift, id: noShift.description, field: "shiftID"), .unscheduleShift(noShift), on: store)
        try await expectError(.notFound(entity: .shift, id: noShift.description, field: "shiftID"), .switchShift(noShift, to: f.day.id), on: store)
        try await expectError(.notFound(entity: .shift, id: noShift.description, field: "shiftID"), .reassignShift(noShift, to: nil), on: store)
    }

    @Test func refusesInvalidValues() async throws {
        let (store, _) = try await f.store()
        try await expectError(.invalidValue(field: "location.name", reason: "must not be empty"),
                              .addLocation(Location(id: LocationID(uuid(90)), name: "  ")), on: store)
        try await expectError(.invalidValue(field: "person.displayName", reason: "contains the control character U+1B"),
                              .addPerson(Person(id: PersonID(uuid(91)), displayName: "Eve\u{1B}[31m")), on: store)
        var copy = f.office
        copy.id = ShiftTypeID(uuid(92))
        try await expectError(.conflict(field: "shiftType.symbol", reason: "symbol 'O' is already used by another shift type"),
                              .addShiftType(copy), on: store)
        copy.symbol = ""
        try await expectError(.invalidValue(field: "shiftType.symbol", reason: "a shift type needs a symbol (e.g. D, N, E1)"),
                              .addShiftType(copy), on: store)
        let greedy = Demand(id: DemandID(uuid(93)), day: .weekday(.monday), shiftTypeID: f.day.id, minimum: 3, optimal: 2)
        try await expectError(.invalidValue(field: "demand.optimal", reason: "must be at least the minimum (3), not 2"),
                              .addDemand(greedy), on: store)
        let backwards = Availability(id: AvailabilityID(uuid(94)), personID: f.bob.id, from: date("2026-03-05"),
                                     to: date("2026-03-01"), kind: .unavailable)
        try await expectError(.invalidValue(field: "availability.to", reason: "ends (2026-03-01) before it starts (2026-03-05)"),
                              .addAvailability(backwards), on: store)
        try await expectError(.invalidValue(field: "settings.timeZone", reason: "'Mars/Olympus' is not an IANA time zone (e.g. Europe/Berlin)"),
                              .updateSettings(StoreSettings(timeZoneIdentifier: "Mars/Olympus")), on: store)
        var first = f.shift(1, f.day, "2026-03-02", nil)
        first.eventIdentifier = "same@example.com"
        try await store.apply(.scheduleShift(first))
        var second = f.shift(2, f.day, "2026-03-03", nil)
        second.eventIdentifier = "same@example.com"
        try await expectError(.conflict(field: "shift.eventIdentifier", reason: "'same@example.com' is already the UID of another shift"),
                              .scheduleShift(second), on: store)
    }

    @Test func aBatchCommitsWholeOrNotAtAll() async throws {
        let (store, repository) = try await f.store()
        let before = await store.schedule
        let good = f.shift(1, f.day, "2026-03-02", f.bob)
        let bad = ScheduledShift(id: ShiftID(uuid(300)), shiftTypeID: f.day.id, date: date("2026-03-03"), personID: PersonID(uuid(99)))
        await #expect(throws: ScheduleError.unknownReference(field: "batch[1].shift.personID", id: uuid(99).lowercasedString)) {
            try await store.apply(.batch([.scheduleShift(good), .scheduleShift(bad)]))
        }
        #expect(await store.schedule == before)
        #expect(repository.snapshot == before)
        try await store.apply(.batch([.scheduleShift(good), .scheduleShift(f.shift(2, f.night, "2026-03-02", f.carol))]))
        #expect(await store.schedule.shiftCount == 2)
    }

    @Test func shiftChangesAreLoggedWithSnapshotsAndReasons() async throws {
        let (store, _) = try await f.store()
        let shift = f.shift(1, f.day, "2026-03-02", f.bob)
        try await store.apply(.scheduleShift(shift))
        try await store.apply(.switchShift(shift.id, to: f.night.id, reason: "cover nights"))
        try await store.apply(.reassignShift(shift.id, to: f.carol.id, reason: "Bob is ill"))
        var noted = await store.schedule.shift(shift.id)!
        noted.notes = "bring keys"
        try await store.apply(.updateShift(noted))
        let result = try await store.apply(.unscheduleShift(shift.id, reason: "not needed"))

        let log = await store.schedule.changeLog
        #expect(log.map(\.changeType) == [.created, .switched, .reassigned, .updated, .deleted])
        #expect(log.map(\.reason) == [nil, "cover nights", "Bob is ill", nil, "not needed"])
        #expect(log.allSatisfy { $0.userId == "alice" && $0.userDisplayName == "Alice Admin" })
        #expect(log.allSatisfy { $0.timestamp == Timestamp.truncated(fixedNow) && $0.scheduledShiftDate == date("2026-03-02") })
        #expect(log[0].oldShiftSnapshot == nil)
        #expect(log[0].newShiftSnapshot?.symbol == "D")
        #expect(log[0].newShiftSnapshot?.personName == "Bob")
        #expect(log[0].newShiftSnapshot?.locationName == "Ward 3")
        #expect(log[1].oldShiftSnapshot?.symbol == "D")
        #expect(log[1].newShiftSnapshot?.symbol == "N")
        #expect(log[2].newShiftSnapshot?.personName == "Carol")
        #expect(log[3].newShiftSnapshot?.notes == "bring keys")
        #expect(log[4].newShiftSnapshot == nil)
        #expect(result.logEntries == [log[4]])
    }

    @Test func snapshotsStayReadableAfterTheTypeIsRenamed() async throws {
        let (store, _) = try await f.store()
        let shift = f.shift(1, f.day, "2026-03-02", f.bob)
        try await store.apply(.scheduleShift(shift))
        var renamed = f.day
        renamed.symbol = "LD"
        renamed.title = "Long day"
        try await store.apply(.updateShiftType(renamed))
        let entry = await store.schedule.changeLog[0]
        #expect(entry.newShiftSnapshot?.symbol == "D")
        #expect(entry.newShiftSnapshot?.title == "Day")
    }

    @Test func removalsCascadeAndAreVisibleAsChanges() async throws {
        let (store, _) = try await f.store()
        try await store.apply(.batch([
            .scheduleShift(f.shift(1, f.day, "2026-03-02", f.bob)),
            .scheduleShift(f.shift(2, f.office, "2026-03-02", f.bob)),
            .addAvailability(Availability(id: AvailabilityID(uuid(60)), personID: f.bob.id, from: date("2026-03-09"), kind: .desired)),
            .addDemand(Demand(id: DemandID(uuid(50)), day: .weekday(.monday), shiftTypeID: f.office.id, minimum: 1, optimal: 1)),
        ]))
        let removedLocation = try await store.apply(.removeLocation(f.ward.id))
        #expect(removedLocation.changes.filter { $0.entity == .shiftType }.count == 2, "day and night lose their location")
        #expect(await store.schedule.shiftType(f.day.id)?.locationID == nil)

        let removedType = try await store.apply(.removeShiftType(f.office.id))
        #expect(removedType.changes.contains(.shift(before: f.shift(2, f.office, "2026-03-02", f.bob), after: nil, reason: "shift type O removed")))
        #expect(removedType.changes.contains { $0.entity == .demand && $0.action == .removed })
        #expect(await store.schedule.shiftCount == 1)

        let removedPerson = try await store.apply(.removePerson(f.bob.id))
        #expect(await store.schedule.shift(ShiftID(uuid(101)))?.personID == nil)
        #expect(removedPerson.logEntries.map(\.changeType) == [.reassigned])
        #expect(await store.schedule.availability(of: f.bob.id).isEmpty)
    }

    @Test func aBatchReportsOneNetChangePerEntity() async throws {
        let (store, _) = try await f.store()
        let shift = f.shift(1, f.day, "2026-03-02", f.bob)
        let result = try await store.apply(.batch([
            .scheduleShift(shift), .switchShift(shift.id, to: f.night.id), .reassignShift(shift.id, to: f.carol.id),
            .scheduleShift(f.shift(2, f.day, "2026-03-03", nil)), .unscheduleShift(ShiftID(uuid(102))),
        ]))
        #expect(result.changes.count == 1)
        guard case let .shift(before, after?, _) = result.changes[0] else { Issue.record("expected a shift change"); return }
        #expect(before == nil)
        #expect(after.shiftTypeID == f.night.id && after.personID == f.carol.id)
        #expect(result.logEntries.map(\.changeType) == [.created])
    }

    /// Past a handful of changes the net changes are kept by key: adds, then changes of what was
    /// added, removed and added again, and a stored shift removed and added back.
    @Test func aBigBatchReportsOneNetChangePerEntity() async throws {
        let (store, _) = try await f.store()
        let stored = f.shift(90, f.day, "2026-03-01", f.carol)
        try await store.apply(.scheduleShift(stored))
        let adds = (1...20).map { f.shift($0, f.day, "2026-03-\(String(format: "%02d", $0 + 1))", f.bob) }
        var moved = adds[4]
        moved.date = LocalDate("2026-04-01")!
        var back = stored
        back.notes = "back"
        let result = try await store.apply(.batch(adds.map { .scheduleShift($0) } + [
            .reassignShift(adds[2].id, to: f.carol.id), .unscheduleShift(adds[4].id), .scheduleShift(moved), .unscheduleShift(adds[6].id),
            .unscheduleShift(stored.id), .scheduleShift(back),
        ]))
        #expect(result.changes.count == 20)
        let byID = Dictionary(result.changes.compactMap { change -> (ShiftID, Change)? in
            guard case let .shift(before, after, _) = change, let id = (after ?? before)?.id else { return nil }
            return (id, change)
        }, uniquingKeysWith: { first, _ in first })
        #expect(byID[adds[6].id] == nil, "added and removed: no change")
        #expect(byID[adds[2].id] == .shift(before: nil, after: { var s = adds[2]; s.personID = f.carol.id; return s }(), reason: nil))
        #expect(byID[moved.id] == .shift(before: nil, after: moved, reason: nil))
        #expect(byID[stored.id] == .shift(before: stored, after: back, reason: nil))
        #expect(result.logEntries.map(\.changeType).filter { $0 == .created }.count == 19)
    }

    @Test func validatorsSeeBeforeAndAfterAndErrorsReject() async throws {
        let f = self.f
        let rejectNights = RejectingValidator(severity: .error) { $0.shiftTypeID == f.night.id }
        let (store, repository) = try await f.store(validators: [rejectNights])
        try await store.apply(.scheduleShift(f.shift(1, f.day, "2026-03-02", f.bob)))
        let committed = repository.snapshot
        do {
            try await store.apply(.batch([.scheduleShift(f.shift(2, f.day, "2026-03-03", f.bob)),
                                          .scheduleShift(f.shift(3, f.night, "2026-03-04", f.bob))]))
            Issue.record("a night shift should be rejected")
        } catch let ScheduleError.rejected(violations) {
            #expect(violations.map(\.shiftID) == [ShiftID(uuid(103))])
            #expect(violations[0].ruleID == "test_rule")
        }
        #expect(repository.snapshot == committed, "nothing written")
        #expect(await store.schedule == committed)
        #expect(await store.schedule.changeLog.count == 1)
    }

    @Test func warningsAndPenaltiesDoNotBlockACommit() async throws {
        let warn = RejectingValidator(severity: .warning) { _ in true }
        let (store, _) = try await f.store(validators: [warn])
        let result = try await store.apply(.scheduleShift(f.shift(1, f.day, "2026-03-02", f.bob)))
        #expect(result.violations.map(\.severity) == [.warning])
        #expect(await store.schedule.shiftCount == 1)
    }

    @Test func aFailingValidatorRejectsTheMutation() async throws {
        let (store, repository) = try await f.store()
        await store.setValidators([ThrowingValidator()])
        let before = repository.snapshot
        await #expect(throws: ScheduleError.validatorFailed(validator: "broken", message: "rules/broken.lua:3: boom")) {
            try await store.apply(.scheduleShift(f.shift(1, f.day, "2026-03-02", f.bob)))
        }
        #expect(repository.snapshot == before)
    }

    @Test func checkReportsWithoutWriting() async throws {
        let rejectAll = RejectingValidator(severity: .error) { _ in true }
        let (store, repository) = try await f.store(validators: [rejectAll])
        let before = repository.snapshot
        let (changes, violations) = try await store.check(.scheduleShift(f.shift(1, f.day, "2026-03-02", f.bob)))
        #expect(changes.count == 1 && violations.count == 1)
        #expect(repository.snapshot == before)
    }

    @Test func pruningFollowsTheRetentionPolicy() async throws {
        let clock = MutableClock(Date(timeIntervalSince1970: 1_000_000))
        let counter = Counter()
        let repository = InMemoryRepository()
        let store = try ScheduleStore(repository: repository, actingUser: alice,
                                      environment: StoreEnvironment(now: { clock.now }, makeUUID: { counter.next() }))
        try await store.apply(f.setup)
        try await store.apply(.scheduleShift(f.shift(1, f.day, "2026-03-02", f.bob)))
        clock.now = Date(timeIntervalSince1970: 1_000_000 + 40 * 86_400)
        try await store.apply(.scheduleShift(f.shift(2, f.day, "2026-03-03", f.bob)))
        var settings = await store.schedule.settings
        settings.changeLogRetention = .days(30)
        try await store.apply(.updateSettings(settings))
        #expect(try await store.pruneChangeLog() == 1)
        #expect(await store.schedule.changeLog.map(\.scheduledShiftDate) == [date("2026-03-03")])
        #expect(try await store.pruneChangeLog() == 0)
    }
}

final class MutableClock: @unchecked Sendable {
    // Only mutated by the test body between awaits of the same task; no concurrent access.
    var now: Date
    init(_ now: Date) { self.now = now }
}
