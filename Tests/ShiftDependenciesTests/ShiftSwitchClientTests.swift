import Dependencies
import Foundation
import ShiftCore
import ShiftDependencies
import TestSupport
import Testing

@Suite struct ShiftSwitchClientTests {
    @Test func aSwitchReturnsTheIdOfTheEntryItLogged() async throws {
        let (configuration, repository) = try memoryStore()
        try await withLiveClients(configuration) {
            @Dependency(\.calendarClient) var calendar
            @Dependency(\.shiftSwitchClient) var shiftSwitch
            let shift = try await calendar.createShift(shiftTypeID: early.id, date: date("2026-03-02"), personID: bob.id, notes: nil)
            let entryID = try await shiftSwitch.switchShift(
                eventIdentifier: shift.eventIdentifier, date: shift.date, old: early.id, new: late.id, reason: "swap with Carol")
            let entry = try #require(repository.snapshot.changeLog.first { $0.id == entryID })
            #expect(entry.changeType == .switched)
            #expect(entry.oldShiftSnapshot?.symbol == "E")
            #expect(entry.newShiftSnapshot?.symbol == "L")
            #expect(entry.reason == "swap with Carol")
            #expect(entry.userDisplayName == "Alice Admin")
            #expect(repository.snapshot.shift(shift.id)?.shiftTypeID == late.id)
        }
    }

    @Test func aSwitchOfAShiftThatChangedSinceItWasReadIsRefused() async throws {
        let (configuration, repository) = try memoryStore(rules: [])
        try await withLiveClients(configuration) {
            @Dependency(\.calendarClient) var calendar
            @Dependency(\.shiftSwitchClient) var shiftSwitch
            let shift = try await calendar.createShift(shiftTypeID: early.id, date: date("2026-03-02"), personID: bob.id, notes: nil)
            let before = repository.snapshot
            await #expect(throws: ShiftClientError.shiftChanged(eventIdentifier: shift.eventIdentifier, reason: "its type is now E")) {
                try await shiftSwitch.switchShift(eventIdentifier: shift.eventIdentifier, date: shift.date, old: night.id, new: late.id, reason: nil)
            }
            await #expect(throws: ShiftClientError.shiftChanged(eventIdentifier: shift.eventIdentifier, reason: "it is on 2026-03-02, not 2026-03-03")) {
                try await shiftSwitch.switchShift(eventIdentifier: shift.eventIdentifier, date: date("2026-03-03"), old: early.id, new: late.id, reason: nil)
            }
            await #expect(throws: ScheduleError.notFound(entity: .shift, id: "nope@elsewhere", field: "eventIdentifier")) {
                try await shiftSwitch.switchShift(eventIdentifier: "nope@elsewhere", date: shift.date, old: early.id, new: late.id, reason: nil)
            }
            await #expect(throws: ScheduleError.invalidValue(field: "new", reason: "the shift already has this type; choose another one")) {
                try await shiftSwitch.switchShift(eventIdentifier: shift.eventIdentifier, date: shift.date, old: early.id, new: early.id, reason: nil)
            }
            #expect(repository.snapshot == before)
        }
    }

    @Test func theRulesCanRejectASwitchAndCheckSwitchSaysWhyWithoutWriting() async throws {
        let (configuration, repository) = try memoryStore()
        try await withLiveClients(configuration) {
            @Dependency(\.calendarClient) var calendar
            @Dependency(\.shiftSwitchClient) var shiftSwitch
            let monday = try await calendar.createShift(shiftTypeID: early.id, date: date("2026-03-02"), personID: bob.id, notes: nil)
            _ = try await calendar.createShift(shiftTypeID: late.id, date: date("2026-03-03"), personID: bob.id, notes: nil)
            let before = repository.snapshot

            let preview = try await shiftSwitch.checkSwitch(eventIdentifier: monday.eventIdentifier, new: night.id)
            #expect(preview.contains { $0.ruleID == "min_rest_between_shifts" && $0.severity == .error }, "8 h between Monday's night and Tuesday's late")
            #expect(try await shiftSwitch.checkSwitch(eventIdentifier: monday.eventIdentifier, new: late.id).filter { $0.severity == .error }.isEmpty)
            #expect(repository.snapshot == before, "checking writes nothing")

            do {
                _ = try await shiftSwitch.switchShift(eventIdentifier: monday.eventIdentifier, date: monday.date, old: early.id, new: night.id, reason: nil)
                Issue.record("the rules should have rejected the switch")
            } catch let ScheduleError.rejected(violations) {
                #expect(violations.filter { $0.severity == .error }.map(\.ruleID).sorted() == preview.filter { $0.severity == .error }.map(\.ruleID).sorted())
            }
            #expect(repository.snapshot == before)
        }
    }
}
