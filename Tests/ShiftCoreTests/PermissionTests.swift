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

    // MARK: Where the database checks roles (PostgreSQL)

    static func identity(_ person: Person?, role: String = "db_bob", checked: Bool = true, granted: Role? = .staff) -> DatabaseIdentity {
        DatabaseIdentity(role: role, personID: person?.id, personName: person?.displayName, rolesSetUp: true, checked: checked, granted: granted)
    }

    @Test func theDatabaseRoleIsWhoYouAreWhateverYouAskFor() async throws {
        let schedule = try await store().schedule
        let tester = UserProfile(userId: "tester", displayName: "tester")
        let bob = Self.identity(Self.bob)
        #expect(try bob.actingUser(asked: nil, fallback: tester, in: schedule) == UserProfile(userId: "db_bob", displayName: "Bob"))
        for himself in ["Bob", "bob", "db_bob"] {
            #expect(try bob.actingUser(asked: himself, fallback: tester, in: schedule).userId == "db_bob")
        }
        #expect(throws: ScheduleError.forbidden(
            message: "you are connected as database role db_bob (Bob), and the database decides who you are: you cannot act as Ada; connect as their database role instead")) {
            try bob.actingUser(asked: "ada", fallback: tester, in: schedule)
        }
        let nobody = Self.identity(nil, role: "eve", granted: nil)
        #expect(throws: ScheduleError.self) { try nobody.actingUser(asked: "Bob", fallback: tester, in: schedule) }
        #expect(throws: ScheduleError.self) { try nobody.actingUser(asked: "someone", fallback: tester, in: schedule) }
        // The tables' owner, linked to nobody: the database does not decide, --as does.
        let owner = Self.identity(nil, role: "roster_owner", checked: false, granted: nil)
        #expect(try owner.actingUser(asked: "Ada", fallback: tester, in: schedule) == tester)
        // A linked owner is their person all the same.
        #expect(try Self.identity(Self.admin, role: "roster_owner", checked: false, granted: nil)
            .actingUser(asked: nil, fallback: tester, in: schedule).displayName == "Ada")
        #expect(bob.staffPerson == Self.bob.id)
        #expect(Self.identity(Self.scheduler, granted: .scheduler).staffPerson == nil)
    }

    @Test func aPersonIsFoundByTheirDatabaseRoleFirst() {
        var schedule = try! Schedule(settings: StoreSettings(timeZoneIdentifier: "UTC"))
        let linked = Person(id: PersonID(uuid(40)), displayName: "Bob", attributes: ["db_role": .string("bob")])
        let other = Person(id: PersonID(uuid(41)), displayName: "Robert", attributes: ["login": .string("bob")])
        schedule = try! schedule.applying(.batch([.addPerson(other), .addPerson(linked)])).schedule
        #expect(Permissions.person(of: UserProfile(userId: "bob", displayName: "x"), in: schedule)?.id == linked.id)
    }

    @Test func checkedByTheDatabaseStaffExpireOnlyTheirOwnAndApproveNothingThemselves() async throws {
        let store = try await store(autoApprove: true)
        await store.setPermissions(Permissions(checkedByDatabase: true))
        let bob = UserProfile(userId: "bob", displayName: "Bob")
        let before = await store.schedule
        await #expect(throws: ScheduleError.forbidden(
            message: "Bob (staff) may not expire someone else's request; the database lets staff expire only their own; a scheduler or admin may")) {
            try await store.apply(.updateRequest(Self.move(Self.carolsTimeOff, .expired)), as: bob)
        }
        let claim = Self.made(.claim, by: Self.bob, 9)
        await #expect(throws: ScheduleError.self) {
            try await store.apply(.batch([.addRequest(claim), .updateRequest(Self.move(claim, .approved)), .reassignShift(Self.open.id, to: Self.bob.id)]), as: bob)
        }
        #expect(await store.schedule == before)
        try await store.apply(.updateRequest(Self.move(Self.bobsSwap, .expired)), as: bob)
        // Roles are checked even while nobody has one.
        let (plain, _) = try await Self.f.store()
        await plain.setPermissions(Permissions(checkedByDatabase: true))
        await #expect(throws: ScheduleError.self) {
            try await plain.apply(.addPerson(Person(id: PersonID(uuid(701)), displayName: "Dave")), as: UserProfile(userId: "nobody", displayName: "N"))
        }
    }

    @Test func aWorkflowForDatabaseStaffPlansOnlyWhatTheDatabaseAllows() async throws {
        let store = try await store(autoApprove: true)
        let schedule = await store.schedule
        // Noon on 2026-03-03: Bob's day of 2026-03-02 (his swap's) has started, Carol's time off not.
        let later = StoreEnvironment(now: { fixedNow.addingTimeInterval(2.5 * 86_400) }, makeUUID: { UUID() })
        let bob = UserProfile(userId: "bob", displayName: "Bob")
        let plain = RequestWorkflow(schedule: schedule, user: bob, environment: later)
        let limited = RequestWorkflow(schedule: schedule, user: bob, environment: later, databaseStaff: Self.bob.id)
        #expect(plain.expiries(except: nil).count == 1)
        #expect(limited.expiries(except: nil).count == 1)
        let carols = RequestWorkflow(schedule: schedule, user: bob, environment: later, databaseStaff: Self.carol.id)
        #expect(carols.expiries(except: nil).isEmpty, "Bob's swap is not Carol's to expire")

        let now = StoreEnvironment(now: { fixedNow }, makeUUID: { UUID() })
        let claim = try RequestWorkflow(schedule: schedule, user: bob, environment: now, databaseStaff: Self.bob.id).claim(Self.open, by: Self.bob.id)
        #expect(claim.step.action == "made")
        #expect(claim.otherwise == nil)
        #expect(claim.notice == RequestWorkflow.databaseStaffNotice)
        let approved = try RequestWorkflow(schedule: schedule, user: bob, environment: now).claim(Self.open, by: Self.bob.id)
        #expect(approved.step.action == "made and approved")
        #expect(approved.notice == nil)
    }
}
