import Dependencies
import Foundation
import ShiftCore
import ShiftRules
import Synchronization

/// The store the live clients work on: opened on first use from a configuration (so it can be
/// set up synchronously, early in an app's life), or wrapped around a store the app opened.
///
/// Every client's live value resolves the connection through `@Dependency(\.scheduleConnection)`
/// when it is called, so all clients share one store, one rule engine and one acting user.
///
/// ```swift
/// prepareDependencies {
///     $0.scheduleConnection = ScheduleConnection(ScheduleConfiguration(
///         backend: .jsonFile(path: path, createIfMissing: true), rulesDirectories: [rulesPath],
///         defaultProfile: UserProfile(userId: accountID, displayName: "Alice")))
/// }
/// ```
public final class ScheduleConnection: Sendable {
    private enum Source: Sendable {
        case configuration(ScheduleConfiguration)
        case store(ScheduleStore, defaultProfile: UserProfile)
        case unconfigured
    }

    private let source: Source
    /// The open (or opening) store. A failed open is forgotten, so the next call tries again.
    private let opening = Mutex<Task<ScheduleStore, any Error>?>(nil)

    /// A connection that opens the configured store on first use.
    public init(_ configuration: ScheduleConfiguration) {
        source = .configuration(configuration)
    }

    /// A connection over a store the app opened itself (with its validators, and its
    /// permissions if any, already set: `store.setPermissions(Permissions())` checks roles).
    /// - Parameter defaultProfile: the user a profile reset returns to.
    public init(store: ScheduleStore, defaultProfile: UserProfile) {
        source = .store(store, defaultProfile: defaultProfile)
    }

    private init(unconfigured: Void) {
        source = .unconfigured
    }

    /// The value before an app configures one: every client call throws
    /// `ShiftClientError.storeNotConfigured`.
    public static let unconfigured = ScheduleConnection(unconfigured: ())

    /// The user a profile reset returns to (nil for `unconfigured`).
    public var defaultProfile: UserProfile? {
        switch source {
        case let .configuration(configuration): configuration.defaultProfile
        case let .store(_, profile): profile
        case .unconfigured: nil
        }
    }

    /// The store, opened on the first call: the repository is read, the rules in the configured
    /// folders are compiled with the store's rule settings, the acting user is the default
    /// profile with the display name saved in the store, if any, and its role is checked unless
    /// `enforcesRoles` is off. Over a repository whose database decides who the user is
    /// (`IdentifyingRepository`: PostgreSQL with database roles), the acting user is the
    /// connection's database role instead, and a default profile naming someone else in the
    /// schedule fails the open with `ScheduleError.forbidden`.
    ///
    /// - Throws: `ShiftClientError.storeNotConfigured`, the storage's error (a missing or damaged
    ///   file), `RuleError` naming the rule file that does not load, or
    ///   `ShiftClientError.noRulesInForce` when the rules folders yield no enabled rule (see
    ///   `ScheduleConfiguration.allowsNoRules`).
    public func store() async throws -> ScheduleStore {
        let configuration: ScheduleConfiguration
        switch source {
        case let .store(store, _): return store
        case .unconfigured: throw ShiftClientError.storeNotConfigured
        case let .configuration(value): configuration = value
        }
        @Dependency(\.date) var date
        @Dependency(\.uuid) var uuid
        // The generators are resolved here: a closure over the property wrappers would keep the
        // dependency values alive from the store, and they hold this connection (a cycle).
        let (clock, ids) = (date, uuid)
        let environment = configuration.environment ?? StoreEnvironment(now: { clock.now }, makeUUID: { ids() })
        let task = opening.withLock { opening in
            if let task = opening { return task }
            let task = Task { try await Self.open(configuration, environment: environment) }
            opening = task
            return task
        }
        do {
            return try await task.value
        } catch {
            opening.withLock { if $0 == task { $0 = nil } }
            throw error
        }
    }

    private static func open(_ configuration: ScheduleConfiguration, environment: StoreEnvironment) async throws -> ScheduleStore {
        let repository = try configuration.backend.repository()
        let store = try ScheduleStore(repository: repository, actingUser: configuration.defaultProfile, environment: environment)
        let schedule = await store.schedule
        let settings = schedule.settings
        var validators: [any ScheduleValidator] = []
        if !configuration.rulesDirectories.isEmpty {
            let engine = try RuleEngine(RuleEngineConfiguration(
                directories: configuration.rulesDirectories, config: RulesConfig(settings: settings),
                now: environment.now, log: configuration.ruleLog))
            guard engine.hasEnabledRules || configuration.allowsNoRules || RulesConfig.runsWithoutRules(settings) else {
                throw ShiftClientError.noRulesInForce(directories: configuration.rulesDirectories, loaded: engine.rules.count)
            }
            validators.append(engine)
        }
        await store.setValidators(validators + configuration.validators)
        var user = configuration.defaultProfile
        var permissions = Permissions()
        if let identifying = repository as? any IdentifyingRepository {
            // The database decides who the app's user is: the configured user may only be that
            // person (or nobody in the schedule, such as the process's login name).
            let identity = try identifying.databaseIdentity()
            let named = Permissions.person(of: user, in: schedule) != nil
            user = try identity.actingUser(asked: named ? user.userId : nil, fallback: user, in: schedule)
            permissions = Permissions(checkedByDatabase: identity.checked)
            await store.setDatabaseIdentity(identity)
        }
        await store.setActingUser(ProfileSettings.profile(for: user, in: settings))
        if configuration.enforcesRoles { await store.setPermissions(permissions) }
        return store
    }

    // MARK: What the live clients use

    /// The current schedule, after picking up what other writers committed.
    func read<T>(_ body: (Schedule) throws -> T) async throws -> T {
        let store = try await store()
        try await store.refresh()
        return try body(await store.schedule)
    }

    /// Applies a mutation through the store's funnel (core checks, rules, atomic commit).
    @discardableResult
    func apply(_ mutation: Mutation, precondition: (@Sendable (Schedule) throws -> Void)? = nil) async throws -> CommitResult {
        try await store().apply(mutation, precondition: precondition)
    }

    /// Changes the store's settings from their current value: read, transform, and commit
    /// only if no other writer changed them in between (then it starts again), so concurrent
    /// edits of different keys are not lost.
    func updateSettings(_ transform: @escaping @Sendable (inout StoreSettings) throws -> Void) async throws {
        struct SettingsMoved: Error {}
        while true {
            let current = try await read(\.settings)
            var updated = current
            try transform(&updated)
            guard updated != current else { return }
            do {
                try await apply(.updateSettings(updated)) { schedule in
                    if schedule.settings != current { throw SettingsMoved() }
                }
                return
            } catch is SettingsMoved {
                continue
            }
        }
    }

    /// A stream fed by one of the store's observations; it ends at once when the store cannot
    /// be opened (the clients' other calls report why).
    func stream<Element: Sendable>(
        _ observe: @escaping @Sendable (ScheduleStore) async -> AsyncStream<Element>
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .bufferingNewest(1))
        let task = Task {
            defer { continuation.finish() }
            guard let store = try? await self.store() else { return }
            for await element in await observe(store) { continuation.yield(element) }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// The connection in effect where the call is made (what `@Dependency` resolves to).
    static var current: ScheduleConnection {
        @Dependency(\.scheduleConnection) var connection
        return connection
    }
}

private enum ScheduleConnectionKey: DependencyKey {
    static let liveValue = ScheduleConnection.unconfigured
    static let testValue = ScheduleConnection.unconfigured
    /// Previews get a store in memory with sample data around today (no Lua rules).
    static var previewValue: ScheduleConnection { ScheduleConnection(.preview) }
}

extension DependencyValues {
    /// The store behind every live client. Unconfigured until the app sets it (with
    /// `prepareDependencies` early in its life, or `withDependencies` around a scope); in
    /// previews, a sample store in memory.
    public var scheduleConnection: ScheduleConnection {
        get { self[ScheduleConnectionKey.self] }
        set { self[ScheduleConnectionKey.self] = newValue }
    }
}
