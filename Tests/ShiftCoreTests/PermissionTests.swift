import Foundation
import TestSupport
import Testing
@testable import ShiftCore

/// Roles enforced by the funnel: every cell of the matrix (role × action), the forbidden ones
/// with their message and nothing written.
@Suite struct PermissionTests {
    static let f = Fixture()
    static let admin = Person(id: PersonID(uuid(20)), displayName: "Ada", attributes: ["role": .string("admin")])
    static let scheduler = Person(id: PersonID(uuid(21)), displayName: "Sam", attributes: ["role": .string("scheduler")])
    static let bob = Person(id: PersonID(uuid(10)), displayName: "Bob", attributes: ["role": .string("staff")])
    static let carol = Person(id: PersonID(uuid(11)), displayName: "Carol", attributes: ["role": .string("staff"), "login": .string("cg")])
    static let bobsDay = f.shift(1, f.day, "2026-03-02", bob)
    static let carolsDay = f.shift(2, f.day, "2026-03-03", carol)
    static let open = f.shift(3, f.night, "2026-03-04", nil)

    static func made(_ kind: RequestKind, by person: Person, _ n: Int) -> Request {
        let pending = RequestTransition(state: .pending, timestamp: fixedNow, userId: "x", userDisplayName: "X")
        switch kind {
        case .swap:
            return Request(id: RequestID(uuid(500 + n)), kind: .swap, requesterID: person.id, shift: SeenShift(bobsDay),
                           colleagueID: carol.id, history: [pending])
        case .claim:
            return Request(id: RequestID(uuid(500 + n)), kind: .claim, requesterID: person.id, shift: SeenShift(open), history: [pending])
        default:
            return Request(id: RequestID(uuid(500 + n)), kind: .timeOff, requesterID: person.id, from: date("2026-03-10"),
                           to: date("2026-03-10"), history: [pending])
        }
    }

    static let bobsSwap = made(.swap, by: bob, 1)
    static let carolsTimeOff = made(.timeOff, by: carol, 2)

    static func move(_ request: Request, _ state: RequestState) -> Request {
        request.moved(RequestTransition(state: state, timestamp: fixedNow, userId: "x", userDisplayName: "X"))
    }

    /// A store where roles are on, with a pending swap of Bob's and a pending time off of Carol's.
    private func store(autoApprove: Bool = false) async throws -> ScheduleStore {
        let repository = InMemoryRepository(try Schedule(settings: StoreSettings(timeZoneIdentifier: "Europe/Berlin")))
        let store = try ScheduleStore(repository: repository, actingUser: alice, environment: testEnvironment())
        var settings = StoreSettings(timeZoneIdentifier: "Europe/Berlin")
        if autoApprove { settings.extra["requests.auto_approve"] = .bool(true) }
        try await store.apply(.batch([
            .updateSettings(settings), .addLocation(Self.f.ward), .addShiftType(Self.f.day), .addShiftType(Self.f.night),
            .addPerson(Self.admin), .addPerson(Self.scheduler), .addPerson(Self.bob), .addPerson(Self.carol),
            .scheduleShift(Self.bobsDay), .scheduleShift(Self.carolsDay), .scheduleShift(Self.open),
            .addRequest(Self.bobsSwap), .addRequest(Self.carolsTimeOff),
        ]))
        await store.setPermissions(Permissions())
        return store
    }

    static let users: [(String, UserProfile)] = [
        ("admin", UserProfile(userId: "ada", displayName: "Ada")), ("scheduler", UserProfile(userId: "Sam", displayName: "Sam")),
        ("staff", UserProfile(userId: "bob", displayName: "Bob")), ("colleague", UserProfile(userId: "cg", displayName: "Carol")),
        ("stranger", UserProfile(userId: "mallory", displayName: "Mallory")),
    ]

    /// Each action, and who may take it (the rest are refused with the message given).
    static var actions: [(String, Mutation, Set<String>, String)] {
        var promoted = carol; promoted.attributes["role"] = .string("scheduler")
        var renamed = bob; renamed.displayName = "Robert"
        return [
            ("make own request", .addRequest(made(.claim, by: bob, 3)), ["admin", "scheduler", "staff"], "make a request for someone else"),
            ("make a request for someone else", .addRequest(made(.claim, by: carol, 4)), ["admin", "scheduler", "colleague"], "make a request for someone else"),
            ("cancel own request", .updateRequest(move(bobsSwap, .cancelled)), ["admin", "scheduler", "staff"], "cancel someone else's request"),
            ("accept a swap addressed to you", .updateRequest(move(bobsSwap, .accepted)), ["admin", "scheduler", "colleague"], "accept a swap addressed to someone else"),
            ("approve", .updateRequest(move(carolsTimeOff, .approved)), ["admin", "scheduler"], "approve requests"),
            ("decline", .updateRequest(move(carolsTimeOff, .declined)), ["admin", "scheduler"], "decline requests"),
            ("edit shifts", .reassignShift(open.id, to: bob.id), ["admin", "scheduler"], "edit shifts"),
            ("edit people", .updatePerson(renamed), ["admin", "scheduler"], "change person entries"),
            ("edit types", .addShiftType(f.office), ["admin", "scheduler"], "change shift type entries"),
            ("edit demand", .addDemand(Demand(id: DemandID(uuid(600)), day: .weekday(.monday), shiftTypeID: f.day.id, minimum: 1, optimal: 1)), ["admin", "scheduler"], "change demand entries"),
            ("edit settings (rules)", .updateSettings(StoreSettings(timeZoneIdentifier: "UTC")), ["admin", "scheduler"], "change settings entries"),
            ("grant a role", .updatePerson(promoted), ["admin"], "grant or revoke roles"),
            ("save own display name (staff: bob's own)",
             .updateSettings(StoreSettings(timeZoneIdentifier: "Europe/Berlin", extra: [StoreSettings.displayNameKey(for: "bob"): .string("Robert")])),
             ["admin", "scheduler", "staff"], "change settings entries"),
        ]
    }

    @Test(arguments: actions.map(\.0)) func everyRoleMayDoWhatTheMatrixSays(_ action: String) async throws {
        let (_, mutation, allowed, refusal) = Self.actions.first { $0.0 == action }!
        for (name, user) in Self.users {
            let store = try await store()
            let before = await store.schedule
            if allowed.contains(name) {
                try await store.apply(mutation, as: user)
            } else {
                do {
                    try await store.apply(mutation, as: user)
                    Issue.record("\(name) may \(action)")
                } catch let ScheduleError.forbidden(message) {
                    let expected = name == "stranger" ? "change the schedule" : refusal
                    #expect(message.contains("may not \(expected)"), "\(name): \(message)")
                }
                #expect(await store.schedule == before)
            }
        }
    }

    @Test func theMessageNamesTheUserAndTheRole() async throws {
        let store = try await store()
        await #expect(throws: ScheduleError.forbidden(message: "Bob (staff) may not approve requests; a scheduler or admin may")) {
            try await store.apply(.updateRequest(Self.move(Self.carolsTimeOff, .approved)), as: UserProfile(userId: "bob", displayName: "Bob"))
        }
        #expect(ScheduleError.forbidden(message: "x").plainMessage == "permission denied: x")
    }

    @Test func withAutoApprovalStaffMayClaimAndTakeTheShiftButNothingElse() async throws {
        let store = try await store(autoApprove: true)
        let bob = UserProfile(userId: "bob", displayName: "Bob")
        let claim = Self.made(.claim, by: Self.bob, 7)
        let approved = Self.move(claim, .approved)
        try await store.apply(.batch([.addRequest(claim), .updateRequest(approved), .reassignShift(Self.open.id, to: Self.bob.id)]), as: bob)
        #expect(await store.schedule.shift(Self.open.id)?.personID == Self.bob.id)
        // An approval that moves another shift too is an edit staff may not make.
        let other = Self.made(.timeOff, by: Self.bob, 8)
        await #expect(throws: ScheduleError.self) {
            try await store.apply(.batch([.addRequest(other), .updateRequest(Self.move(other, .approved))]), as: bob)
        }
        await #expect(throws: ScheduleError.self) {
            try await store.apply(.batch([.reassignShift(Self.carolsDay.id, to: Self.bob.id)]), as: bob)
        }
    }

    @Test func withoutRolesEveryoneMayChangeEverything() async throws {
        let (store, _) = try await Self.f.store()
        await store.setPermissions(Permissions())
        try await store.apply(.addPerson(Person(id: PersonID(uuid(700)), displayName: "Dave")), as: UserProfile(userId: "nobody", displayName: "N"))
    }
}
