import Foundation
import LuaHost
import ShiftCore
import Synchronization

/// How to build a rule engine.
public struct RuleEngineConfiguration: Sendable {
    /// Folders of rule files (`*.lua`, searched recursively; folders named `lib` hold modules for
    /// `require` and `examples` holds opt-in rule sets, so neither is loaded as rules).
    public var directories: [String]
    public var config: RulesConfig
    /// The clock behind `cal.today()`.
    public var now: @Sendable () -> Date
    /// Receives Lua `print` output: (source file, message).
    public var log: @Sendable (_ source: String, _ message: String) -> Void
    /// Sandbox limits per rule call (instruction budget, memory, wall clock).
    public var limits: LuaRuntime.Configuration

    public init(
        directories: [String], config: RulesConfig = RulesConfig(), now: @escaping @Sendable () -> Date = { Date() },
        log: @escaping @Sendable (String, String) -> Void = { _, _ in }, limits: LuaRuntime.Configuration = LuaRuntime.Configuration()
    ) {
        self.directories = directories
        self.config = config
        self.now = now
        self.log = log
        self.limits = limits
    }
}

/// The Lua rule host: loads every rule once, then checks each proposed mutation (the store's
/// validator) and whole schedules (`validate`).
///
/// Thread safety: one Lua state guarded by a mutex; evaluations run one at a time.
public final class RuleEngine: ScheduleValidator {
    public let name: String
    public let rules: [RuleInfo]
    /// The rotation plugins found in the rule folders.
    public let rotations: [RotationInfo]
    private let state: Mutex<EngineState>

    /// Loads and compiles every rule in the configured folders.
    /// - Throws: `RuleError` naming the file (and line) of the first rule that cannot be loaded.
    public init(_ configuration: RuleEngineConfiguration) throws {
        let engine = try EngineState(configuration)
        name = "Lua rules in " + configuration.directories.joined(separator: ", ")
        rules = engine.rules.map(\.info)
        rotations = engine.rotations.map(\.info)
        state = Mutex(engine)
    }

    public func evaluate(_ proposal: Proposal) throws -> [Violation] {
        try state.withLock { try $0.evaluate(proposal, only: nil) }
    }

    public func validate(_ schedule: Schedule) throws -> [Violation] {
        try state.withLock { try $0.validate(schedule, only: nil) }
    }

    /// The shifts a rotation would schedule (not yet applied: wrap them in a batch mutation so the
    /// rules check them).
    public func generateRotation(_ request: RotationRequest, in schedule: Schedule, makeID: @Sendable () -> UUID = { UUID.random() }) throws -> [ScheduledShift] {
        try state.withLock { try $0.generateRotation(request, in: schedule, makeID: makeID) }
    }

    /// Runs the examples of every rule (or of the given ones) and reports each outcome.
    public func runExamples(ruleIDs: Set<String>? = nil) -> [RuleExampleResult] {
        state.withLock { $0.runExamples(ruleIDs: ruleIDs) }
    }
}

/// A rule as loaded.
struct LoadedRule {
    var info: RuleInfo
    var check: LuaRef?
    var validate: LuaRef?
    var params: LuaRef
    var examples: LuaTable?
    var triggers: Set<EntityKind>
    var id: String { info.id }
}

/// Everything behind the engine's mutex: the Lua state and the loaded rules.
final class EngineState {
    let runtime: LuaRuntime
    let api: LuaScheduleAPI
    var rules: [LoadedRule] = []
    var rotations: [LoadedRotation] = []
    let configuration: RuleEngineConfiguration
    /// What the rule running now has reported.
    private var collected: [Violation] = []

    init(_ configuration: RuleEngineConfiguration) throws {
        self.configuration = configuration
        var limits = configuration.limits
        limits.requireRoots = configuration.directories.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        let log = configuration.log
        limits.print = { source, message in log(source, message) }
        do {
            runtime = try LuaRuntime(configuration: limits)
            api = try LuaScheduleAPI(runtime: runtime, now: configuration.now)
            try installPrelude()
        } catch let error as RuleError {
            throw error
        } catch {
            throw RuleError.runtimeSetup(message: "\(error)")
        }
        try loadRules()
    }

    private func installPrelude() throws {
        let prelude = try runtime.loadPlugin(source: Prelude.source, chunkName: "shiftscheduler/prelude.lua")
        for name in ["rule", "rotation", "script"] {
            try runtime.setGlobal(name, try runtime.field(prelude, name))
        }
    }

    // MARK: Loading

    private func loadRules() throws {
        var byID: [String: [String]] = [:]
        var loaded: [LoadedRule] = []
        var loadedRotations: [LoadedRotation] = []
        for file in try ruleFiles() {
            switch try load(file) {
            case let .rule(rule):
                byID[rule.id, default: []].append(file)
                loaded.append(rule)
            case let .rotation(rotation):
                byID["rotation " + rotation.info.id, default: []].append(file)
                loadedRotations.append(rotation)
            case .other: break
            }
        }
        if let (id, files) = byID.first(where: { $0.value.count > 1 }) {
            throw RuleError.duplicateID(id: id, files: files.sorted())
        }
        rules = loaded.sorted { $0.id < $1.id }
        rotations = loadedRotations.sorted { $0.info.id < $1.info.id }
    }

    /// Every `.lua` file of the rule folders, sorted.
    private func ruleFiles() throws -> [String] {
        var files: [String] = []
        let manager = FileManager.default
        for directory in configuration.directories {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw RuleError.directoryNotFound(path: directory)
            }
            let base = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
            // Walk the real folder (a symlinked rules folder is common) but name files by the path given.
            let real = URL(fileURLWithPath: base).resolvingSymlinksInPath().path
            guard let walker = manager.enumerator(atPath: real) else { throw RuleError.directoryNotFound(path: directory) }
            while let relative = walker.nextObject() as? String {
                let components = relative.split(separator: "/")
                if components.dropLast().contains(where: { $0 == "lib" || $0 == "examples" || $0.hasPrefix(".") }) { continue }
                if let last = components.last, last == "lib" || last == "examples" {
                    walker.skipDescendants()
                    continue
                }
                if relative.hasSuffix(".lua") { files.append(base + "/" + relative) }
            }
        }
        return files.sorted()
    }

    private enum Plugin {
        case rule(LoadedRule)
        case rotation(LoadedRotation)
        case other
    }

    /// Loads one plugin file: a rule, a rotation, or another kind (scripts are run, not loaded).
    private func load(_ file: String) throws -> Plugin {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw RuleError.unreadable(file: file, reason: "the file cannot be read")
        }
        let plugin: LuaRef
        do {
            plugin = try runtime.loadPlugin(bytes: [UInt8](data), chunkName: file)
        } catch {
            throw RuleError.load(error, file: file)
        }
        let kind = try runtime.field(plugin, "__plugin")
        guard case let .string(kindName) = kind else {
            throw RuleError.invalidRule(file: file, message: "the file must end with `return rule { … }` (it returned \(try describe(plugin)))")
        }
        switch kindName {
        case "rule": return .rule(try RuleSpec.read(plugin, file: file, runtime: runtime, config: configuration.config))
        case "rotation": return .rotation(try RotationSpec.read(plugin, file: file, runtime: runtime))
        default: return .other
        }
    }

    private func describe(_ ref: LuaRef) throws -> String {
        switch try runtime.value(of: ref) {
        case .nil: "nothing"
        case .table: "a table without rule{ … }"
        case let value: "a \(value.typeName)"
        }
    }

    // MARK: Evaluation

    func evaluate(_ proposal: Proposal, only: String?) throws -> [Violation] {
        api.begin(after: proposal.after, before: proposal.before)
        collected = []
        defer {
            api.end()
            collected = []
        }
        for change in proposal.changes {
            let entity = change.entity
            var changeTable: LuaValue?
            for rule in rules where rule.check != nil && rule.triggers.contains(entity) {
                guard only.map({ rule.id == $0 }) ?? rule.info.enabled else { continue }
                let table = try changeTable ?? sharedChangeTable(change)
                changeTable = table
                try run(rule, rule.check!, [table, api.scheduleObject(), api.reportFunction, .reference(rule.params)])
            }
        }
        return collected
    }

    func validate(_ schedule: Schedule, only: String?) throws -> [Violation] {
        api.begin(after: schedule, before: nil)
        collected = []
        defer {
            api.end()
            collected = []
        }
        let checking = rules.filter { rule in
            rule.check != nil && rule.triggers.contains(.shift) && (only.map { rule.id == $0 } ?? rule.info.enabled)
        }
        if !checking.isEmpty {
            var failure: Error?
            schedule.forEachShift(ShiftQuery()) { shift in
                let change = makeChangeTable(.shift(before: nil, after: shift, reason: nil), validating: true)
                for rule in checking {
                    do {
                        try run(rule, rule.check!, [change, api.scheduleObject(), api.reportFunction, .reference(rule.params)])
                    } catch {
                        failure = error
                        return false
                    }
                }
                return true
            }
            if let failure { throw failure }
        }
        for rule in rules where rule.validate != nil && (only.map { rule.id == $0 } ?? rule.info.enabled) {
            try run(rule, rule.validate!, [api.scheduleObject(), api.reportFunction, .reference(rule.params)])
        }
        return Self.deduplicated(collected)
    }

    /// Calls one of a rule's functions, collecting what it reports.
    private func run(_ rule: LoadedRule, _ function: LuaRef, _ arguments: [LuaValue]) throws {
        api.reportSink = { [unowned self] report in
            collected.append(Violation(
                ruleID: rule.id, severity: report.severity ?? rule.info.severity, message: report.message,
                penalty: report.penalty, shiftID: report.shiftID, personID: report.personID, date: report.date,
                relatedShiftIDs: report.related, source: rule.info.file))
        }
        defer { api.reportSink = nil }
        do {
            _ = try runtime.call(function, arguments)
        } catch {
            throw RuleError.evaluation(error, ruleID: rule.id, file: rule.info.file)
        }
    }

    /// The change table made once and frozen, so every rule gets the same table and none can
    /// alter what the next one sees.
    private func sharedChangeTable(_ change: Change) throws -> LuaValue {
        let ref = try runtime.makeRef(makeChangeTable(change, validating: false))
        try runtime.freeze(ref, name: "change")
        return .reference(ref)
    }

    /// `{ entity = "shift", action = "added", before = …, after = …, reason = … }`.
    private func makeChangeTable(_ change: Change, validating: Bool) -> LuaValue {
        var table: [LuaValue: LuaValue] = [
            .string("entity"): .string(change.entity.rawValue),
            .string("action"): .string(change.action.rawValue),
        ]
        if validating { table[.string("validating")] = .boolean(true) }
        func put(_ before: LuaValue?, _ after: LuaValue?) {
            if let before { table[.string("before")] = before }
            if let after { table[.string("after")] = after }
        }
        switch change {
        case let .shift(before, after, reason):
            put(before.map { api.view($0, .before) }, after.map { api.view($0, .after) })
            if let reason { table[.string("reason")] = .string(reason) }
        case let .person(before, after):
            put(before.map { api.view(person: $0.id, .before) }, after.map { api.view(person: $0.id, .after) })
        case let .shiftType(before, after):
            put(before.map { api.view(type: $0.id, .before) }, after.map { api.view(type: $0.id, .after) })
        case let .location(before, after):
            put(before.map { api.view(location: $0.id, .before) }, after.map { api.view(location: $0.id, .after) })
        case let .demand(before, after):
            put(before.map { Self.demandRow($0) }, after.map { Self.demandRow($0) })
        case let .availability(before, after):
            put(before.map { Self.availabilityRow($0) }, after.map { Self.availabilityRow($0) })
        case let .settings(before, after):
            put(Self.settingsRow(before), Self.settingsRow(after))
        case let .changeLogPruned(removed):
            table[.string("count")] = .integer(Int64(removed))
        }
        table[.string("schedule_before")] = api.scheduleObject(.before)
        return .table(LuaTable(hash: table))
    }

    private static func demandRow(_ item: Demand) -> LuaValue {
        var row: [LuaValue: LuaValue] = [.string("id"): .string(item.id.description), .string("type_id"): .string(item.shiftTypeID.description),
                                         .string("minimum"): .integer(Int64(item.minimum)), .string("optimal"): .integer(Int64(item.optimal))]
        if case let .date(date) = item.day { row[.string("date")] = .string(date.description) }
        if case let .weekday(day) = item.day { row[.string("weekday")] = .integer(Int64(day.rawValue)) }
        if let skill = item.skill { row[.string("skill")] = .string(skill) }
        return .table(LuaTable(hash: row))
    }

    private static func availabilityRow(_ item: Availability) -> LuaValue {
        var row: [LuaValue: LuaValue] = [.string("id"): .string(item.id.description), .string("person_id"): .string(item.personID.description),
                                         .string("from"): .string(item.from.description), .string("to"): .string(item.to.description),
                                         .string("kind"): .string(item.kind.rawValue)]
        if let type = item.shiftTypeID { row[.string("type_id")] = .string(type.description) }
        if let weight = item.weight { row[.string("weight")] = .number(weight) }
        return .table(LuaTable(hash: row))
    }

    private static func settingsRow(_ settings: StoreSettings) -> LuaValue {
        .table(LuaTable(hash: [.string("time_zone"): .string(settings.timeZoneIdentifier),
                               .string("week_start"): .integer(Int64(settings.weekStart.rawValue))]))
    }

    /// In a whole-schedule pass a pair of shifts is seen from both sides; a rule reporting the
    /// same set of shifts twice is kept once.
    static func deduplicated(_ violations: [Violation]) -> [Violation] {
        var seen: Set<[String]> = []
        return violations.filter { violation in
            guard violation.shiftID != nil, !violation.relatedShiftIDs.isEmpty else { return true }
            let shifts = ([violation.shiftID!] + violation.relatedShiftIDs).map(\.description).sorted()
            return seen.insert([violation.ruleID] + shifts).inserted
        }
    }
}
