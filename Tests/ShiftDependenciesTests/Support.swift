import Dependencies
import Foundation
import ShiftCore
import ShiftDependencies
import ShiftStorage
import TestSupport

/// 2026-03-02T10:00:00Z, a Monday morning: "today" for the tests that look at the sample
/// schedule's first week the way an app opened that day does.
let mondayMorning = Date(timeIntervalSince1970: 1_772_445_600)
let ward = SampleSchedule.ward
let clinic = SampleSchedule.clinic
let early = SampleSchedule.early
let late = SampleSchedule.late
let night = SampleSchedule.night
let bob = SampleSchedule.bob
let carol = SampleSchedule.carol

/// The sample catalogue (a ward and a clinic, E/L/N at the ward, Alice, Bob, Carol) without shifts.
func catalogue(timeZone: String = "Europe/Berlin") throws -> Schedule {
    try Schedule(
        settings: StoreSettings(timeZoneIdentifier: timeZone), locations: [ward, clinic], shiftTypes: [early, late, night],
        people: [SampleSchedule.alice, bob, carol])
}

/// Runs `body` with every client's live value over one connection, a fixed clock and
/// incrementing ids.
func withLiveClients<R>(
    _ configuration: ScheduleConfiguration, now: Date = fixedNow, isolation: isolated (any Actor)? = #isolation,
    _ body: () async throws -> R
) async throws -> R {
    try await withDependencies(isolation: isolation) {
        $0.scheduleConnection = ScheduleConnection(configuration)
        $0.date = .constant(now)
        $0.uuid = .incrementing
        $0.persistenceClient = .liveValue
        $0.calendarClient = .liveValue
        $0.shiftSwitchClient = .liveValue
        $0.userProfileClient = .liveValue
        $0.changeLogClient = .liveValue
        $0.currentDayClient = .liveValue
        $0.requestClient = .liveValue
    } operation: {
        try await body()
    }
}

/// A store in memory the test can inspect, with the stock rules.
func memoryStore(
    _ schedule: Schedule? = nil, rules: [String] = [stockRules], profile: UserProfile = alice
) throws -> (ScheduleConfiguration, InMemoryRepository) {
    let repository = InMemoryRepository(try schedule ?? catalogue())
    return (ScheduleConfiguration(backend: .repository(repository), rulesDirectories: rules, defaultProfile: profile), repository)
}
