import Foundation
import ShiftCore
import ShiftRules
import ShiftStorage
import Synchronization

/// The options every command shares (`--store`, `--rules`, `--no-rules`, `--as`).
public struct GlobalOptions: Sendable, Hashable {
    /// `--store PATH`; nil means `$SHIFTCTL_STORE`, else `./schedule.json`.
    public var store: String?
    /// `--rules DIR…`; empty means the store's `rules.directories`, else `./rules`.
    public var rules: [String]
    /// `--as USER`; nil means the store's `user.default`, else `$USER`.
    public var actingUser: String?
    /// `--no-rules`: load no rules folder and go ahead without checking; excludes `--rules`.
    public var noRules: Bool

    public init(store: String? = nil, rules: [String] = [], actingUser: String? = nil, noRules: Bool = false) {
        self.store = store
        self.rules = rules
        self.actingUser = actingUser
        self.noRules = noRules
    }
}

/// Settings keys other layers keep in `StoreSettings.extra`.
public enum SettingsKey {
    /// A list of rule folders, relative to the store file's folder.
    public static let rulesDirectories = "rules.directories"
    /// The acting user when neither `--as` nor `$USER` says otherwise.
    public static let defaultUser = "user.default"
    /// `true`: the store runs without rules on purpose (`init --no-rules`), so commands that
    /// check or change the schedule go ahead when no rule is in force.
    public static let noRules = RulesConfig.noRulesKey
}

/// One invocation's view of the world: where the store is, which rules apply, who acts.
/// Opens the store read-only for queries and through the funnel (with the rule engine) for changes.
public struct Workspace: Sendable {
    public let options: GlobalOptions
    public let environment: AppEnvironment
    /// The sources of the schedules this workspace opened (a SQLite store's shifts and log).
    private let openedSources = OpenedSources()
    /// The notes already written to stderr (each is said once per command).
    private let notesSaid = NotesSaid()
    /// Who the store's database says the user is, once a store was opened (PostgreSQL).
    private let identity = IdentityCache()

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

    private final class IdentityCache: Sendable {
        private let value = Mutex<DatabaseIdentity?>(nil)
        var current: DatabaseIdentity? { value.withLock { $0 } }
        func set(_ identity: DatabaseIdentity) { value.withLock { $0 = identity } }
    }

    private final class NotesSaid: Sendable {
        private let said = Mutex<Set<String>>([])
        /// True the first time a note is given.
        func first(_ note: String) -> Bool { said.withLock { $0.insert(note).inserted } }
    }

    /// Writes `shiftctl: note: …` on stderr, once per command: something the user should know
    /// that does not stop the command.
    public func note(_ text: String) {
        guard notesSaid.first(text) else { return }
        environment.diagnostics("shiftctl: note: \(CommandRunner.printable(text))\n")
    }

    /// The store path as the user gave it (for messages).
    public var storePath: String {
        if let store = options.store, !store.isEmpty { return store }
        if let store = environment.variables["SHIFTCTL_STORE"], !store.isEmpty { return store }
        return "./schedule.json"
    }

    /// The store path made absolute (a `postgres://` URL as it is).
    public var absoluteStorePath: String { StoreKind(path: storePath) == .postgres ? storePath : environment.absolute(storePath) }

    /// The folder holding the store file (for a server's store, the current folder: rule folders
    /// are relative to it).
    public var storeFolder: String {
        StoreKind(path: storePath) == .postgres ? environment.currentDirectory : (absoluteStorePath as NSString).deletingLastPathComponent
    }

    /// The backend the store path's extension names (`.json`, `.sqlite`).
    public func storeKind() throws -> StoreKind {
        guard let kind = StoreKind(path: storePath) else { throw AppError.unsupportedStore(path: storePath) }
        return kind
    }

    /// The repository for the store path, by its extension.
    public func repository(createIfMissing: Bool = false, initialSettings: StoreSettings = StoreSettings()) throws -> any ScheduleRepository {
        try storeKind().repository(
            path: absoluteStorePath, createIfMissing: createIfMissing, initialSettings: initialSettings, jsonIndexThreshold: jsonIndexThreshold())
    }

    /// `$SHIFTCTL_JSON_INDEX`: `off` keeps no index file beside a JSON store; a number is the
    /// count of shifts from which one is kept; unset, `JSONFileRepository.defaultIndexThreshold`.
    public func jsonIndexThreshold() throws -> Int? {
        guard let value = environment.variables["SHIFTCTL_JSON_INDEX"], !value.isEmpty else { return JSONFileRepository.defaultIndexThreshold }
        if value == "off" { return nil }
        guard let threshold = Int(value), threshold >= 0 else {
            throw AppError.invalidValue(option: "SHIFTCTL_JSON_INDEX", message: "'\(value)' is neither off nor a number of shifts")
        }
        return threshold
    }

    /// Reads the schedule (no rules, no lock): for commands that only look.
    public func loadSchedule() throws -> Schedule {
        let opened = try translatingStorageErrors { try repository() }
        let schedule = try translatingStorageErrors { try opened.load().0 }
        openedSources.add(schedule.source)
        try identify(opened, in: schedule)
        return schedule
    }

    /// Opens the store through the funnel, with the rule engine as its validator and the
    /// acting user set. Fails closed when no rule is in force (see `checkingRuleEngine(for:)`).
    public func openStore() async throws -> ScheduleStore {
        let store = try translatingStorageErrors { try ScheduleStore(repository: try repository()) }
        try await setActingUser(of: store)
        let engine = try checkingRuleEngine(for: await store.schedule.settings)
        await store.setValidators([engine])
        return store
    }

    /// Sets who acts on a store this command opened: the acting user (where the store's
    /// database decides who that is, after refusing an `--as` naming someone else), the
    /// permissions the funnel checks, and the database's identity. `openStore` does it; a
    /// command that opens its store itself (`run`) calls it.
    public func setActingUser(of store: ScheduleStore) async throws {
        let schedule = await store.schedule
        openedSources.add(schedule.source)
        try identify(store.repository, in: schedule)
        await store.setActingUser(actingUser(settings: schedule.settings))
        await store.setPermissions(Permissions(checkedByDatabase: databaseIdentity?.checked ?? false))
        await store.setDatabaseIdentity(databaseIdentity)
    }

    /// Who the store's database says the user is (PostgreSQL), once a store was read or opened;
    /// nil for a file store.
    public var databaseIdentity: DatabaseIdentity? { identity.current }

    /// Asks a repository whose database knows who the user is (PostgreSQL) who that is, and
    /// refuses `--as` naming someone else when the database decides it.
    private func identify(_ repository: any ScheduleRepository, in schedule: Schedule) throws {
        guard let identifying = repository as? any IdentifyingRepository else { return }
        let found = try identifying.databaseIdentity()
        identity.set(found)
        _ = try found.actingUser(asked: options.actingUser, fallback: fallbackUser(settings: schedule.settings), in: schedule)
    }

    /// Applies one mutation through the funnel with the rules loaded, as the acting user;
    /// `reason` goes into the change log for shift changes that carry none.
    public func apply(
        _ mutation: Mutation, reason: String? = nil, confirmation: (@Sendable () async throws -> Void)? = nil
    ) async throws -> (result: CommitResult, schedule: Schedule) {
        let store = try await openStore()
        do {
            let result = try await store.apply(mutation, reason: reason, confirmation: confirmation)
            return (result, await store.schedule)
        } catch let ScheduleError.rejected(violations) {
            throw await rejected(violations, of: mutation, in: store)
        }
    }

    /// Commits a request plan through the funnel with the rules loaded, as the acting user.
    public func apply(_ plan: RequestPlan) async throws -> (commit: RequestCommit, schedule: Schedule) {
        let store = try await openStore()
        do {
            let commit = try await store.apply(plan)
            return (commit, await store.schedule)
        } catch let ScheduleError.rejected(violations) {
            // The step refused last: the plan's own, or the one it falls back to.
            throw await rejected(violations, of: plan.otherwise?.mutation ?? plan.step.mutation, in: store)
        }
    }

    /// A refusal of the rules with the schedule, so that the report can name people and types.
    private func rejected(_ violations: [Violation], of mutation: Mutation, in store: ScheduleStore) async -> RejectedChange {
        let schedule = await store.schedule
        return RejectedChange(violations: violations, schedule: schedule, pending: mutation.shifts(in: schedule),
                              directory: environment.currentDirectory)
    }

    // MARK: Rules

    /// The rule folders and where they came from (for messages: `--rules`, `the store's
    /// rules.directories`…).
    struct RuleFolders {
        var paths: [String]
        var origin: String
    }

    /// The rule folders: none with `--no-rules`; else `--rules` (relative to the working folder);
    /// else the store's `rules.directories` (relative to the store's folder); else `./rules`
    /// when it exists.
    public func rulesDirectories(settings: StoreSettings) throws -> [String] {
        try ruleFolders(settings: settings).paths
    }

    func ruleFolders(settings: StoreSettings) throws -> RuleFolders {
        if options.noRules {
            guard options.rules.isEmpty else {
                throw AppError.invalidValue(option: "--no-rules", message: "cannot be used with --rules; pass one or the other")
            }
            return RuleFolders(paths: [], origin: "--no-rules")
        }
        if !options.rules.isEmpty {
            let paths = try options.rules.map { folder in
                let path = environment.absolute(folder)
                guard Self.isDirectory(path) else { throw AppError.rulesFolderMissing(path: folder, origin: "--rules") }
                return path
            }
            return RuleFolders(paths: paths, origin: "--rules")
        }
        if settings.extra[SettingsKey.rulesDirectories] != nil {
            let origin = "the store's \(SettingsKey.rulesDirectories)"
            let paths = try Self.configuredRuleFolders(settings).map { folder in
                let path = storeRelative(folder)
                guard Self.isDirectory(path) else { throw AppError.rulesFolderMissing(path: path, origin: origin + " setting") }
                return path
            }
            return RuleFolders(paths: paths, origin: origin)
        }
        let fallback = environment.absolute("rules")
        return Self.isDirectory(fallback) ? RuleFolders(paths: [fallback], origin: "./rules")
            : RuleFolders(paths: [], origin: "the store records no \(SettingsKey.rulesDirectories) and there is no ./rules")
    }

    /// The store's `rules.directories` setting as written (a list, or one folder).
    static func configuredRuleFolders(_ settings: StoreSettings) -> [String] {
        guard let configured = settings.extra[SettingsKey.rulesDirectories] else { return [] }
        return configured.listValue?.compactMap(\.stringValue) ?? configured.stringValue.map { [$0] } ?? []
    }

    /// A folder of the store's settings made absolute against the store's folder.
    private func storeRelative(_ folder: String) -> String {
        folder.hasPrefix("/") ? folder : (storeFolder + "/" + folder as NSString).standardizingPath
    }

    /// Loads and compiles the rules for a store (throws `RuleError` naming file:line). For
    /// commands that only look (`rules list`, `rotations`, an HTML export's marks): it may
    /// load no rule at all. Commands that check or change the schedule use
    /// `checkingRuleEngine(for:)`.
    public func ruleEngine(for settings: StoreSettings, directories: [String]? = nil, files: [String] = []) throws -> RuleEngine {
        let engine = try makeRuleEngine(try directories ?? rulesDirectories(settings: settings), files: files, settings: settings)
        if directories == nil { noteReplacedFolders(settings) }
        return engine
    }

    /// The rules for a command that checks or changes the schedule. Fails closed: when no
    /// enabled rule is in force (no rules folder, folders without rules, every rule disabled),
    /// it throws `AppError.noRulesInForce` rather than let the command pass or write unchecked,
    /// unless the user chose to go ahead without rules (`runsWithoutRules(_:)`).
    public func checkingRuleEngine(for settings: StoreSettings) throws -> RuleEngine {
        let folders = try ruleFolders(settings: settings)
        let engine = try makeRuleEngine(folders.paths, settings: settings)
        guard engine.hasEnabledRules || runsWithoutRules(settings) else {
            throw AppError.noRulesInForce(folders: folders.paths.map(relativePath), origin: folders.origin, loaded: engine.rules.count)
        }
        noteReplacedFolders(settings)
        return engine
    }

    /// Whether the user chose to go ahead without rules: `--no-rules`, or the store's
    /// `rules.none = true` (`init --no-rules`).
    public func runsWithoutRules(_ settings: StoreSettings) -> Bool {
        options.noRules || RulesConfig.runsWithoutRules(settings)
    }

    private func makeRuleEngine(_ folders: [String], files: [String] = [], settings: StoreSettings) throws -> RuleEngine {
        let diagnostics = environment.diagnostics
        var configuration = RuleEngineConfiguration(
            directories: folders, config: RulesConfig(settings: settings), now: environment.now,
            log: { source, message in diagnostics("\(source): \(message)\n") })
        configuration.files = files
        return try RuleEngine(configuration)
    }

    /// Says so when `--rules` stands in for other folders than the store records: the store's
    /// rules do not apply to this command, which the user may not have meant.
    private func noteReplacedFolders(_ settings: StoreSettings) {
        guard !options.rules.isEmpty, settings.extra[SettingsKey.rulesDirectories] != nil else { return }
        let recorded = Self.configuredRuleFolders(settings)
        guard Set(recorded.map(storeRelative)) != Set(options.rules.map(environment.absolute)) else { return }
        note("--rules replaces the store's rules folders (\(recorded.isEmpty ? "none" : recorded.joined(separator: ", "))) for this command")
    }

    // MARK: Acting user

    /// `--as`, else the store's `user.default`, else `$USER`, else the process's login name,
    /// else `unknown`. Where the database decides who the user is (PostgreSQL with a linked or
    /// checked database role), the database role, named as its person.
    public func actingUser(settings: StoreSettings) -> UserProfile {
        if let found = identity.current, found.decidesWhoYouAre { return found.profile }
        return fallbackUser(settings: settings)
    }

    private func fallbackUser(settings: StoreSettings) -> UserProfile {
        let candidates = [options.actingUser, settings.extra[SettingsKey.defaultUser]?.stringValue, environment.variables["USER"], environment.loginName]
        let name = candidates.compactMap { $0 }.first { !$0.isEmpty } ?? "unknown"
        return UserProfile(userId: name, displayName: name)
    }

    // MARK: Helpers

    /// A path relative to the working folder when it is inside it (for messages).
    public func relativePath(_ path: String) -> String {
        let root = environment.currentDirectory
        return path.hasPrefix(root + "/") ? String(path.dropFirst(root.count + 1)) : path
    }

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

    /// The shifts a mutation writes as it would write them over `schedule`: a switched shift
    /// with its new type, a reassigned one with its new person (a rejection report names what
    /// the change tried, not what the store still holds).
    func shifts(in schedule: Schedule) -> [ScheduledShift] {
        switch self {
        case let .switchShift(id, type, _):
            schedule.shift(id).map { shift in
                var switched = shift
                switched.shiftTypeID = type
                return [switched]
            } ?? []
        case let .reassignShift(id, person, _):
            schedule.shift(id).map { shift in
                var reassigned = shift
                reassigned.personID = person
                return [reassigned]
            } ?? []
        case let .batch(items): items.flatMap { $0.shifts(in: schedule) }
        default: shifts
        }
    }
}
