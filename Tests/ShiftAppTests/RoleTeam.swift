import Foundation
import ShiftApp
import ShiftCore
import ShiftStoragePostgres
import TestSupport
import Testing

/// The team the permission matrix runs on: Ada (admin), Sam (scheduler), Bob and Carol (staff),
/// Erin (no role, linked to nobody yet) and Mallory, who is nobody in the schedule. Bob has a
/// day shift on 2026-03-10 and a pending swap of it with Carol; Carol has a day shift on
/// 2026-03-11 and pending time off on 2026-03-20; the night of 2026-03-12 is open. The clock is
/// `fixedNow` (2026-03-01), so nothing has started.
enum RoleTeam {
    /// Who acts in a matrix cell.
    enum Who: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case admin, scheduler, staff, colleague, stranger

        /// `--as` on a file store; the base of the login role on PostgreSQL.
        var user: String {
            switch self {
            case .admin: "ada"
            case .scheduler: "sam"
            case .staff: "bob"
            case .colleague: "carol"
            case .stranger: "mallory"
            }
        }

        var testDescription: String { rawValue }
    }

    static let ward = Location(id: LocationID(uuid(1)), name: "Ward A")
    static let day = ShiftType(id: ShiftTypeID(uuid(2)), symbol: "D", title: "Day", duration: ShiftDuration("07:00-19:00")!, locationID: ward.id)
    static let night = ShiftType(id: ShiftTypeID(uuid(3)), symbol: "N", title: "Night", duration: ShiftDuration("19:00-07:00")!, locationID: ward.id)

    static let ada = PersonID(uuid(10))
    static let sam = PersonID(uuid(11))
    static let bob = PersonID(uuid(12))
    static let carol = PersonID(uuid(13))
    static let erin = PersonID(uuid(14))

    static let bobsDay = ScheduledShift(id: ShiftID(uuid(20)), shiftTypeID: day.id, date: date("2026-03-10"), personID: bob)
    static let carolsDay = ScheduledShift(id: ShiftID(uuid(21)), shiftTypeID: day.id, date: date("2026-03-11"), personID: carol)
    static let open = ScheduledShift(id: ShiftID(uuid(22)), shiftTypeID: night.id, date: date("2026-03-12"), personID: nil)

    static let bobsSwap = RequestID(uuid(30))
    static let carolsTimeOff = RequestID(uuid(31))

    /// The team's schedule. `databaseRoles` links each person to a login role (PostgreSQL:
    /// `Who.user` with the run's prefix), Erin excepted.
    static func schedule(databaseRoles prefix: String? = nil) throws -> Schedule {
        func person(_ id: PersonID, _ name: String, _ role: Role?, _ who: Who?) -> Person {
            var attributes: Attributes = [:]
            if let role { attributes[Role.attribute] = .string(role.rawValue) }
            if let prefix, let who { attributes[Role.databaseRoleAttribute] = .string(prefix + who.user) }
            return Person(id: id, displayName: name, attributes: attributes)
        }
        func made(_ name: String, hoursAgo: Double) -> [RequestTransition] {
            [RequestTransition(state: .pending, timestamp: fixedNow.addingTimeInterval(-3600 * hoursAgo), userId: name, userDisplayName: name)]
        }
        let requests = [
            Request(id: bobsSwap, kind: .swap, requesterID: bob, shift: SeenShift(bobsDay), colleagueID: carol, history: made("bob", hoursAgo: 2)),
            Request(id: carolsTimeOff, kind: .timeOff, requesterID: carol, from: date("2026-03-20"), to: date("2026-03-20"),
                    history: made("carol", hoursAgo: 1)),
        ]
        let people = [
            person(ada, "Ada", .admin, .admin), person(sam, "Sam", .scheduler, .scheduler), person(bob, "Bob", .staff, .staff),
            person(carol, "Carol", .staff, .colleague), person(erin, "Erin", nil, nil),
        ]
        let mutations: [Mutation] = [.addLocation(ward), .addShiftType(day), .addShiftType(night)] + people.map { .addPerson($0) }
            + [bobsDay, carolsDay, open].map { .scheduleShift($0) } + requests.map { .addRequest($0) }
        var settings = StoreSettings(timeZoneIdentifier: "Europe/Berlin")
        settings.extra[SettingsKey.noRules] = .bool(true)
        return try Schedule(settings: settings).applying(.batch(mutations)).schedule
    }

    /// How a command names a shift or request: its id (the fixed ids share their first digits).
    static func ref<T>(_ id: Identifier<T>) -> String { id.description }

    /// An app on `store` at `now` (the tests' clock); `user` is `--as` (nil: none).
    static func app(store: String, user: String?, folder: String, now: Date = fixedNow) -> App {
        App(options: GlobalOptions(store: store, actingUser: user, noRules: true),
            environment: AppEnvironment(variables: ["USER": "tester"], currentDirectory: folder, now: { now }, diagnostics: { _ in }))
    }

    /// Runs an app call as `shiftctl` would: its output, stderr line and exit status.
    static func run(_ app: App, _ body: (App) async throws -> CommandResult) async -> CommandRunner.Outcome {
        await CommandRunner.run(format: .text) {
            let result = try await body(app)
            try app.workspace.throwFailedReads()
            return result
        }
    }
}

/// One cell group of the permissions matrix (docs/requests.md): an action, who may take it,
/// and what the others are told.
struct MatrixAction: Sendable, CustomTestStringConvertible {
    let name: String
    let allowed: Set<RoleTeam.Who>
    /// What a refused user (other than the stranger) is told: `… may not <refusal>`.
    let refusal: String
    /// Only on PostgreSQL (database roles).
    let postgresOnly: Bool
    let run: @Sendable (App, _ prefix: String) async throws -> CommandResult

    var testDescription: String { name }

    init(_ name: String, _ allowed: Set<RoleTeam.Who>, _ refusal: String, postgresOnly: Bool = false,
         _ run: @escaping @Sendable (App, String) async throws -> CommandResult) {
        self.name = name
        self.allowed = allowed
        self.refusal = refusal
        self.postgresOnly = postgresOnly
        self.run = run
    }

    typealias T = RoleTeam
    static let everyone = Set(RoleTeam.Who.allCases)
    static let editors: Set<RoleTeam.Who> = [.admin, .scheduler]

    static let all: [MatrixAction] = [
        MatrixAction("read the schedule and the requests", everyone, "") { app, _ in
            try app.listRequests(mine: false, open: false, person: nil)
        },
        MatrixAction("make a request for oneself", [.admin, .scheduler, .staff, .colleague], "") { app, _ in
            try await app.requestClaim(shift: T.ref(T.open.id), person: nil, reason: nil)
        },
        MatrixAction("make a request for someone else", [.admin, .scheduler, .colleague], "make a request for someone else") { app, _ in
            try await app.requestClaim(shift: T.ref(T.open.id), person: "Carol", reason: nil)
        },
        MatrixAction("cancel one's own request", [.admin, .scheduler, .staff], "cancel someone else's request") { app, _ in
            try await app.cancelRequest(T.ref(T.bobsSwap), reason: nil)
        },
        MatrixAction("accept a swap addressed to one", [.admin, .scheduler, .colleague], "accept a swap addressed to someone else") { app, _ in
            try await app.acceptRequest(T.ref(T.bobsSwap), reason: nil)
        },
        MatrixAction("approve a request", editors, "approve requests") { app, _ in
            try await app.approveRequest(T.ref(T.carolsTimeOff), reason: nil)
        },
        MatrixAction("decline a request", editors, "decline requests") { app, _ in
            try await app.declineRequest(T.ref(T.carolsTimeOff), reason: nil)
        },
        MatrixAction("add a shift", editors, "edit shifts") { app, _ in
            try await app.scheduleShift(type: "D", date: "2026-03-13", person: "Bob", notes: nil)
        },
        MatrixAction("remove a shift", editors, "edit shifts") { app, _ in
            try await app.unscheduleShift(T.ref(T.carolsDay.id), reason: nil)
        },
        MatrixAction("change a person", editors, "change person entries") { app, _ in
            try await app.updatePerson("Bob", name: "Robert", attributes: [], removeAttributes: [])
        },
        MatrixAction("add a shift type", editors, "change shift type entries") { app, _ in
            try await app.addShiftType(symbol: "E", title: "Evening", time: "15:00-23:00", allDay: false, location: nil, description: nil, attributes: [])
        },
        MatrixAction("add a location", editors, "change location entries") { app, _ in
            try await app.addLocation(name: "Ward B", address: nil, attributes: [])
        },
        MatrixAction("add demand", editors, "change demand entries") { app, _ in
            try await app.addDemand(type: "D", date: nil, weekday: "mon", minimum: 1, optimal: nil, skill: nil)
        },
        MatrixAction("add availability", editors, "change availability entries") { app, _ in
            try await app.addAvailability(person: "Bob", from: "2026-03-16", to: nil, type: nil, kind: .unavailable, weight: nil)
        },
        MatrixAction("change the settings", editors, "change settings entries") { app, _ in
            try await app.setAutoApprove(true)
        },
        MatrixAction("grant a role", [.admin], "grant or revoke roles") { app, _ in
            try await app.grantRole(person: "Carol", role: .scheduler)
        },
        MatrixAction("link a person to a database role", [.admin], "grant or revoke roles", postgresOnly: true) { app, prefix in
            try await app.linkPerson("Erin", databaseRole: prefix + "erin")
        },
    ]

    static let fileStoreActions = all.filter { !$0.postgresOnly }
}

/// A team's schedule on the test server with a login role for each of them (no password: the
/// throwaway cluster trusts local connections), each linked to their person, and the
/// schedule's database roles set up. Mallory's role has the table grants the old team guide
/// gave everyday roles (and links to nobody). `remove()` drops the schedule and every role.
final class PostgresTeam: Sendable {
    let ownerURL: String
    let schema: String
    /// The prefix of this team's login roles (roles are the whole server's).
    let prefix: String
    let groups: [String]

    init() throws {
        ownerURL = try PostgresTestServer.freshScheduleURL()
        schema = try PostgresLocation(url: ownerURL).schemaName
        let prefix = "r" + UUID().uuidString.lowercased().prefix(8) + "_"
        self.prefix = prefix
        groups = PostgresRepository.groupRoleNames(of: try PostgresLocation(url: ownerURL))
        try PostgresTestServer.psql(logins.map { "CREATE ROLE \($0) LOGIN;" }.joined())
        do {
            try StoreKind.postgres.create(try RoleTeam.schedule(databaseRoles: prefix), at: ownerURL)
            try PostgresRepository(url: ownerURL).setUpDatabaseRoles()
            try PostgresTestServer.psql("""
                GRANT USAGE ON SCHEMA \(schema) TO \(prefix)mallory;
                GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA \(schema) TO \(prefix)mallory;
                """)
        } catch {
            remove()
            throw error
        }
    }

    /// The team's login roles.
    var logins: [String] { (RoleTeam.Who.allCases.map(\.user) + ["erin"]).map { prefix + $0 } }

    func url(_ who: RoleTeam.Who) throws -> String { try url(login: prefix + who.user) }

    func url(login: String) throws -> String { try PostgresTestServer.url(ownerURL, user: login) }

    /// Puts the team's schedule back as it was (the owner writes it whole).
    func reset() throws {
        try PostgresRepository(url: ownerURL).write(try RoleTeam.schedule(databaseRoles: prefix))
    }

    /// One value for everything the schedule holds: equal before and after means nothing changed.
    func digest() throws -> String {
        let tables = PostgresTeam.tables.map { "(SELECT md5(coalesce(string_agg(x::text, ',' ORDER BY x::text), '')) FROM \(schema).\($0) x)" }
        return try PostgresTestServer.psql("SELECT ARRAY[\(tables.joined(separator: ", "))]::text")
    }

    static let tables = [
        "meta", "settings", "locations", "shift_types", "people", "shifts", "demand", "availability", "change_log", "commits", "requests",
        "request_history", "database_roles", "migrations",
    ]

    /// Drops the schedule, its group roles and the team's login roles.
    func remove() {
        _ = try? PostgresTestServer.psql("DROP SCHEMA IF EXISTS \(schema) CASCADE")
        _ = try? PostgresTestServer.psql((groups + logins).map { "DROP ROLE IF EXISTS \($0);" }.joined())
    }
}
