import Foundation
import ShiftCore
import ShiftRules
import ShiftStorage
import Synchronization

/// The options every command shares (`--store`, `--rules`, `--as`).
public struct GlobalOptions: Sendable, Hashable {
    /// `--store PATH`; nil means `$SHIFTCTL_STORE`, else `./schedule.json`.
    public var store: String?
    /// `--rules DIR…`; empty means the store's `rules.directories`, else `./rules`.
    public var rules: [String]
    /// `--as USER`; nil means the store's `user.default`, else `$USER`.
    public var actingUser: String?

    public init(store: String? = nil, rules: [String] = [], actingUser: String? = nil) {
        self.store = store
        self.rules = rules
        self.actingUser = actingUser
    }
}

/// Settings keys other layers keep in `StoreSettings.extra`.
public enum SettingsKey {
    /// A list of rule folders, relative to the store file's folder.
    public static let rulesDirectories = "rules.directories"
    /// The acting user when neither `--as` nor `$USER` says otherwise.
    public static let defaultUser = "user.default"
}

/// One invocation's view of the world: where the store is, which rules apply, who acts.
/// Opens the store read-only for queries and through the funnel (with the rule engine) for changes.
public struct Workspace: Sendable {
    public let options: GlobalOptions
    public let environment: AppEnvironment
    /// The sources of the schedules this workspace opened (a SQLite store's shifts and log).
    private let openedSources = OpenedSources()

    public init(options: GlobalOptions, environment: AppEnvironment) {
        self.options = options
        self.environment = environment
    }

    /// Throws the first read of an opened store that failed. A store over SQLite reads shifts
    /// as a command asks for them, and a failed read yields nothing rather than throwing where it
    /// happens: a command that printed what it read must not exit 0 on half an answer.
    public func throwFailedReads() throws {
        for source in openedSources.all { if let failure = source.takeFailure() { throw failure } }
    }

    private final class OpenedSources: Sendable {
        private let sources = Mutex<[any ScheduleSource]>([])
        func add(_ source: (any ScheduleSource)?) {
            guard let source else { return }
            sources.withLock { list in if !list.contains(where: { $0 === source }) { list.append(source) } }
        }
        var all: [any ScheduleSource] { sources.withLock { $0 } }
    }

    /// The store path as the user gave it (for messages).
    public var storePath: String {
        if let store = options.store, !store.isEmpty { return store }
        if let store = environment.variables["SHIFTCTL_STORE"], !store.isEmpty { return store }
        return "./schedule.json"
    }

    public var absoluteStorePath: String { environment.absolute(storePath) }

    /// The folder holding the store file.
    public var storeFolder: String { (absoluteStorePath as NSString).deletingLastPathComponent }

    /// The backend the store path's extension names (`.json`, `.sqlite`).
    public func storeKind() throws -> StoreKind {
        guard let kind = StoreKind(path: storePath) else { throw AppError.unsupportedStore(path: storePath) }
        return kind
    }

    /// The repository for the store path, by its extension.
    public func repository(createIfMissing: Bool = false, initialSettings: StoreSettings = StoreSettings()) throws -> any ScheduleRepository {
        try storeKind().repository(path: absoluteStorePath, createIfMissing: createIfMissing, initialSettings: initialSettings)
    }

    /// Reads the schedule (no rules, no lock): for commands that only look.
    public func loadSchedule() throws -> Schedule {
        let schedule = try translatingStorageErrors { try repository().load().0 }
        openedSources.add(schedule.source)
        return schedule
    }

    /// Opens the store through the funnel, with the rule engine as its validator and the
    /// acting user set.
    public func openStore() async throws -> ScheduleStore {
        let store = try translatingStorageErrors { try ScheduleStore(repository: try repository()) }
        openedSources.add(await store.schedule.source)
        let settings = await store.schedule.settings
        let engine = try ruleEngine(for: settings)
        await store.setValidators([engine])
        await store.setActingUser(actingUser(settings: settings))
        return store
    }

    /// Applies one mutation through the funnel with the rules loaded, as the acting user.
    public func apply(
        _ mutation: Mutation, confirmation: (@Sendable () async throws -> Void)? = nil
    ) async throws -> (result: CommitResult, schedule: Schedule) {
        let store = try await openStore()
        do {
            let result = try await store.apply(mutation, confirmation: confirmation)
            return (result, await store.schedule)
        } catch let ScheduleError.rejected(violations) {
            throw RejectedChange(violations: violations, schedule: await store.schedule, pending: mutation.shifts)
        }
    }

    // MARK: Rules

    /// The rule folders: `--rules` (relative to the working folder), else the store's
    /// `rules.directories` (relative to the store's folder), else `./rules` when it exists.
    public func rulesDirectories(settings: StoreSettings) throws -> [String] {
        if !options.rules.isEmpty {
            return try options.rules.map { folder in
                let path = environment.absolute(folder)
                guard Self.isDirectory(path) else { throw AppError.rulesFolderMissing(path: folder, origin: "--rules") }
                return path
            }
        }
        if settings.extra[SettingsKey.rulesDirectories] != nil {
            return try Self.configuredRuleFolders(settings).map { folder in
                let path = folder.hasPrefix("/") ? folder : (storeFolder + "/" + folder as NSString).standardizingPath
                guard Self.isDirectory(path) else {
                    throw AppError.rulesFolderMissing(path: path, origin: "the store's \(SettingsKey.rulesDirectories) setting")
                }
                return path
            }
        }
        let fallback = environment.absolute("rules")
        return Self.isDirectory(fallback) ? [fallback] : []
    }

    /// The store's `rules.directories` setting as written (a list, or one folder).
    static func configuredRuleFolders(_ settings: StoreSettings) -> [String] {
        guard let configured = settings.extra[SettingsKey.rulesDirectories] else { return [] }
        return configured.listValue?.compactMap(\.stringValue) ?? configured.stringValue.map { [$0] } ?? []
    }

    /// Loads and compiles the rules for a store (throws `RuleError` naming file:line).
    public func ruleEngine(for settings: StoreSettings, directories: [String]? = nil) throws -> RuleEngine {
        let folders = try directories ?? rulesDirectories(settings: settings)
        let configuration = RuleEngineConfiguration(
            directories: folders, config: RulesConfig(settings: settings), now: environment.now,
            log: { source, message in FileHandle.standardError.write(Data("\(source): \(message)\n".utf8)) })
        return try RuleEngine(configuration)
    }

    // MARK: Acting user

    /// `--as`, else the store's `user.default`, else `$USER`, else `unknown`.
    public func actingUser(settings: StoreSettings) -> UserProfile {
        let name = [options.actingUser, settings.extra[SettingsKey.defaultUser]?.stringValue, environment.variables["USER"]]
            .compactMap { $0 }.first { !$0.isEmpty } ?? "unknown"
        return UserProfile(userId: name, displayName: name)
    }

    // MARK: Helpers

    static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// Storage errors name the absolute path; a missing store is reported as the user wrote it.
    func translatingStorageErrors<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch StorageError.notFound {
            throw AppError.storeMissing(path: storePath)
        }
    }
}

extension Mutation {
    /// The shifts a mutation writes (to name them in a rejection report).
    var shifts: [ScheduledShift] {
        switch self {
        case let .scheduleShift(shift), let .updateShift(shift, _): [shift]
        case let .batch(items): items.flatMap(\.shifts)
        default: []
        }
    }
}
