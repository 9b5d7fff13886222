import Foundation
@testable import ShiftCore
import TestSupport

/// A small schedule: a ward, day and night shift types, two people.
struct Fixture {
    let ward = Location(id: LocationID(uuid(1)), name: "Ward 3", address: "Main St 1")
    let day = ShiftType(id: ShiftTypeID(uuid(2)), symbol: "D", title: "Day", duration: ShiftDuration("07:00-19:00")!,
                        locationID: LocationID(uuid(1)))
    let night = ShiftType(id: ShiftTypeID(uuid(3)), symbol: "N", title: "Night", duration: ShiftDuration("19:00-07:00")!,
                          locationID: LocationID(uuid(1)))
    let office = ShiftType(id: ShiftTypeID(uuid(4)), symbol: "O", title: "Office", duration: .allDay)
    let bob = Person(id: PersonID(uuid(10)), displayName: "Bob", attributes: ["skills": .list([.string("nurse")])])
    let carol = Person(id: PersonID(uuid(11)), displayName: "Carol")

    var setup: Mutation {
        .batch([.addLocation(ward), .addShiftType(day), .addShiftType(night), .addShiftType(office),
                .addPerson(bob), .addPerson(carol)])
    }

    func shift(_ n: Int, _ type: ShiftType, _ day: String, _ person: Person?) -> ScheduledShift {
        ScheduledShift(id: ShiftID(uuid(100 + n)), shiftTypeID: type.id, date: date(day), personID: person?.id)
    }

    /// A store over memory with the fixture's entities, in Europe/Berlin.
    func store(validators: [any ScheduleValidator] = []) async throws -> (ScheduleStore, InMemoryRepository) {
        let repository = InMemoryRepository(try Schedule(settings: StoreSettings(timeZoneIdentifier: "Europe/Berlin")))
        let store = try ScheduleStore(repository: repository, validators: validators, actingUser: alice, environment: testEnvironment())
        try await store.apply(setup)
        return (store, repository)
    }
}

/// A validator that reports an error for any shift change matching a predicate.
struct RejectingValidator: ScheduleValidator {
    let name = "test-rejecter"
    let severity: Violation.Severity
    let predicate: @Sendable (ScheduledShift) -> Bool

    func evaluate(_ proposal: Proposal) throws -> [Violation] {
        proposal.changes.compactMap { change in
            guard case let .shift(_, after?, _) = change, predicate(after) else { return nil }
            return Violation(ruleID: "test_rule", severity: severity, message: "no", shiftID: after.id, date: after.date)
        }
    }
}

struct ThrowingValidator: ScheduleValidator {
    struct Failure: Error, CustomStringConvertible { var description: String { "rules/broken.lua:3: boom" } }
    let name = "broken"
    func evaluate(_ proposal: Proposal) throws -> [Violation] { throw Failure() }
}
