import Foundation
import PostgresNIO
import ShiftCore
import Synchronization

/// The database's own check of roles (`PostgresRoles`): who the connection is, setting the
/// group roles up, and the database's refusals in the user's words.
extension PostgresRepository {
    /// Who the connection is: its database role, the person linked to it, and whether and as
    /// what the database checks its writes.
    /// - Throws: `PostgresStoreError.readFailed`, or `ScheduleError.forbidden` when the role may
    ///   not read the schedule.
    public func databaseIdentity() throws -> DatabaseIdentity {
        let identity = try reading { try PostgresRoles.identity(session) }
        knownIdentity.withLock { $0 = identity }
        return identity
    }

    /// Whether the schedule's group roles are set up (the database checks roles).
    public func databaseRolesSetUp() throws -> Bool {
        try reading { try PostgresRoles.areSetUp(session) }
    }

    /// Sets the schedule's group roles up and turns the database's check of roles on, once:
    /// what the first `shiftctl person link` does.
    /// - Returns: false when they were set up already.
    /// - Throws: `PostgresStoreError.cannotSetUpRoles` naming who lacks what (the tables'
    ///   owner with CREATEROLE must do it), or the write's error. Nothing is changed then.
    @discardableResult
    public func setUpDatabaseRoles() throws -> Bool {
        do {
            return try PostgresRoles.setUp(schema: target.schemaName, store: location, session)
        } catch let error as PostgresStoreError {
            throw error
        } catch {
            throw writeFailure(error)
        }
    }

    /// Whether a database role by this name exists on the server.
    public func databaseRoleExists(_ name: String) throws -> Bool {
        try reading { try PostgresRoles.roleExists(name, session) }
    }

    /// The name of the schedule's group role for a role (`shiftscheduler_ward3_staff`), which a
    /// linked person's database role is a member of.
    public func groupRoleName(for role: Role) -> String {
        PostgresRoles.groupName(schema: target.schemaName, PostgresRoles.Group(rawValue: role.rawValue)!)
    }

    /// The names of all the schedule's group roles (reader, staff, scheduler, admin).
    public var groupRoleNames: [String] { Self.groupRoleNames(of: target) }

    /// The names of the group roles of the schedule at `location`, in the order reader, staff,
    /// scheduler, admin.
    public static func groupRoleNames(of location: PostgresLocation) -> [String] {
        PostgresRoles.Group.allCases.map { PostgresRoles.groupName(schema: location.schemaName, $0) }
    }

    /// A refusal of the database for want of a privilege (SQLSTATE 42501: a missing grant, a
    /// row-level security policy, one of the schedule's guard triggers) as one line naming the
    /// user, their role and what was refused: `bob (staff) may not edit shifts: the database
    /// refused it (permission denied for table shifts)`. Nil for any other error.
    func refusal(_ error: any Error) -> ScheduleError? {
        guard let error = error as? PSQLError, error.sqlState == "42501" else { return nil }
        let identity = knownIdentity.withLock { $0 }
        let who = identity.map { "\($0.role) (\($0.granted?.rawValue ?? "no role"))" } ?? target.user
        let message = error.serverInfo?[.message] ?? "permission denied"
        let table = error.serverInfo?[.tableName] ?? Self.table(named: message)
        let action = Self.action(table: table, column: error.serverInfo?[.columnName])
        return .forbidden(message: "\(who) may not \(action): the database refused it (\(message))")
    }

    /// The table a server message names (`permission denied for table shifts`, `new row
    /// violates row-level security policy for table "requests"`).
    static func table(named message: String) -> String? {
        guard let match = message.firstMatch(of: /for table "?([a-z_]+)"?/) else { return nil }
        return String(match.output.1)
    }

    /// What a refused write to a table was, in the matrix's words.
    static func action(table: String?, column: String?) -> String {
        switch (table, column) {
        case ("people", "role"): "grant or revoke roles"
        case ("shifts", _): "edit shifts"
        case ("people", _): "change people"
        case ("shift_types", _): "change shift types"
        case ("locations", _): "change locations"
        case ("demand", _): "change demand"
        case ("availability", _): "change availability"
        case ("settings", _): "change the settings"
        case ("change_log", _): "write the change log"
        case ("requests", _), ("request_history", _): "make or move this request"
        case ("meta", _), ("commits", _): "change the schedule"
        default: "read or change the schedule"
        }
    }
}
