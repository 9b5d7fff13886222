import Dependencies
import Foundation
import ShiftCore
import ShiftDependencies
import TestSupport
import Testing

@Suite struct CalendarClientTests {
    @Test func createsFetchesUpdatesAndDeletesShiftsThroughTheFunnel() async throws {
        let (configuration, repository) = try memoryStore()
        try await withLiveClients(configuration) {
            @Dependency(\.calendarClient) var calendar
            let created = try await calendar.createShift(shiftTypeID: early.id, date: date("2026-03-02"), personID: bob.id, notes: "keys")
            #expect(created.id == ShiftID(UUID(0)), "the id comes from the uuid dependency")
            #expect(created.notes == "keys")
            _ = try await calendar.createShift(shiftTypeID: late.id, date: date("2026-03-02"), personID: carol.id, notes: nil)
            _ = try await calendar.createShift(shiftTypeID: night.id, date: date("2026-03-04"), personID: nil, notes: nil)

            #expect(try await calendar.fetchShifts(on: date("2026-03-02")).map(\.shiftTypeID) == [early.id, late.id])
            #expect(try await calendar.fetchShifts(on: date("2026-03-03")).isEmpty)
            #expect(try await calendar.fetchShiftsInRange(from: date("2026-03-01"), to: date("2026-03-04")).count == 3)
            #expect(try await calendar.fetchShift(eventIdentifier: created.eventIdentifier) == created)
            #expect(try await calendar.fetchShift(eventIdentifier: "nope@elsewhere") == nil)

            var moved = created
            moved.date = date("2026-03-05")
            let updated = try await calendar.updateShift(shift: moved, reason: "moved")
            #expect(updated.date == date("2026-03-05"))
            #expect(repository.snapshot.changeLog.last?.reason == "moved")

            try await calendar.deleteShift(eventIdentifier: created.eventIdentifier, reason: "not needed")
            #expect(repository.snapshot.shift(created.id) == nil)
            let log = repository.snapshot.changeLog
            #expect(log.map(\.changeType) == [.created, .created, .created, .updated, .deleted])
            #expect(log.allSatisfy { $0.userDisplayName == "Alice Admin" }, "recorded as the configured profile")
            #expect(log.last?.timestamp == fixedNow, "stamped by the date dependency")
        }
    }

    @Test func theDuplicateCheckMatchesWhatCreateRefuses() async throws {
        let (configuration, repository) = try memoryStore(rules: [])
        try await withLiveClients(configuration) {
            @Dependency(\.calendarClient) var calendar
            #expect(try await calendar.checkForDuplicate(shiftTypeID: early.id, date: date("2026-03-02"), personID: bob.id) == false)
            _ = try await calendar.createShift(shiftTypeID: early.id, date: date("2026-03-02"), personID: bob.id, notes: nil)
            #expect(try await calendar.checkForDuplicate(shiftTypeID: early.id, date: date("2026-03-02"), personID: bob.id))
            #expect(try await calendar.checkForDuplicate(shiftTypeID: early.id, date: date("2026-03-02"), personID: carol.id) == false)
            #expect(try await calendar.checkForDuplicate(shiftTypeID: early.id, date: date("2026-03-02"), personID: nil) == false)
            let before = repository.snapshot
            await #expect(throws: ScheduleError.conflict(field: "shift", reason: "Bob already has E on 2026-03-02 (a duplicate)")) {
                _ = try await calendar.createShift(shiftTypeID: early.id, date: date("2026-03-02"), personID: bob.id, notes: nil)
            }
            #expect(repository.snapshot == before)
        }
    }

    @Test func theStockRulesRejectADoubleBookingWithTypedViolationsAndNothingIsWritten() async throws {
        let (configuration, repository) = try memoryStore()
        try await withLiveClients(configuration) {
            @Dependency(\.calendarClient) var calendar
            _ = try await calendar.createShift(shiftTypeID: early.id, date: date("2026-03-02"), personID: bob.id, notes: nil)
            let before = repository.snapshot
            do {
                _ = try await calendar.createShift(shiftTypeID: late.id, date: date("2026-03-02"), personID: bob.id, notes: nil)
                Issue.record("the rules should have rejected a second shift on the day")
            } catch let ScheduleError.rejected(violations) {
                #expect(Set(violations.filter { $0.severity == .error }.map(\.ruleID)) == ["min_rest_between_shifts", "one_shift_per_day"])
                #expect(violations.allSatisfy { $0.date == date("2026-03-02") })
            }
            #expect(repository.snapshot == before)
        }
    }

    @Test func observingARangeYieldsItsShiftsAfterEachChange() async throws {
        let (configuration, _) = try memoryStore(rules: [])
        try await withLiveClients(configuration) {
            @Dependency(\.calendarClient) var calendar
            var ranges = calendar.observe(from: date("2026-03-02"), to: date("2026-03-08")).makeAsyncIterator()
            #expect(await ranges.next() == [])
            let shift = try await calendar.createShift(shiftTypeID: early.id, date: date("2026-03-03"), personID: bob.id, notes: nil)
            #expect(await ranges.next() == [shift])
            _ = try await calendar.createShift(shiftTypeID: early.id, date: date("2026-03-10"), personID: bob.id, notes: nil)
            #expect(await ranges.next() == [shift], "a change outside the range yields the same shifts")
        }
    }
}
