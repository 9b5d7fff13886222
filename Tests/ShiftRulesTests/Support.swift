import Foundation
import ShiftCore
@testable import ShiftRules
import TestSupport

/// Ward, D (07-19), N (19-07), E (06-14), L (14-22), Bob and Carol.
struct World {
    let day = ShiftType(id: ShiftTypeID(uuid(2)), symbol: "D", title: "Day", duration: ShiftDuration("07:00-19:00")!)
    let night = ShiftType(id: ShiftTypeID(uuid(3)), symbol: "N", title: "Night", duration: ShiftDuration("19:00-07:00")!)
    let early = ShiftType(id: ShiftTypeID(uuid(4)), symbol: "E", title: "Early", duration: ShiftDuration("06:00-14:00")!)
    let late = ShiftType(id: ShiftTypeID(uuid(5)), symbol: "L", title: "Late", duration: ShiftDuration("14:00-22:00")!)
    let bob = Person(id: PersonID(uuid(10)), displayName: "Bob", attributes: ["skills": .list([.string("nurse")])])
    let carol = Person(id: PersonID(uuid(11)), displayName: "Carol")

    var setup: Mutation {
        .batch([.addShiftType(day), .addShiftType(night), .addShiftType(early), .addShiftType(late), .addPerson(bob), .addPerson(carol)])
    }

    func shift(_ n: Int, _ type: ShiftType, _ day: String, _ person: Person?) -> ScheduledShift {
        ScheduledShift(id: ShiftID(uuid(100 + n)), shiftTypeID: type.id, date: date(day), personID: person?.id)
    }

    func engine(_ directories: [String] = [stockRules], config: RulesConfig = RulesConfig()) throws -> RuleEngine {
        try RuleEngine(RuleEngineConfiguration(directories: directories, config: config, now: { fixedNow }))
    }

    /// The proposal of adding `shift` to the store's schedule, for an engine to evaluate directly.
    func proposal(adding shift: ScheduledShift, to store: ScheduleStore) async throws -> Proposal {
        let base = await store.schedule
        let mutation = Mutation.scheduleShift(shift)
        let (after, changes) = try base.applying(mutation)
        return Proposal(mutation: mutation, changes: changes, before: base, after: after,
                        user: UserProfile(userId: "t", displayName: "T"), timestamp: fixedNow)
    }

    func store(_ engine: RuleEngine) async throws -> (ScheduleStore, InMemoryRepository) {
        let repository = InMemoryRepository(try Schedule(settings: StoreSettings(timeZoneIdentifier: "Europe/Berlin")))
        let store = try ScheduleStore(repository: repository, validators: [engine],
                                      actingUser: UserProfile(userId: "t", displayName: "T"), environment: testEnvironment())
        try await store.apply(setup)
        return (store, repository)
    }
}
