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
    /// Whether a person or day phase's `cache` lasts from one call to the next while the
    /// schedule's catalog and the rule's parameters do (docs/rules.md). Off, every call gets a new
    /// empty table: the plain path the kept caches must agree with (the test suite compares them).
    public var keepsPhaseCaches = true
    /// Whether a mutation's checks go through the one-call drivers: every rule of one change in
    /// one call into Lua, and 128 changes of a batch per call. Off, each rule checks each change
    /// in a call of its own: the plain path the drivers must agree with (the test suite compares
    /// the two).
    public var oneCallDrivers = true
    /// What one call into a rule may report: at most this many violations and this many bytes
    /// of messages (each counts 64 more). A call covers one chunk of 128 changes, one group of
    /// people (about 4,096 shifts), a month of days, or a rule's `validate`. A rule over it is
    /// stopped with "too many reports in one call" (a loop that floods); a whole evaluation
    /// has no such bound, so every finding of a big roster is counted.
    public var reportsPerCall = 200_000
    public var reportBytesPerCall = 32 << 20

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
    let state: Mutex<EngineState>
    /// Extra Lua states for parallel work, made on first use and reused.
    let pool: Mutex<[EngineState]> = Mutex([])
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

    /// Whether `validate` goes through every shift one by one (a shift `check` without a person
    /// phase). Only then is a schedule over a store best read into memory first: person, day and
    /// demand phases query it by person and by day, and a whole-schedule `validate` phase asks
    /// what it needs (`balanced_workload` asks each person's hours, which a store's index
    /// answers without reading the shifts).
    public var readsEveryShift: Bool {
        state.withLock { !$0.perShiftRules(only: nil).isEmpty }
    }

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
            perShift = Self.joined(try parallel(slices.count) { index, engine in
                try engine.validate(schedule, only: nil, part: .shifts(shifts[slices[index]]))
            })
        }
        var people: [Violation] = []
        if state.withLock({ !$0.personPhaseRules(only: nil).isEmpty }) {
            let groups = EngineState.personGroups(schedule)
            let slices = Self.slices(groups.map(\.shifts), workers: configuration.workers)
            people = Self.joined(try parallel(slices.count) { index, engine in
                try engine.validate(schedule, only: nil, part: .people(groups[slices[index]]))
            })
        }
        let days = try state.withLock { try $0.validate(schedule, only: nil, part: .days) }
        let phase = try state.withLock { try $0.validate(schedule, only: nil, part: .wholeSchedule) }
        let parts = EngineState.deduplicated([perShift, phase])
        // Joined once: a messy roster's half a million findings are copied one time, not twice.
        guard !parts[0].isEmpty || !days.isEmpty || !parts[1].isEmpty else { return people }
        var all: [Violation] = []
        all.reserveCapacity(parts[0].count + people.count + days.count + parts[1].count)
        for part in [parts[0], people, days, parts[1]] { all.append(contentsOf: part) }
        return all
    }


    /// The parts' findings in one list. The first part's list is taken over (moved, once no one
    /// else holds it), and only the others' findings are copied onto it: a messy roster's half
    /// million findings are not all copied again.
    static func joined(_ parts: consuming [[Violation]]) -> [Violation] {
        guard !parts.isEmpty else { return [] }
        var all = parts[0]
        parts[0] = []
        all.reserveCapacity(parts.reduce(0) { $0 + $1.count })
        for part in parts.dropFirst() { all.append(contentsOf: part) }
        return all
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
