import Foundation
import LuaHost
import ShiftCore
import Synchronization

/// How to build a rule engine.
public struct RuleEngineConfiguration: Sendable {
    /// Folders of rule files (`*.lua`, searched recursively; folders named `lib` hold modules for
    /// `require` and `examples` holds opt-in rule sets, so neither is loaded as rules).
    public var directories: [String]
    /// Rule files loaded besides the folders' (`shiftctl rules test FILE.lua`); `require` also
    /// looks in each one's folder.
    public var files: [String] = []
    public var config: RulesConfig
    /// The clock behind `cal.today()`.
    public var now: @Sendable () -> Date
    /// Receives Lua `print` output: (source file, message).
    public var log: @Sendable (_ source: String, _ message: String) -> Void
    /// Sandbox limits per rule call (instruction budget, memory, wall clock).
    public var limits: LuaRuntime.Configuration
    /// How many Lua states may check a large batch or a whole schedule side by side (one per
    /// core by default). Extra states are made on first use, so a single change pays for one.
    public var workers: Int = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))
    /// Whether `validate` runs a rule's person phase (`validate_person`) where it has a `check`
    /// too. Off, such a rule's `check` runs over each shift instead: the slow path the person
    /// phase must agree with (the test suite compares the two). A rule whose only whole-schedule
    /// check is its person phase runs it either way.
    public var personPhase = true

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
    /// Whether any loaded rule is enabled: false when the folders held no rules, or every rule
    /// is switched off in `RulesConfig.disabled`. Such an engine checks nothing.
    public var hasEnabledRules: Bool { rules.contains(where: \.enabled) }
    /// The rotation plugins found in the rule folders.
    public let rotations: [RotationInfo]
    /// What the engine was built with (script plugins run with the same folders, clock and log).
    public let configuration: RuleEngineConfiguration
    private let state: Mutex<EngineState>
    /// Extra Lua states for parallel work, made on first use and reused.
    private let pool: Mutex<[EngineState]> = Mutex([])
    /// Batches smaller than this are checked by one state: splitting would cost more than it saves.
    static let parallelThreshold = 4 * EngineState.chunkSize

    /// Loads and compiles every rule in the configured folders.
    /// - Throws: `RuleError` naming the file (and line) of the first rule that cannot be loaded.
    public init(_ configuration: RuleEngineConfiguration) throws {
        let engine = try EngineState(configuration)
        name = "Lua rules in " + configuration.directories.joined(separator: ", ")
        rules = engine.rules.map(\.info)
        rotations = engine.rotations.map(\.info)
        self.configuration = configuration
        state = Mutex(engine)
    }

    public func evaluate(_ proposal: Proposal) throws -> [Violation] {
        let count = proposal.changes.count
        let clearance = try clearance(for: proposal)
        guard configuration.workers > 1, count >= Self.parallelThreshold else {
            return try state.withLock { try $0.evaluate(proposal, only: nil, clearance: clearance) }
        }
        // A big batch: contiguous slices of its changes, each checked by its own Lua state
        // against the same proposed schedule; results joined in slice order (deterministic).
        let slices = Self.slices(count, workers: configuration.workers)
        let results = try parallel(slices.count) { index, engine in
            let changes = Array(proposal.changes[slices[index]])
            return try engine.evaluate(Proposal(
                mutation: proposal.mutation, changes: changes, before: proposal.before, after: proposal.after,
                user: proposal.user, timestamp: proposal.timestamp), only: nil, clearance: clearance)
        }
        return results.flatMap { $0 }
    }

    /// A batch that adds much of some people's rosters (a rotation, an import) is first checked
    /// person by person: each rule's person phase runs over the proposed timelines of the people
    /// it adds at least `1 / clearanceShare` of the shifts of. Where a phase reports nothing for a
    /// person, its rule's `check` would report nothing for their shifts either (the agreement
    /// `validate` relies on), so the adds are not checked one by one; everything else is. What is
    /// reported is therefore exactly what the checks alone would report, in the same order.
    func clearance(for proposal: Proposal) throws -> Clearance? {
        guard configuration.personPhase, proposal.changes.count > 1 else { return nil }
        guard state.withLock({ !$0.clearingRules(only: nil).isEmpty }) else { return nil }
        var added: [PersonID: Int] = [:]
        for change in proposal.changes {
            if case let .shift(nil, shift?, _) = change, let person = shift.personID { added[person, default: 0] += 1 }
        }
        let people = proposal.after.people.compactMap { person -> (PersonID, Int)? in
            guard let count = added[person.id] else { return nil }
            let shifts = proposal.after.shiftCount(of: person.id)
            return count * Self.clearanceShare >= shifts ? (person.id, shifts) : nil
        }
        guard !people.isEmpty else { return nil }
        let groups = EngineState.personGroups(people)
        let total = groups.reduce(0) { $0 + $1.shifts }
        guard configuration.workers > 1, total >= Self.parallelThreshold else {
            return try state.withLock { try $0.clearance(proposal.after, only: nil, groups: groups[...]) }
        }
        let slices = Self.slices(groups.map(\.shifts), workers: configuration.workers)
        let parts = try parallel(slices.count) { index, engine in
            try engine.clearance(proposal.after, only: nil, groups: groups[slices[index]])
        }
        return parts.dropFirst().reduce(into: parts[0]) { $0.merge($1) }
    }

    /// A person's adds are checked by the person phases when they are at least this share (1/8)
    /// of their shifts: a phase costs a fraction of a check per shift, but it reads them all.
    static let clearanceShare = 8

    public func validate(_ schedule: Schedule) throws -> [Violation] {
        guard configuration.workers > 1, schedule.shiftCount >= Self.parallelThreshold else {
            return try state.withLock { try $0.validate(schedule, only: nil) }
        }
        // Each part in slices checked side by side, one Lua state per worker, joined in slice
        // order: slices are whole chunks of shifts and whole groups of people, so the result is
        // in the order one state gives.
        var perShift: [Violation] = []
        if state.withLock({ !$0.perShiftRules(only: nil).isEmpty }) {
            let shifts = schedule.shifts()
            let slices = Self.slices(shifts.count, workers: configuration.workers)
            perShift = try parallel(slices.count) { index, engine in
                try engine.validate(schedule, only: nil, part: .shifts(shifts[slices[index]]))
            }.flatMap { $0 }
        }
        var people: [Violation] = []
        if state.withLock({ !$0.personPhaseRules(only: nil).isEmpty }) {
            let groups = EngineState.personGroups(schedule)
            let slices = Self.slices(groups.map(\.shifts), workers: configuration.workers)
            people = try parallel(slices.count) { index, engine in
                try engine.validate(schedule, only: nil, part: .people(groups[slices[index]]))
            }.flatMap { $0 }
        }
        let days = try state.withLock { try $0.validate(schedule, only: nil, part: .days) }
        let phase = try state.withLock { try $0.validate(schedule, only: nil, part: .wholeSchedule) }
        let parts = EngineState.deduplicated([perShift, phase])
        return parts[0] + people + days + parts[1]
    }

    /// Contiguous ranges of items of about equal total weight, at most one per worker.
    static func slices(_ weights: [Int], workers: Int) -> [Range<Int>] {
        let total = weights.reduce(0, +)
        guard !weights.isEmpty else { return [] }
        var slices: [Range<Int>] = []
        var start = 0
        var sum = 0
        for (index, weight) in weights.enumerated() {
            sum += weight
            if slices.count < workers - 1, sum * workers >= total * (slices.count + 1) {
                slices.append(start..<index + 1)
                start = index + 1
            }
        }
        if start < weights.count { slices.append(start..<weights.count) }
        return slices
    }

    /// Contiguous ranges of whole chunks, one per worker.
    static func slices(_ count: Int, workers: Int) -> [Range<Int>] {
        guard count > 0 else { return [] }
        let chunks = (count + EngineState.chunkSize - 1) / EngineState.chunkSize
        let perWorker = (chunks + workers - 1) / workers * EngineState.chunkSize
        return stride(from: 0, to: count, by: perWorker).map { $0..<min($0 + perWorker, count) }
    }

    /// Runs `work` for each slice index on its own Lua state (the primary one for slice 0), side
    /// by side, and returns the results in slice order; the first error wins.
    private func parallel<T: Sendable>(_ count: Int, _ work: @Sendable (Int, EngineState) throws -> T) throws -> [T] {
        let extras = checkOut(count - 1)
        defer { checkIn(extras) }
        // Worker w takes slices w, w + workers, …: if an extra state could not be made, the
        // slices still all run, on fewer states.
        let workers = extras.count + 1
        let results = Mutex<[Int: Result<T, any Error>]>([:])
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            for index in stride(from: worker, to: count, by: workers) {
                let outcome: Result<T, any Error>
                if worker == 0 {
                    outcome = state.withLock { engine in Result { try work(index, engine) } }
                } else {
                    outcome = Result { try work(index, extras[worker - 1].state) }
                }
                results.withLock { $0[index] = outcome }
            }
        }
        let collected = results.withLock { $0 }
        return try (0..<count).map { try collected[$0]!.get() }
    }

    /// Extra states for one parallel run: idle ones from the pool, new ones beyond that.
    private func checkOut(_ count: Int) -> [StateLease] {
        guard count > 0 else { return [] }
        var leases = pool.withLock { idle -> [StateLease] in
            let taken = idle.suffix(count).map(StateLease.init)
            idle.removeLast(taken.count)
            return taken
        }
        while leases.count < count, let fresh = try? EngineState(configuration) { leases.append(StateLease(fresh)) }
        return leases
    }

    private func checkIn(_ leases: [StateLease]) {
        pool.withLock { idle in idle.append(contentsOf: leases.map(\.state)) }
    }

    /// The shifts a rotation would schedule (not yet applied: wrap them in a batch mutation so the
    /// rules check them).
    public func generateRotation(_ request: RotationRequest, in schedule: Schedule, makeID: @Sendable () -> UUID = { UUID.random() }) throws -> [ScheduledShift] {
        try state.withLock { try $0.generateRotation(request, in: schedule, makeID: makeID) }
    }

    /// Rule calls run as trials so far on every Lua state of the engine, and how many of them
    /// were run again with their instructions counted (see `LuaRuntime.call(_:_:rewind:)`).
    public var trialCounts: (trials: Int, reruns: Int) {
        let counts = [state.withLock { $0.runtime.trialCounts }] + pool.withLock { $0.map(\.runtime.trialCounts) }
        return counts.reduce((0, 0)) { ($0.0 + $1.trials, $0.1 + $1.reruns) }
    }

    /// Runs the examples of every rule (or of the given ones) and reports each outcome.
    public func runExamples(ruleIDs: Set<String>? = nil) -> [RuleExampleResult] {
        state.withLock { $0.runExamples(ruleIDs: ruleIDs) }
    }
}

/// An extra Lua state checked out of the engine's pool for one parallel run.
///
/// `@unchecked Sendable`: a lease is owned by exactly one worker between `checkOut` and
/// `checkIn` (the pool hands each state to one lease; the worker that holds it is the only code
/// that touches it until the run ends), so the state is never used from two threads at once.
struct StateLease: @unchecked Sendable {
    let state: EngineState
    init(_ state: EngineState) { self.state = state }
}

/// What a batch's person phases cleared: for each rule with one, the people it reported nothing
/// for. Shifts the batch adds to a cleared person need no `check` by that rule.
struct Clearance: Sendable {
    var cleared: [String: Set<PersonID>] = [:]

    /// Whether `rule` may skip its check of `change`.
    func skips(_ rule: String, _ change: Change) -> Bool {
        guard case let .shift(nil, shift?, _) = change, let person = shift.personID else { return false }
        return cleared[rule]?.contains(person) ?? false
    }

    mutating func merge(_ other: Clearance) {
        cleared.merge(other.cleared) { $0.union($1) }
    }
}

/// A rule as loaded into one Lua state. A class: the engine hands rules around on every
/// evaluation, and a struct of this size would be copied field by field each time.
final class LoadedRule {
    let info: RuleInfo
    let check: LuaRef?
    let validate: LuaRef?
    let validatePerson: LuaRef?
    let validateDay: LuaRef?
    let validateDemand: LuaRef?
    /// Replaced while one of the rule's examples runs with parameters of its own.
    var params: LuaRef
    let examples: LuaTable?
    let triggers: Set<EntityKind>
    var id: String { info.id }

    init(info: RuleInfo, check: LuaRef?, validate: LuaRef?, validatePerson: LuaRef?, validateDay: LuaRef?, validateDemand: LuaRef?,
         params: LuaRef, examples: LuaTable?, triggers: Set<EntityKind>) {
        self.info = info
        self.check = check
        self.validate = validate
        self.validatePerson = validatePerson
        self.validateDay = validateDay
        self.validateDemand = validateDemand
        self.params = params
        self.examples = examples
        self.triggers = triggers
    }
}

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
    @exclusivity(unchecked) private var checkerLists: [EntityKind: LuaValue] = [:]
    /// The enabled rules with a `check`, by the entity whose changes they check (in id order):
    /// what a mutation runs, without sifting every rule on every mutation.
    @exclusivity(unchecked) private var checkers: [EntityKind: [LoadedRule]] = [:]
    var rotations: [LoadedRotation] = []
    let configuration: RuleEngineConfiguration
    /// What the rule running now has reported.
    @exclusivity(unchecked) private var collected: [Violation] = []
    /// How many findings this evaluation holds so far, and those since a count.
    var collectedCount: Int { collected.count }
    func collected(since start: Int) -> [Violation] { Array(collected[start...]) }
    /// The rule running now, which `report` calls are attributed to (the rule itself: a copy of
    /// its info would retain and release each of its strings on every call).
    @exclusivity(unchecked) private var currentRule: LoadedRule?
    /// Receives `report{…}` for the rule running now (made once, not per call).
    private lazy var reportCollector: (LuaScheduleAPI.Report) throws -> Void = { [unowned self] report in try collect(report) }

    private func collect(_ report: LuaScheduleAPI.Report) throws {
        guard let running = currentRule ?? markedRule else { throw LuaScriptError("report can only be called while a rule runs") }
        let rule = running.info
        // Reports live in Swift memory, outside the Lua state's cap: a rule reporting in a loop
        // is stopped (and stays stopped for the rest of the call, even if it catches the error).
        reportedBytes += report.message.utf8.count + 64
        guard collected.count < Self.maxReports, reportedBytes <= Self.maxReportBytes else {
            if !reportOverflow { overflowRule = running }
            reportOverflow = true
            throw LuaScriptError(Self.overflowMessage)
        }
        collected.append(Violation(
            ruleID: rule.id, severity: report.severity ?? rule.severity, message: report.isOneLine ? report.message : Self.oneLine(report.message),
            penalty: report.penalty, shiftID: report.shiftID, personID: report.personID, date: report.date,
            relatedShiftIDs: report.related, source: report.file ?? rule.file, line: report.line, shiftTypeID: report.shiftTypeID))
    }
    /// What has been reported in this evaluation, and whether a rule went over the limits.
    @exclusivity(unchecked) private var reportedBytes = 0
    @exclusivity(unchecked) private var reportOverflow = false
    /// The rule whose reports went over the limits first.
    @exclusivity(unchecked) private var overflowRule: LoadedRule?
    /// Limits on what one evaluation may report (violations are held in Swift memory).
    static let maxReports = 200_000
    static let maxReportBytes = 32 << 20
    static let maxMessageLength = 1_000
    static let overflowMessage = "too many reports (more than \(maxReports) violations or \(maxReportBytes >> 20) MiB of messages in one evaluation)"

    /// A violation message as one printable line: control characters (line breaks, terminal
    /// escape sequences) become spaces and very long messages are cut.
    static func oneLine(_ message: String) -> String {
        // The common case, short printable ASCII, is returned as it is.
        // (Over the string's own bytes: walking a `String.UTF8View` costs about 20 instructions a byte.)
        let bytes = message.utf8
        if bytes.count <= maxMessageLength,
           bytes.withContiguousStorageIfAvailable(isOneLine) ?? bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return message }
        var scalars = String.UnicodeScalarView()
        var count = 0
        for scalar in message.unicodeScalars {
            count += 1
            if count > maxMessageLength {
                scalars.append("…")
                break
            }
            scalars.append(scalar.properties.generalCategory == .control ? " " : scalar)
        }
        return String(scalars)
    }

    /// Whether a message is one line already: at most `maxMessageLength` bytes, each printable
    /// ASCII (0x20 to 0x7E). Eight bytes at a time: a byte is printable when its high bit is clear
    /// and stays clear once 0x20 is taken from it (none below 0x20) or 1 added (not 0x7F); a
    /// borrow only ever runs on from a byte that is not printable.
    static func isOneLine(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count <= maxMessageLength else { return false }
        let high: UInt64 = 0x8080_8080_8080_8080, spaces: UInt64 = 0x2020_2020_2020_2020, ones: UInt64 = 0x0101_0101_0101_0101
        var i = 0
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while i + 8 <= bytes.count {
                let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                if (word | (word &- spaces) | (word &+ ones)) & high != 0 { return false }
                i += 8
            }
        }
        while i < bytes.count {
            guard bytes[i] >= 0x20, bytes[i] < 0x7F else { return false }
            i += 1
        }
        return true
    }

    /// Rule ids by file, to tag what a rule prints.
    private let ruleNames = RuleNames()

    final class RuleNames: Sendable {
        private let names = Mutex<[String: String]>([:])
        func set(_ file: String, _ id: String) { names.withLock { $0[file] = id } }
        func id(of file: String) -> String? { names.withLock { $0[file] } }
    }
    /// The prelude's `each(check, changes, …)`: one call into Lua per rule and chunk of changes.
    private var driver: LuaRef!
    /// The prelude's `each_rule(rules, change, …)` and the marker it calls before each rule: one
    /// call into Lua checks one change with every rule.
    private var ruleDriver: LuaRef!
    private var marker: LuaValue = .nil
    /// The rules of the `each_rule` call running now, which its marks number from 1.
    @exclusivity(unchecked) private var markedRules: [LoadedRule] = []
    /// The prelude's `each_person(validate_person, people, …)` and the host functions it hands
    /// each timeline (columns, shift views).
    private var personDriver: LuaRef!
    /// The prelude's `each`, reused for the day phase: `validate_day(date, …)` for each date.
    private var dayDriver: LuaRef { driver }
    private var timelineConstructor: LuaValue = .nil
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

    private func installPrelude() throws {
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
        for rule in rules { ruleNames.set(rule.info.file, rule.id) }
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
        let standardized = Set(files.map { URL(fileURLWithPath: $0).standardizedFileURL.path })
        files += configuration.files.filter { !standardized.contains(URL(fileURLWithPath: $0).standardizedFileURL.path) }
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
        case .reference: "a \(try runtime.typeName(of: ref))"
        case let value: "a \(value.typeName)"
        }
    }

    // MARK: Evaluation

    func evaluate(_ proposal: Proposal, only: String?, clearance: Clearance? = nil) throws -> [Violation] {
        api.begin(after: proposal.after, before: proposal.before)
        collected = []
        reportedBytes = 0
        reportOverflow = false
        overflowRule = nil
        defer {
            api.end()
            collected = []
        }
        // The common case — one change — skips grouping; a batch groups its changes by entity.
        let groups: [(EntityKind, [Change])]
        if proposal.changes.count == 1 {
            groups = [(proposal.changes[0].entity, proposal.changes)]
        } else {
            var entities: [EntityKind] = []
            var changesByEntity: [EntityKind: [Change]] = [:]
            for change in proposal.changes {
                if changesByEntity[change.entity] == nil { entities.append(change.entity) }
                changesByEntity[change.entity, default: []].append(change)
            }
            groups = entities.map { ($0, changesByEntity[$0]!) }
        }
        var schedule: LuaValue?
        for (entity, changes) in groups {
            let checking = only.map { only in
                rules.filter { $0.check != nil && $0.triggers.contains(entity) && $0.id == only }
            } ?? checkers[entity, default: []]
            guard !checking.isEmpty else { continue }
            if changes.count == 1, only == nil, clearance == nil, checking.count > 1 {
                // One change (a mutation's usual case) that several rules check: every rule's
                // check in one call into Lua (each with a budget of its own), with one change
                // object, so the fields one rule reads are remembered for the next.
                let object = api.changeObject(changes[0], validating: false)
                try runEach(checking, entity, [object, schedule ?? api.scheduleObject(), api.reportFunction, marker])
                continue
            }
            // Values used by several calls are stored once; for a single call they are passed as
            // they are (a registry reference costs more than pushing them once).
            let shared = checking.count > 1 || changes.count > Self.chunkSize
            if schedule == nil {
                schedule = shared ? .reference(try runtime.makeRef(api.scheduleObject())) : api.scheduleObject()
            }
            if changes.count == 1 {
                let object = api.changeObject(changes[0], validating: false)
                let change = shared ? .reference(try runtime.makeRef(object)) : object
                for rule in checking where !(clearance?.skips(rule.id, changes[0]) ?? false) {
                    try run(rule, rule.check!, [change, schedule!, api.reportFunction, .reference(rule.params)])
                }
                continue
            }
            for start in stride(from: 0, to: changes.count, by: Self.chunkSize) {
                let chunk = changes[start..<min(start + Self.chunkSize, changes.count)]
                // Change objects are made once, for the changes some rule checks; the whole
                // chunk's list once, shared by the rules that check all of it.
                var objects = [LuaValue?](repeating: nil, count: chunk.count)
                func object(_ index: Int) -> LuaValue {
                    let offset = index - chunk.startIndex
                    if let object = objects[offset] { return object }
                    let object = api.changeObject(chunk[index], validating: false)
                    objects[offset] = object
                    return object
                }
                var whole: LuaValue?
                for rule in checking {
                    // The changes this rule's person phase did not clear (all of them without one).
                    let kept = clearance.map { clearance in chunk.indices.filter { !clearance.skips(rule.id, chunk[$0]) } }
                    let list: LuaValue
                    if let kept, kept.count < chunk.count {
                        guard !kept.isEmpty else { continue }
                        list = .table(LuaTable(array: kept.map(object)))
                    } else if let whole {
                        list = whole
                    } else {
                        let table = LuaValue.table(LuaTable(array: chunk.indices.map(object)))
                        list = shared ? try changeList(table) : table
                        whole = list
                    }
                    try run(rule, driver, [.function(rule.check!), list, schedule!, api.reportFunction, .reference(rule.params)])
                }
            }
        }
        return collected
    }

    /// Whole-schedule checks, all on this state: every shift's `check` (rules without a person
    /// phase), each person's timeline (`validate_person`), then each rule's `validate`.
    func validate(_ schedule: Schedule, only: String?) throws -> [Violation] {
        let groups = Self.personGroups(schedule)
        return try evaluating(schedule) {
            try checkEachShift(schedule, only: only, slice: nil)
            let perShift = collected.count
            try checkPeople(schedule, rules: personPhaseRules(only: only), groups: groups[...])
            let days = try planningDays(schedule)[...]
            try checkDays(schedule, rules: dayPhaseRules(only: only), days: days)
            try checkDemand(schedule, rules: demandPhaseRules(only: only), days: days)
            let scoped = collected.count
            try wholeSchedulePhase(schedule, only: only)
            let parts = Self.deduplicated([Array(collected[..<perShift]), Array(collected[scoped...])])
            return parts[0] + collected[perShift..<scoped] + parts[1]
        }
    }

    /// One part of a whole-schedule check on this state (the engine runs parts side by side).
    enum ValidationPart {
        /// `check` on these shifts, as if each had just been added.
        case shifts(ArraySlice<ScheduledShift>)
        /// `validate_person` for these groups of people.
        case people(ArraySlice<PersonGroup>)
        /// `validate_day` and `validate_demand` for every planning day.
        case days
        /// Each rule's `validate`.
        case wholeSchedule
    }

    func validate(_ schedule: Schedule, only: String?, part: ValidationPart) throws -> [Violation] {
        try evaluating(schedule) {
            switch part {
            case let .shifts(slice): try checkEachShift(schedule, only: only, slice: slice)
            case let .people(groups): try checkPeople(schedule, rules: personPhaseRules(only: only), groups: groups)
            case .days:
                let days = try planningDays(schedule)[...]
                try checkDays(schedule, rules: dayPhaseRules(only: only), days: days)
                try checkDemand(schedule, rules: demandPhaseRules(only: only), days: days)
            case .wholeSchedule: try wholeSchedulePhase(schedule, only: only)
            }
            return collected
        }
    }

    /// Runs `body` as one evaluation of `schedule`: views and timelines made in it go stale after.
    func evaluating<T>(_ schedule: Schedule, _ body: () throws -> T) throws -> T {
        api.begin(after: schedule, before: nil)
        collected = []
        reportedBytes = 0
        reportOverflow = false
        overflowRule = nil
        defer {
            api.end()
            collected = []
        }
        return try body()
    }

    private func hasPersonPhase(_ rule: LoadedRule) -> Bool {
        rule.validatePerson != nil && (configuration.personPhase || rule.check == nil)
    }

    /// The rules whose person phase runs in `validate`.
    func personPhaseRules(only: String?) -> [LoadedRule] {
        rules.filter { hasPersonPhase($0) && enabled($0, only: only) }
    }

    /// The rules whose day phase runs in `validate`.
    func dayPhaseRules(only: String?) -> [LoadedRule] {
        rules.filter { $0.validateDay != nil && enabled($0, only: only) }
    }

    /// The rules whose demand phase runs in `validate`.
    func demandPhaseRules(only: String?) -> [LoadedRule] {
        rules.filter { $0.validateDemand != nil && enabled($0, only: only) }
    }

    /// The days of a schedule's day and demand phases (`Schedule.planningDays`); none without
    /// such phases, so a bad horizon setting fails only the rules that read it.
    func planningDays(_ schedule: Schedule) throws -> [LocalDate] {
        rules.contains { $0.validateDay != nil || $0.validateDemand != nil } ? try schedule.planningDays() : []
    }

    /// The rules whose person phase can spare their checks of a batch's adds: those that check
    /// shifts at all.
    func clearingRules(only: String?) -> [LoadedRule] {
        personPhaseRules(only: only).filter { $0.check != nil && $0.triggers.contains(.shift) }
    }

    private func enabled(_ rule: LoadedRule, only: String?) -> Bool {
        only.map { rule.id == $0 } ?? rule.info.enabled
    }

    /// The rules whose `check` runs on every existing shift in `validate`: those triggered by
    /// shifts that have no person phase (which covers them).
    func perShiftRules(only: String?) -> [LoadedRule] {
        rules.filter { rule in
            rule.check != nil && !hasPersonPhase(rule) && rule.triggers.contains(.shift) && enabled(rule, only: only)
        }
    }

    /// Every shift's (or the slice's) `check`, in schedule order, 128 shifts per call into Lua.
    func checkEachShift(_ schedule: Schedule, only: String?, slice: ArraySlice<ScheduledShift>?) throws {
        let checking = perShiftRules(only: only)
        guard !checking.isEmpty else { return }
        let scheduleObject = LuaValue.reference(try runtime.makeRef(api.scheduleObject()))
        var failure: Error?
        var pending: [LuaValue] = []
        func flush() throws {
            guard !pending.isEmpty else { return }
            let tables = try changeList(.table(LuaTable(array: pending)))
            pending.removeAll(keepingCapacity: true)
            for rule in checking {
                try run(rule, driver, [.function(rule.check!), tables, scheduleObject, api.reportFunction, .reference(rule.params)])
            }
        }
        func add(_ shift: ScheduledShift) -> Bool {
            pending.append(api.changeObject(.shift(before: nil, after: shift, reason: nil), validating: true))
            guard pending.count == Self.chunkSize else { return true }
            do { try flush() } catch {
                failure = error
                return false
            }
            return true
        }
        if let slice {
            for shift in slice where !add(shift) { break }
        } else {
            schedule.forEachShift(ShiftQuery(), add)
        }
        if let failure { throw failure }
        try flush()
    }

    /// People in schedule order (by name, then id), in groups of about `personGroupShifts`
    /// shifts: one call into Lua per rule and group. The grouping depends on the schedule alone,
    /// so results come out in the same order however many states share the work.
    static func personGroups(_ schedule: Schedule) -> [PersonGroup] {
        personGroups(schedule.people.map { ($0.id, schedule.shiftCount(of: $0.id)) })
    }

    /// These people (with their shift counts), in this order, grouped as above.
    static func personGroups(_ people: [(PersonID, shifts: Int)]) -> [PersonGroup] {
        var groups: [PersonGroup] = []
        var group = PersonGroup()
        for (person, shifts) in people {
            group.people.append(person)
            group.shifts += shifts + 1
            if group.shifts >= personGroupShifts {
                groups.append(group)
                group = PersonGroup()
            }
        }
        if !group.people.isEmpty { groups.append(group) }
        return groups
    }

    struct PersonGroup: Sendable {
        var people: [PersonID] = []
        /// The group's shifts plus one per person: the work it stands for.
        var shifts = 0
    }

    /// Shifts (plus one per person) per person-phase call: a call's instruction budget covers a
    /// rule's sweep over this many shifts with room to spare.
    static let personGroupShifts = 4_096

    /// The people of these groups each person phase reports nothing for (on this state).
    func clearance(_ schedule: Schedule, only: String?, groups: ArraySlice<PersonGroup>) throws -> Clearance {
        var clearance = Clearance()
        try evaluating(schedule) {
            try checkPeople(schedule, rules: clearingRules(only: only), groups: groups) { rule, group in
                // A finding marks its person; one naming nobody of the group marks them all.
                var reported: Set<PersonID> = []
                let members = Set(group.people)
                for finding in self.collected {
                    guard let person = finding.personID, members.contains(person) else {
                        reported = members
                        break
                    }
                    reported.insert(person)
                }
                clearance.cleared[rule.id, default: []].formUnion(members.subtracting(reported))
                // Only whether something was found matters: the findings are dropped, so a
                // roster's old violations do not count against the report limits.
                self.collected.removeAll(keepingCapacity: true)
                self.reportedBytes = 0
            }
        }
        return clearance
    }

    /// `validate_person(person, shifts, schedule, report, params)` for each person of the groups;
    /// `ran` after each rule's call on a group.
    func checkPeople(
        _ schedule: Schedule, rules phased: [LoadedRule], groups: ArraySlice<PersonGroup>, ran: ((LoadedRule, PersonGroup) -> Void)? = nil
    ) throws {
        guard !phased.isEmpty else { return }
        let scheduleObject = LuaValue.reference(try runtime.makeRef(api.scheduleObject()))
        for group in groups {
            var list: [LuaValue] = []
            list.reserveCapacity(group.people.count * 3)
            for person in group.people {
                let shifts = schedule.timeline(of: person)
                let (view, handle) = api.registerTimeline(person, shifts)
                list.append(view)
                list.append(.integer(handle))
                list.append(.integer(Int64(shifts.count)))
            }
            let people = phased.count > 1 ? try changeList(.table(LuaTable(array: list))) : .table(LuaTable(array: list))
            for rule in phased {
                try run(rule, personDriver, [
                    .function(rule.validatePerson!), people, scheduleObject, api.reportFunction, .reference(rule.params),
                    timelineConstructor,
                ])
                ran?(rule, group)
            }
            api.dropTimelines()
        }
    }

    /// `validate_day(date, schedule, report, params)` for each of the days, `dayChunk` days per
    /// call into Lua; `ran` after each rule's call on a chunk.
    func checkDays(
        _ schedule: Schedule, rules phased: [LoadedRule], days: ArraySlice<LocalDate>, ran: ((LoadedRule) -> Void)? = nil
    ) throws {
        guard !phased.isEmpty, !days.isEmpty else { return }
        let scheduleObject = LuaValue.reference(try runtime.makeRef(api.scheduleObject()))
        for start in stride(from: days.startIndex, to: days.endIndex, by: Self.dayChunk) {
            let chunk = days[start..<min(start + Self.dayChunk, days.endIndex)]
            let table = LuaValue.table(LuaTable(array: chunk.map { .string($0.description) }))
            let list = phased.count > 1 ? try changeList(table) : table
            for rule in phased {
                try run(rule, dayDriver, [.function(rule.validateDay!), list, scheduleObject, api.reportFunction, .reference(rule.params)])
                ran?(rule)
            }
        }
    }

    /// Days per day-phase call: a call's budget covers a month of a rule's days with room.
    static let dayChunk = 31

    /// `validate_demand(entry, staffed, report, params)` for each demand entry on each of the
    /// days: `entry` as `schedule:demand` gives it, with `date` the day judged and `in_period`
    /// whether that day is in the planning period (`schedule:horizon()`); `staffed` is
    /// `Schedule.staffed`.
    ///
    /// The phase sees no schedule, so what it reports depends on its arguments alone and is
    /// remembered: the same rule, parameters, entry, day and count give the same findings
    /// without a call into Lua. The solver re-checks the days a move touches, and a move that
    /// only changes who works leaves every count as it was.
    func checkDemand(_ schedule: Schedule, rules phased: [LoadedRule], days: ArraySlice<LocalDate>) throws {
        guard !phased.isEmpty, !days.isEmpty else { return }
        let period = try schedule.planningPeriod()
        for day in days {
            let inPeriod = period?.contains(day) ?? false
            for entry in schedule.demand(on: day) {
                let staffed = schedule.staffed(entry, on: day)
                for rule in phased {
                    let key = DemandKey(
                        rule: ObjectIdentifier(rule), params: ObjectIdentifier(rule.params), demand: entry, day: day,
                        staffed: staffed, inPeriod: inPeriod)
                    if let found = demandMemo[key] {
                        collected.append(contentsOf: found)
                        continue
                    }
                    var row = api.demandRow(entry)
                    row[.string("date")] = .string(day.description)
                    row[.string("in_period")] = .boolean(inPeriod)
                    let start = collected.count
                    try run(rule, rule.validateDemand!, [.table(LuaTable(hash: row)), .integer(Int64(staffed)), api.reportFunction, .reference(rule.params)])
                    if demandMemo.count >= Self.demandMemoLimit { demandMemo.removeAll(keepingCapacity: true) }
                    demandMemo[key] = Array(collected[start...])
                }
            }
        }
    }

    /// What a demand phase call depends on.
    private struct DemandKey: Hashable {
        let rule: ObjectIdentifier
        let params: ObjectIdentifier
        let demand: Demand
        let day: LocalDate
        let staffed: Int
        let inPeriod: Bool
    }
    /// Demand phase findings by what they depend on (cleared when it grows past the limit).
    @exclusivity(unchecked) private var demandMemo: [DemandKey: [Violation]] = [:]
    static let demandMemoLimit = 100_000

    /// Each rule's `validate(schedule, report, params)`.
    func wholeSchedulePhase(_ schedule: Schedule, only: String?) throws {
        let phased = rules.filter { $0.validate != nil && enabled($0, only: only) }
        guard !phased.isEmpty else { return }
        let scheduleObject = LuaValue.reference(try runtime.makeRef(api.scheduleObject()))
        for rule in phased {
            try run(rule, rule.validate!, [scheduleObject, api.reportFunction, .reference(rule.params)])
        }
    }

    /// Calls every rule of `rules` (the checkers of `entity`) on one change in one call, through
    /// `each_rule`: what each reports, and an error, are the marked rule's.
    private func runEach(_ rules: [LoadedRule], _ entity: EntityKind, _ arguments: [LuaValue]) throws {
        let list: LuaValue
        if let made = checkerLists[entity] {
            list = made
        } else {
            list = .reference(try runtime.makeRef(.table(LuaTable(array: rules.flatMap { [.function($0.check!), .reference($0.params)] }))))
            checkerLists[entity] = list
        }
        markedRules = rules
        api.reportSink = reportCollector
        defer {
            api.reportSink = nil
            markedRules = []
        }
        do {
            let mark = reportMark
            _ = try runtime.call(ruleDriver, [list] + arguments, rewind: { rewind(to: mark) })
        } catch {
            // Before the first mark (out of memory, say) the failure is the first rule's.
            let rule = markedRule ?? rules[0]
            throw RuleError.evaluation(error, ruleID: rule.id, file: rule.info.file)
        }
        if reportOverflow, let rule = overflowRule {
            throw RuleError.evaluationFailed(ruleID: rule.id, file: rule.info.file, line: 0, message: Self.overflowMessage)
        }
    }

    /// What has been reported so far, to go back to.
    private struct ReportMark {
        let count: Int, bytes: Int, overflow: Bool, overflowRule: LoadedRule?
    }

    private var reportMark: ReportMark {
        ReportMark(count: collected.count, bytes: reportedBytes, overflow: reportOverflow, overflowRule: overflowRule)
    }

    /// Undoes what a call reported since `mark`, for the runtime to run it again (a trial that did
    /// not end in time, see `LuaRuntime.call(_:_:rewind:)`): a rule's checks have no other effect.
    private func rewind(to mark: ReportMark) {
        collected.removeSubrange(mark.count...)
        (reportedBytes, reportOverflow, overflowRule) = (mark.bytes, mark.overflow, mark.overflowRule)
    }

    /// The rule `each_rule` marked last (nil outside it).
    private var markedRule: LoadedRule? {
        let mark = runtime.currentMark
        return mark >= 1 && mark <= markedRules.count ? markedRules[mark - 1] : nil
    }

    /// Calls one of a rule's functions, collecting what it reports.
    private func run(_ rule: LoadedRule, _ function: LuaRef, _ arguments: [LuaValue]) throws {
        currentRule = rule
        api.reportSink = reportCollector
        defer {
            api.reportSink = nil
            currentRule = nil
        }
        do {
            let mark = reportMark
            _ = try runtime.call(function, arguments, rewind: { rewind(to: mark) })
        } catch {
            throw RuleError.evaluation(error, ruleID: rule.id, file: rule.info.file)
        }
        if reportOverflow {
            throw RuleError.evaluationFailed(ruleID: rule.id, file: rule.info.file, line: 0, message: Self.overflowMessage)
        }
    }

    /// What a rule prints, without terminal control sequences (line breaks and tabs are kept).
    static func printable(_ message: String) -> String {
        guard message.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\n" && $0 != "\t" }) else {
            return message
        }
        return String(String.UnicodeScalarView(message.unicodeScalars.map {
            $0.properties.generalCategory == .control && $0 != "\n" && $0 != "\t" ? "\u{FFFD}" : $0
        }))
    }

    /// The list handed to the driver. Its elements are read-only change objects, so no rule can
    /// alter what the next one sees; the list itself never reaches a rule.
    private func changeList(_ changes: LuaValue) throws -> LuaValue {
        .reference(try runtime.makeRef(changes))
    }

    /// In a whole-schedule pass a pair of shifts is seen from both sides; a rule reporting the
    /// same set of shifts twice is kept once (across all the lists, which keep their order).
    static func deduplicated(_ lists: [[Violation]]) -> [[Violation]] {
        var seen: Set<[String]> = []
        return lists.map { violations in
            violations.filter { violation in
                guard violation.shiftID != nil, !violation.relatedShiftIDs.isEmpty else { return true }
                let shifts = ([violation.shiftID!] + violation.relatedShiftIDs).map(\.description).sorted()
                return seen.insert([violation.ruleID] + shifts).inserted
            }
        }
    }
}
