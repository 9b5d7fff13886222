import Foundation
import LuaHost
import ShiftCore
import Synchronization

/// Everything behind the engine's mutex: the Lua state and the loaded rules.
///
/// The properties every rule call touches are `@exclusivity(unchecked)`: the state is used by one
/// thread at a time (behind the mutex, or leased to one worker) and no access overlaps another
/// (the runtime refuses re-entry), so Swift's dynamic exclusivity checks, a runtime call per
/// access on every call from Lua, would find nothing.
final class EngineState {
    let runtime: LuaRuntime
    let api: LuaScheduleAPI
    var rules: [LoadedRule] = [] {
        didSet {
            checkers = [:]
            checkerLists = [:]
            for rule in rules where rule.check != nil && rule.info.enabled {
                for entity in rule.triggers { checkers[entity, default: []].append(rule) }
            }
        }
    }
    /// For each entity, its checking rules as the driver `each_rule` takes them (check, params,
    /// …), made on first use.
    @exclusivity(unchecked) var checkerLists: [EntityKind: LuaValue] = [:]
    /// The enabled rules with a `check`, by the entity whose changes they check (in id order):
    /// what a mutation runs, without sifting every rule on every mutation.
    @exclusivity(unchecked) var checkers: [EntityKind: [LoadedRule]] = [:]
    var rotations: [LoadedRotation] = []
    let configuration: RuleEngineConfiguration
    /// What the rule running now has reported.
    @exclusivity(unchecked) var collected: [Violation] = []
    /// How many findings this evaluation holds so far, and those since a count.
    var collectedCount: Int { collected.count }
    func collected(since start: Int) -> [Violation] { Array(collected[start...]) }
    /// The rule running now, which `report` calls are attributed to (the rule itself: a copy of
    /// its info would retain and release each of its strings on every call).
    @exclusivity(unchecked) var currentRule: LoadedRule?
    /// Receives `report{…}` for the rule running now (made once, not per call).
    lazy var reportCollector: (LuaScheduleAPI.Report) throws -> Void = { [unowned self] report in try collect(report) }

    /// Demand phase findings by what they depend on (cleared when it grows past the limit).
    @exclusivity(unchecked) var demandMemo: [DemandKey: [Violation]] = [:]
    /// A whole day's demand phase findings by its entries and their counts, for a caller that
    /// gives them (`DayStaffing`, the solver); cleared when it grows past the limit.
    @exclusivity(unchecked) var dayDemandMemo: [DayDemandKey: [Violation]] = [:]
    /// Where the call into Lua running now started in `collected`, what it has reported (message
    /// bytes), and whether a rule went over the limits on one call.
    @exclusivity(unchecked) var callStart = 0
    @exclusivity(unchecked) var reportedBytes = 0
    @exclusivity(unchecked) var reportOverflow = false
    /// The rule whose reports went over the limits first.
    @exclusivity(unchecked) var overflowRule: LoadedRule?
    /// Limits on what one call into a rule may report (`RuleEngineConfiguration.reportsPerCall`,
    /// `reportBytesPerCall`): violations are held in Swift memory, outside the Lua state's cap.
    /// A whole evaluation has no such limit, so a roster with many findings is counted in full.
    var maxReports: Int { configuration.reportsPerCall }
    var maxReportBytes: Int { configuration.reportBytesPerCall }
    static let maxMessageLength = 1_000
    var overflowMessage: String {
        "too many reports in one call (more than \(maxReports) violations or \(Self.size(maxReportBytes)) of messages)"
    }

    /// `32 MiB`, `512 KiB`, `100 bytes`.
    static func size(_ bytes: Int) -> String {
        bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : bytes >= 1 << 10 && bytes % (1 << 10) == 0 ? "\(bytes >> 10) KiB" : "\(bytes) bytes"
    }

    /// Rule ids by file, to tag what a rule prints.
    let ruleNames = RuleNames()

    final class RuleNames: Sendable {
        let names = Mutex<[String: String]>([:])
        func set(_ file: String, _ id: String) { names.withLock { $0[file] = id } }
        func id(of file: String) -> String? { names.withLock { $0[file] } }
    }
    /// The prelude's `each(check, changes, …)`: one call into Lua per rule and chunk of changes.
    var driver: LuaRef!
    /// The prelude's `each_rule(rules, change, …)` and the marker it calls before each rule: one
    /// call into Lua checks one change with every rule.
    var ruleDriver: LuaRef!
    var marker: LuaValue = .nil
    /// The rules of the `each_rule` call running now, which its marks number from 1.
    @exclusivity(unchecked) var markedRules: [LoadedRule] = []
    /// The prelude's `each_person(validate_person, people, …)` and the host functions it hands
    /// each timeline (columns, shift views).
    var personDriver: LuaRef!
    /// The prelude's `each`, reused for the day phase: `validate_day(date, …)` for each date.
    var dayDriver: LuaRef { driver }
    var timelineConstructor: LuaValue = .nil
    /// Changes handed to Lua per driver call: big batches (imports, rotations) cost one call per
    /// rule and chunk instead of one per rule and change, while each call stays within its budget.
    static let chunkSize = 128

    init(_ configuration: RuleEngineConfiguration) throws {
        self.configuration = configuration
        var limits = configuration.limits
        limits.requireRoots = (configuration.directories + configuration.files.map { ($0 as NSString).deletingLastPathComponent })
            .map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        let log = configuration.log
        let names = ruleNames
        // `print` from a rule is tagged with its file and rule id: `rules/x.lua (rule_id): …`.
        limits.print = { source, message in
            let id = names.id(of: source)
            log(id.map { "\(source) (\($0))" } ?? source, EngineState.printable(message))
        }
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

    func installPrelude() throws {
        let prelude = try runtime.loadPlugin(source: Prelude.source, chunkName: "shiftscheduler/prelude.lua")
        guard case let .function(each) = try runtime.field(prelude, "each") else {
            throw RuleError.runtimeSetup(message: "the prelude has no driver")
        }
        driver = each
        guard case let .function(eachPerson) = try runtime.field(prelude, "each_person") else {
            throw RuleError.runtimeSetup(message: "the prelude has no person driver")
        }
        personDriver = eachPerson
        guard case let .function(eachRule) = try runtime.field(prelude, "each_rule") else {
            throw RuleError.runtimeSetup(message: "the prelude has no rule driver")
        }
        ruleDriver = eachRule
        marker = .function(try runtime.makeMarker())
        timelineConstructor = try api.makeTimelineConstructor()
        for name in ["rule", "rotation", "script"] {
            try runtime.setGlobal(name, try runtime.field(prelude, name))
        }
    }

    // MARK: Loading

    func loadRules() throws {
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
        for rule in rules { ruleNames.set(rule.info.file, rule.id) }
        rotations = loadedRotations.sorted { $0.info.id < $1.info.id }
    }

    /// Every `.lua` file of the rule folders, sorted.
    func ruleFiles() throws -> [String] {
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
        let standardized = Set(files.map { URL(fileURLWithPath: $0).standardizedFileURL.path })
        files += configuration.files.filter { !standardized.contains(URL(fileURLWithPath: $0).standardizedFileURL.path) }
        return files.sorted()
    }

    enum Plugin {
        case rule(LoadedRule)
        case rotation(LoadedRotation)
        case other
    }

    /// Loads one plugin file: a rule, a rotation, or another kind (scripts are run, not loaded).
    func load(_ file: String) throws -> Plugin {
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

    func describe(_ ref: LuaRef) throws -> String {
        switch try runtime.value(of: ref) {
        case .nil: "nothing"
        case .table: "a table without rule{ … }"
        case .reference: "a \(try runtime.typeName(of: ref))"
        case let value: "a \(value.typeName)"
        }
    }

}
