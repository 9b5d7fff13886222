import Dependencies
import Foundation
import ShiftCore
import ShiftDependencies
@testable import ShiftPlannerExample
import TestSupport
import Testing

/// The example feature with its clients overridden: only the endpoints a flow should call are
/// given; calling any other fails the test (the clients' test values are unimplemented).
@MainActor
@Suite struct PlannerFeatureTests {
    let monday = date("2026-03-02")
    var shift: ScheduledShift { ScheduledShift(id: ShiftID(UUID(1)), shiftTypeID: early.id, date: monday, personID: bob.id) }

    func store(_ override: (inout DependencyValues) -> Void) -> FeatureStore<PlannerFeature.State, PlannerFeature.Action> {
        let feature = withDependencies {
            $0.persistenceClient.fetchShiftTypes = { [early, late, night] }
            $0.persistenceClient.fetchPeople = { [SampleSchedule.alice, bob, carol] }
            override(&$0)
        } operation: { PlannerFeature() }
        var state = PlannerFeature.State()
        state.day = monday
        state.shiftTypes = [early, late, night]
        state.people = [SampleSchedule.alice, bob, carol]
        state.shifts = [shift]
        return FeatureStore(initialState: state, reduce: feature.reduce)
    }

    @Test func startingLoadsTodayTheUserTheCatalogueAndTheDay() async {
        let shift = shift
        let feature = withDependencies {
            $0.currentDayClient.today = { date("2026-03-02") }
            $0.userProfileClient.current = { alice }
            $0.persistenceClient.fetchShiftTypes = { [early, late, night] }
            $0.persistenceClient.fetchPeople = { [bob] }
            $0.calendarClient.fetchShifts = { day in day == date("2026-03-02") ? [shift] : [] }
        } operation: { PlannerFeature() }
        let store = FeatureStore(initialState: PlannerFeature.State(), reduce: feature.reduce)
        await store.send(.start)
        #expect(store.state == PlannerFeature.State(
            day: monday, today: monday, shifts: [shift], shiftTypes: [early, late, night], people: [bob], profile: alice))
    }

    @Test func aRejectedAddShowsTheRulesViolationsAndReloadsTheDay() async {
        let violation = Violation(ruleID: "one_shift_per_day", severity: .error, message: "Bob has 2 shifts on 2026-03-02 (at most 1)", date: monday)
        let asked = LockIsolated<[String]>([])
        let shift = shift
        let store = store {
            $0.calendarClient.createShift = { type, day, person, _ in
                asked.withValue { $0.append("\(type == late.id) \(day) \(person == bob.id)") }
                throw ScheduleError.rejected(violations: [violation])
            }
            $0.calendarClient.fetchShifts = { _ in [shift] }
        }
        await store.send(.add(symbol: "l", person: "bob"))
        #expect(asked.value == ["true 2026-03-02 true"])
        #expect(store.state.status == "rejected by the rules (1 error); nothing was written")
        #expect(store.state.violations == [violation])
        #expect(store.state.shifts == [shift])
    }

    @Test func aSwitchSendsTheShiftAsTheUserSawIt() async throws {
        let calls = LockIsolated<[String]>([])
        let shift = shift
        let store = store {
            $0.shiftSwitchClient.switchShift = { uid, day, old, new, reason in
                calls.withValue { $0.append("\(uid) \(day) \(old == early.id) \(new == night.id) \(reason ?? "-")") }
                return ChangeLogEntryID(UUID(42))
            }
            $0.calendarClient.fetchShifts = { _ in [shift] }
        }
        await store.send(.switchShift(number: 1, to: "N", reason: "cover"))
        #expect(calls.value == ["\(shift.eventIdentifier) 2026-03-02 true true cover"])
        #expect(store.state.status == "switched shift 1 to N (log entry 00000000)")

        await store.send(.switchShift(number: 2, to: "N", reason: nil))
        #expect(store.state.status == "there is no shift 2 on this day", "no client call for a shift that is not listed")
        #expect(calls.value.count == 1)
    }

    @Test func anUnknownTypeOrPersonIsReportedWithoutCallingTheStore() async {
        let store = store { _ in }
        await store.send(.add(symbol: "X", person: nil))
        #expect(store.state.status == "no shift type X (types: E, L, N)")
        await store.send(.add(symbol: "E", person: "Zed"))
        #expect(store.state.status == "nobody called Zed")
    }

    @Test func renamingShowsTheNewName() async {
        let store = store {
            $0.userProfileClient.updateDisplayName = { UserProfile(userId: "alice", displayName: $0) }
        }
        await store.send(.rename("Ali"))
        #expect(store.state.profile?.displayName == "Ali")
        #expect(store.state.status == "you are now Ali")
    }

    @Test(arguments: [
        ("add E Bob Smith", TextUI.Command.action(.add(symbol: "E", person: "Bob Smith"))),
        ("add N", .action(.add(symbol: "N", person: nil))),
        ("switch 2 L swap with Carol", .action(.switchShift(number: 2, to: "L", reason: "swap with Carol"))),
        ("remove 1", .action(.remove(number: 1, reason: nil))),
        ("day 2026-03-09", .action(.show(LocalDate("2026-03-09")!))),
        ("log", .action(.showLog(limit: 10))),
        ("name  Ali  B", .action(.rename("Ali B"))),
        ("switch x L", .invalid("switch needs a shift number and a type: switch 1 N swap with Bob")),
        ("day tomorrow", .invalid("day needs a date: day 2026-03-02")),
        ("dance", .invalid("unknown command 'dance' (help lists them)")),
    ])
    func textCommandsParseIntoActions(_ line: String, _ expected: TextUI.Command) {
        #expect(TextUI.parse(line, today: nil) == expected)
    }

    @Test func theTextUIRunsOnTheLiveClientsWithTheStockRules() async throws {
        let (configuration, repository) = try memoryStore(profile: UserProfile(userId: "pat", displayName: "Pat"))
        let (output, unread) = try await withLiveClients(configuration, now: mondayMorning) {
            var lines = ["day 2026-03-02", "add E Bob", "add L Bob", "switch 1 L late start", "name Patricia", "remove 1 sick", "log 2", "quit", "never read"]
            var output: [String] = []
            await ShiftPlannerApp.run(input: { lines.isEmpty ? nil : lines.removeFirst() }, output: { output.append($0) })
            return (output, lines)
        }
        #expect(unread == ["never read"], "quit ends the loop")
        let text = output.joined(separator: "\n")
        #expect(text.contains("Monday 2026-03-02 (today)   you: Pat"))
        #expect(text.contains("added E on 2026-03-02 for Bob"))
        #expect(text.contains("rejected by the rules (2 errors); nothing was written"))
        #expect(text.contains("(one_shift_per_day)"))
        #expect(text.contains("switched shift 1 to L"))
        #expect(text.contains("you are now Patricia"))
        #expect(output.last == """
            2026-03-02T10:00:00.000Z  Patricia  deleted 2026-03-02 L → -  "sick"
            2026-03-02T10:00:00.000Z  Pat  switched 2026-03-02 E → L  "late start"
            """)
        #expect(repository.snapshot.shiftCount == 0)
        #expect(repository.snapshot.changeLog.count == 3)
    }
}
