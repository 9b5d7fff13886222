import Foundation
import ShiftCore
import ShiftStorage
import ShiftStorageSQLite

/// Where a schedule is kept: how to make the repository a connection opens.
///
/// A struct of a factory rather than a closed enum, so a storage module can add its own backend
/// without changing this one.
///
/// ```swift
/// let backend: StoreBackend = .jsonFile(path: documents + "/schedule.json", createIfMissing: true)
/// ```
public struct StoreBackend: Sendable, CustomStringConvertible {
    /// Names the backend in messages (`JSON file /path/schedule.json`, `memory`).
    public let description: String
    private let makeRepository: @Sendable () throws -> any ScheduleRepository

    /// A backend from any repository factory, called once each time a connection opens.
    public init(description: String, makeRepository: @escaping @Sendable () throws -> any ScheduleRepository) {
        self.description = description
        self.makeRepository = makeRepository
    }

    /// Makes the repository (a connection calls this once when it opens).
    public func repository() throws -> any ScheduleRepository { try makeRepository() }

    /// The JSON file store (docs/store-format.md): one human-readable file, atomic saves, a lock
    /// against other processes writing it.
    ///
    /// - Parameters:
    ///   - path: the store file.
    ///   - createIfMissing: create an empty store with `initialSettings` when the file does not
    ///     exist (otherwise opening fails with `StorageError.notFound`).
    ///   - initialSettings: settings of a newly created store (its time zone above all).
    public static func jsonFile(path: String, createIfMissing: Bool = false, initialSettings: StoreSettings = StoreSettings()) -> StoreBackend {
        StoreBackend(description: "JSON file \(path)") {
            JSONFileRepository(path: path, createIfMissing: createIfMissing, initialSettings: initialSettings)
        }
    }

    /// The SQLite store (GRDB, docs/storage.md): for large schedules. Only the small parts
    /// (people, shift types, locations, demand, availability, settings) are read when it opens;
    /// shifts and the change log are queried as the rules and the app ask for them, so one edit
    /// costs the same at ten shifts and at a million. Writers in other processes are excluded by
    /// a lock and each commit is one transaction.
    ///
    /// - Parameters:
    ///   - path: the database file (`schedule.sqlite`).
    ///   - createIfMissing: create an empty store with `initialSettings` when the file does not
    ///     exist (otherwise opening fails with `StorageError.notFound`).
    ///   - initialSettings: settings of a newly created store.
    public static func sqlite(path: String, createIfMissing: Bool = false, initialSettings: StoreSettings = StoreSettings()) -> StoreBackend {
        StoreBackend(description: "SQLite database \(path)") {
            try SQLiteRepository(path: path, createIfMissing: createIfMissing, initialSettings: initialSettings)
        }
    }

    /// A store in memory starting from `schedule`, for previews and tests; nothing outlives the
    /// process. Each open starts again from `schedule`.
    public static func inMemory(_ schedule: Schedule) -> StoreBackend {
        StoreBackend(description: "memory") { InMemoryRepository(schedule) }
    }

    /// A store over an existing repository (several connections over one `InMemoryRepository`
    /// see each other's commits, like processes sharing a file).
    public static func repository(_ repository: any ScheduleRepository) -> StoreBackend {
        StoreBackend(description: repository.location) { repository }
    }
}

/// Everything a live connection needs: the backend, the rules, and who the app's user is.
public struct ScheduleConfiguration: Sendable {
    public var backend: StoreBackend
    /// Folders of Lua rules (the stock ones are in the package's `rules/`). Empty: no Lua rules.
    /// Rule settings (disabled rules, severities, parameters) are read from the store's settings
    /// when the connection opens. Folders that yield no enabled rule (none there, or all disabled)
    /// fail the open with `ShiftClientError.noRulesInForce`, unless `allowsNoRules`.
    public var rulesDirectories: [String]
    /// Open the store even when `rulesDirectories` yield no enabled rule, so changes go unchecked
    /// by Lua rules. Off by default: an empty or mistyped rules folder must not let every change
    /// through. A store whose settings hold `rules.none = true` (`shiftctl init --no-rules`) opens
    /// either way.
    public var allowsNoRules: Bool
    /// Check the app user's role in the funnel, as `shiftctl` checks `--as` (on by default):
    /// once any person in the schedule has a role, each change needs the role the permissions
    /// matrix names (docs/requests.md), and a refused one throws `ScheduleError.forbidden` with
    /// nothing written. While nobody has a role nothing is checked. Off: the app decides alone
    /// who may call what.
    public var enforcesRoles: Bool
    /// Checks written in Swift, run after the Lua rules.
    public var validators: [any ScheduleValidator]
    /// The app's user before they change their display name, and again after a reset. Their
    /// `userId` names them in the change log; keep it stable (an account id, not a device name).
    public var defaultProfile: UserProfile
    /// The clock and id source of the store. `nil` takes them from the `date` and `uuid`
    /// dependencies in effect when the connection opens.
    public var environment: StoreEnvironment?
    /// Receives Lua `print` output of the rules: (source file, message).
    public var ruleLog: @Sendable (_ source: String, _ message: String) -> Void

    public init(
        backend: StoreBackend, rulesDirectories: [String] = [], validators: [any ScheduleValidator] = [],
        defaultProfile: UserProfile = .processUser, environment: StoreEnvironment? = nil,
        ruleLog: @escaping @Sendable (_ source: String, _ message: String) -> Void = { _, _ in },
        allowsNoRules: Bool = false, enforcesRoles: Bool = true
    ) {
        self.backend = backend
        self.rulesDirectories = rulesDirectories
        self.validators = validators
        self.defaultProfile = defaultProfile
        self.environment = environment
        self.ruleLog = ruleLog
        self.allowsNoRules = allowsNoRules
        self.enforcesRoles = enforcesRoles
    }
}
