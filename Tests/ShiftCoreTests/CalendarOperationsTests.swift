import Foundation
import TestSupport
import Testing
@testable import ShiftCore

@Suite struct CalendarOperationsTests {
    let f = Fixture()

    @Test func createsFetchesAndDeletesShiftsThroughTheFunnel() async throws {
        let (store, repository) = try await f.store()
        let created = try await store.createShift(type: f.day.id, date: date("2026-03-02"), person: f.bob.id, notes: "cover", id: ShiftID(uuid(100)))
        try await store.createShift(type: f.night.id, date: date("2026-03-02"), person: f.carol.id, id: ShiftID(uuid(101)))
        try await store.createShift(type: f.day.id, date: date("2026-03-04"), id: ShiftID(uuid(102)))

        #expect(created.notes == "cover")
        #expect(await store.shifts(on: date("2026-03-02")).map(\.id) == [ShiftID(uuid(100)), ShiftID(uuid(101))])
        #expect(await store.shifts(on: date("2026-03-03")).isEmpty)
        #expect(await store.shifts(from: date("2026-03-01"), to: date("2026-03-04")).count == 3)
        #expect(await store.shifts(from: date("2026-03-03"), to: date("2026-03-10")).map(\.id) == [ShiftID(uuid(102))])
        #expect(repository.snapshot.shiftCount == 3, "every write reaches the repository")
        #expect(await store.schedule.changeLog.filter { $0.changeType == .created }.count == 3, "each create is logged")

        try await store.deleteShift(eventIdentifier: created.eventIdentifier, reason: "not needed")
        #expect(await store.shifts(on: date("2026-03-02")).map(\.id) == [ShiftID(uuid(101))])
        let deletion = try #require(await store.schedule.changeLog.last)
        #expect(deletion.changeType == .deleted)
        #expect(deletion.reason == "not needed")
    }

    @Test func theDuplicateCheckLooksAtTypeDateAndPerson() async throws {
        let (store, _) = try await f.store()
        try await store.createShift(type: f.day.id, date: date("2026-03-02"), person: f.bob.id, id: ShiftID(uuid(100)))
        #expect(await store.hasShift(type: f.day.id, on: date("2026-03-02")))
        #expect(!(await store.hasShift(type: f.night.id, on: date("2026-03-02"))))
        #expect(!(await store.hasShift(type: f.day.id, on: date("2026-03-03"))))

        let before = await store.schedule
        await #expect(throws: ScheduleError.conflict(field: "shift", reason: "Bob already has D on 2026-03-02 (a duplicate)")) {
            try await store.createShift(type: f.day.id, date: date("2026-03-02"), person: f.bob.id, id: ShiftID(uuid(101)))
        }
        #expect(await store.schedule == before, "a refused duplicate writes nothing")
        // Another person, or an explicit duplicate, is fine.
        try await store.createShift(type: f.day.id, date: date("2026-03-02"), person: f.carol.id, id: ShiftID(uuid(102)))
        try await store.createShift(type: f.day.id, date: date("2026-03-02"), person: f.bob.id, id: ShiftID(uuid(103)), allowDuplicate: true)
        #expect(await store.shifts(on: date("2026-03-02")).count == 3)
        #expect(await store.schedule.hasShift(type: f.day.id, on: date("2026-03-02"), person: nil) == false, "no open D shift yet")
    }

    @Test func switchingByEventIdentifierChangesTheTypeAndLogsBothSnapshots() async throws {
        let (store, _) = try await f.store()
        let shift = try await store.createShift(type: f.day.id, date: date("2026-03-02"), person: f.bob.id, id: ShiftID(uuid(100)))
        let switched = try await store.switchShift(eventIdentifier: shift.eventIdentifier, to: f.night.id, reason: "swap")
        #expect(switched.shiftTypeID == f.night.id)
        #expect(switched.eventIdentifier == shift.eventIdentifier, "the calendar UID survives a switch")
        let entry = try #require(await store.schedule.changeLog.last)
        #expect(entry.changeType == .switched)
        #expect(entry.oldShiftSnapshot?.symbol == "D")
        #expect(entry.newShiftSnapshot?.symbol == "N")
        #expect(entry.reason == "swap")
    }

    @Test func unknownEventIdentifiersAreRefused() async throws {
        let (store, _) = try await f.store()
        await #expect(throws: ScheduleError.notFound(entity: .shift, id: "nope@elsewhere", field: "eventIdentifier")) {
            try await store.deleteShift(eventIdentifier: "nope@elsewhere")
        }
        await #expect(throws: ScheduleError.notFound(entity: .shift, id: "nope@elsewhere", field: "eventIdentifier")) {
            try await store.switchShift(eventIdentifier: "nope@elsewhere", to: f.day.id)
        }
    }

    @Test func rulesSeeCalendarWritesAndARejectionWritesNothing() async throws {
        let (store, repository) = try await f.store()
        await store.setValidators([RejectingValidator(severity: .error) { $0.shiftTypeID == f.night.id }])
        let day = try await store.createShift(type: f.day.id, date: date("2026-03-02"), person: f.bob.id, id: ShiftID(uuid(100)))
        let before = repository.snapshot
        await #expect(throws: ScheduleError.self) {
            try await store.createShift(type: f.night.id, date: date("2026-03-03"), person: f.bob.id, id: ShiftID(uuid(101)))
        }
        await #expect(throws: ScheduleError.self) {
            try await store.switchShift(eventIdentifier: day.eventIdentifier, to: f.night.id)
        }
        #expect(repository.snapshot == before)
    }

    @Test func currentDayFollowsTheInjectedClockInTheStoresZone() async throws {
        let (store, _) = try await f.store()
        // 2026-03-28 23:30 UTC is already 2026-03-29 00:30 in Berlin.
        let instant = Date(timeIntervalSince1970: 1_774_740_600)
        let day = await store.currentDay(now: { instant })
        #expect(day.today == date("2026-03-29"))
        #expect(day.tomorrow == date("2026-03-30"))
        #expect(day.yesterday == date("2026-03-28"))
        #expect(day.isToday(date("2026-03-29")))
        #expect(!day.isToday(date("2026-03-28")))
        #expect(day.daysBetween(date("2026-02-27"), date("2026-03-02")) == 3)
        #expect(day.daysBetween(date("2026-03-02"), date("2026-02-27")) == -3)
        #expect(day.daysFromToday(to: date("2026-04-01")) == 3)
        #expect(CurrentDay(zone: .utc, now: { instant }).today == date("2026-03-28"), "the same instant in UTC is the day before")
    }
}
