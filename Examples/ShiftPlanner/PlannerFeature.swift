import Dependencies
import Foundation
import ShiftCore
import ShiftDependencies

/// A day planner: shows one day's shifts and lets the user add, switch and remove them, rename
/// themselves and read the change log. Every change goes through the clients, so the store's
/// rules apply; a rejection is shown with its violations.
struct PlannerFeature {
    struct State: Equatable {
        var day: LocalDate?
        var today: LocalDate?
        var shifts: [ScheduledShift] = []
        var shiftTypes: [ShiftType] = []
        var people: [Person] = []
        var profile: UserProfile?
        var log: [ChangeLogEntry] = []
        /// What the last command did, for the status line.
        var status: String?
        /// The violations of the last rejected change.
        var violations: [Violation] = []

        func shiftType(symbol: String) -> ShiftType? {
            shiftTypes.first { $0.symbol.caseInsensitiveCompare(symbol) == .orderedSame }
        }

        func person(named name: String) -> Person? {
            people.first { $0.displayName.caseInsensitiveCompare(name) == .orderedSame }
        }
    }

    enum Action: Equatable, Sendable {
        case start
        case show(LocalDate)
        case move(days: Int)
        case add(symbol: String, person: String?)
        case switchShift(number: Int, to: String, reason: String?)
        case remove(number: Int, reason: String?)
        case rename(String)
        case addSampleCatalogue
        case showLog(limit: Int)

        case started(today: LocalDate, profile: UserProfile)
        case catalogueLoaded(types: [ShiftType], people: [Person])
        case dayLoaded(LocalDate, [ScheduledShift])
        case profileChanged(UserProfile)
        case logLoaded([ChangeLogEntry])
        case succeeded(String)
        case failed(String, violations: [Violation])
    }

    @Dependency(\.calendarClient) var calendar
    @Dependency(\.persistenceClient) var persistence
    @Dependency(\.shiftSwitchClient) var shiftSwitch
    @Dependency(\.userProfileClient) var userProfile
    @Dependency(\.changeLogClient) var changeLog
    @Dependency(\.currentDayClient) var currentDay

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        if action.isCommand {
            state.status = nil
            state.violations = []
        }
        switch action {
        case .start:
            return .run { [currentDay, userProfile] send in
                await Self.catching(send) {
                    await send(.started(today: try await currentDay.today(), profile: try await userProfile.current()))
                }
            }

        case let .started(today, profile):
            state.today = today
            state.profile = profile
            return .concatenate(loadCatalogue(), load(today))

        case let .show(day):
            return load(day)

        case let .move(days):
            guard let day = state.day else { return .none }
            return load(day.adding(days: days))

        case let .add(symbol, personName):
            guard let day = state.day else { return .none }
            guard let type = state.shiftType(symbol: symbol) else {
                state.status = "no shift type \(symbol) (types: \(state.shiftTypes.map(\.symbol).joined(separator: ", ")))"
                return .none
            }
            var person: Person?
            if let personName {
                guard let found = state.person(named: personName) else {
                    state.status = "nobody called \(personName)"
                    return .none
                }
                person = found
            }
            return .concatenate(
                .run { [calendar, person] send in
                    await Self.catching(send) {
                        let shift = try await calendar.createShift(shiftTypeID: type.id, date: day, personID: person?.id, notes: nil)
                        await send(.succeeded("added \(type.symbol) on \(shift.date)" + (person.map { " for \($0.displayName)" } ?? " (open)")))
                    }
                },
                load(day))

        case let .switchShift(number, symbol, reason):
            guard let day = state.day, let shift = shift(number, in: state) else {
                state.status = "there is no shift \(number) on this day"
                return .none
            }
            guard let type = state.shiftType(symbol: symbol) else {
                state.status = "no shift type \(symbol)"
                return .none
            }
            return .concatenate(
                .run { [shiftSwitch] send in
                    await Self.catching(send) {
                        let entry = try await shiftSwitch.switchShift(
                            eventIdentifier: shift.eventIdentifier, date: shift.date, old: shift.shiftTypeID, new: type.id, reason: reason)
                        await send(.succeeded("switched shift \(number) to \(type.symbol) (log entry \(entry.description.prefix(8)))"))
                    }
                },
                load(day))

        case let .remove(number, reason):
            guard let day = state.day, let shift = shift(number, in: state) else {
                state.status = "there is no shift \(number) on this day"
                return .none
            }
            return .concatenate(
                .run { [calendar] send in
                    await Self.catching(send) {
                        try await calendar.deleteShift(eventIdentifier: shift.eventIdentifier, reason: reason)
                        await send(.succeeded("removed shift \(number)"))
                    }
                },
                load(day))

        case let .rename(name):
            return .run { [userProfile] send in
                await Self.catching(send) {
                    let profile = try await userProfile.updateDisplayName(displayName: name)
                    await send(.profileChanged(profile))
                    await send(.succeeded("you are now \(profile.displayName)"))
                }
            }

        case .addSampleCatalogue:
            return .concatenate(
                .run { [persistence] send in
                    await Self.catching(send) {
                        for location in [SampleSchedule.ward, SampleSchedule.clinic] { try await persistence.saveLocation(location) }
                        for type in [SampleSchedule.early, SampleSchedule.late, SampleSchedule.night] { try await persistence.saveShiftType(type) }
                        for person in [SampleSchedule.alice, SampleSchedule.bob, SampleSchedule.carol] { try await persistence.savePerson(person) }
                        await send(.succeeded("added the sample ward, shift types E, L, N and Alice, Bob, Carol"))
                    }
                },
                loadCatalogue())

        case let .showLog(limit):
            return .run { [changeLog] send in
                await Self.catching(send) { await send(.logLoaded(try await changeLog.fetchRecent(limit: limit))) }
            }

        case let .catalogueLoaded(types, people):
            state.shiftTypes = types
            state.people = people
            return .none

        case let .dayLoaded(day, shifts):
            state.day = day
            state.shifts = shifts
            return .none

        case let .profileChanged(profile):
            state.profile = profile
            return .none

        case let .logLoaded(entries):
            state.log = entries
            return .none

        case let .succeeded(message):
            state.status = message
            state.violations = []
            return .none

        case let .failed(message, violations):
            state.status = message
            state.violations = violations
            return .none
        }
    }

    private func shift(_ number: Int, in state: State) -> ScheduledShift? {
        state.shifts.indices.contains(number - 1) ? state.shifts[number - 1] : nil
    }

    private func load(_ day: LocalDate) -> Effect<Action> {
        .run { [calendar] send in
            await Self.catching(send) { await send(.dayLoaded(day, try await calendar.fetchShifts(on: day))) }
        }
    }

    private func loadCatalogue() -> Effect<Action> {
        .run { [persistence] send in
            await Self.catching(send) {
                await send(.catalogueLoaded(types: try await persistence.fetchShiftTypes(), people: try await persistence.fetchPeople()))
            }
        }
    }

    /// Runs an effect body; its error becomes a `.failed` action (with the violations when the
    /// rules rejected the change).
    private static func catching(_ send: Send<Action>, _ body: () async throws -> Void) async {
        do {
            try await body()
        } catch let ScheduleError.rejected(violations) {
            let errors = violations.filter { $0.severity == .error }.count
            await send(.failed("rejected by the rules (\(errors) error\(errors == 1 ? "" : "s")); nothing was written", violations: violations))
        } catch {
            await send(.failed("\(error)", violations: []))
        }
    }
}

extension PlannerFeature.Action {
    /// Whether the user sent it (a new command clears the last status), rather than an effect.
    var isCommand: Bool {
        switch self {
        case .start, .show, .move, .add, .switchShift, .remove, .rename, .addSampleCatalogue, .showLog: true
        case .started, .catalogueLoaded, .dayLoaded, .profileChanged, .logLoaded, .succeeded, .failed: false
        }
    }
}
