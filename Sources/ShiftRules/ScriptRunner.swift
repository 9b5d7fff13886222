import Foundation
import LuaHost
import ShiftCore

/// What a script plugin did: the batches to write, in order, and what happened on the way.
public struct ScriptOutcome: Sendable {
    public let id: String
    public let summary: String
    public let file: String
    /// The batches to write through the store, in order: each checkpoint the script made with
    /// `ops.commit()`, then the changes after the last one (the tail). A script that never calls
    /// `ops.commit()` has exactly one batch: all or nothing.
    public let batches: [ScriptBatch]
    /// `ops.commit()` calls the rules refused (those changes were rolled back and are not in `batches`).
    public let refusedCommits: Int
    /// The schedule at the last checkpoint (the schedule the run started from if there is none):
    /// what the tail applies to.
    public let checkpointSchedule: Schedule
    /// The script's working schedule at the end: every batch applied.
    public let schedule: Schedule

    /// The tail (changes after the last accepted `ops.commit()`), if there is one.
    public var tail: ScriptBatch? { batches.last.flatMap { $0.isCheckpoint ? nil : $0 } }
}

/// One batch of a script's changes.
public struct ScriptBatch: Sendable {
    /// The mutations, in the order the script made them, as one batch mutation.
    public let mutation: Mutation
    /// Each entity's net change over the batch.
    public let changes: [Change]
    /// True for a checkpoint the rules accepted during the run (`ops.commit()`); false for the tail,
    /// which the rules have not checked yet.
    public let isCheckpoint: Bool
    /// For a checkpoint: the warnings and penalties the rules reported when it was committed.
    public let violations: [Violation]
}

/// Why a script plugin could not run. Nothing was written.
public enum ScriptError: Error, Hashable, Sendable, CustomStringConvertible, LocalizedError {
    /// The script file does not exist or cannot be read.
    case unreadable(file: String, reason: String)
    /// The file does not compile, its top level fails, or it does not return `script { … }`.
    case invalidScript(file: String, line: Int, message: String)
    /// The script's `run` raised an error (an uncaught `error`, a failed operation, the
    /// instruction budget or time limit), or a rule failed while `ops.commit()` checked it.
    case failed(scriptID: String, file: String, line: Int, message: String)

    public var description: String {
        switch self {
        case let .unreadable(file, reason): "\(file): cannot read script: \(reason)"
        case let .invalidScript(file, line, message): "\(Self.place(file, line)): \(message)"
        case let .failed(id, file, line, message): "\(Self.place(file, line)): script \(id) failed: \(message)"
        }
    }

    public var errorDescription: String? { description }

    private static func place(_ file: String, _ line: Int) -> String { line > 0 ? "\(file):\(line)" : file }
}

extension LuaRuntime.Configuration {
    /// The sandbox limits of a script plugin: like a rule's, with a larger instruction budget
    /// (200 million units) and wall-clock limit (30 s) for the whole run.
    public static var script: LuaRuntime.Configuration {
        var limits = LuaRuntime.Configuration()
        limits.instructionBudget = 200_000_000
        limits.timeLimit = .seconds(30)
        return limits
    }
}

extension RuleEngine {
    /// Runs a script plugin (`return script { id = …, run = function(ctx, schedule, ops) … end }`)
    /// against a schedule, without writing anything.
    ///
    /// The script runs in a Lua state of its own (the same sandbox, `cal`, schedule queries and
    /// `require` as rules, plus `ops`); the rules keep theirs, so a rule can never reach an
    /// operation. `ops.commit()` checks the pending changes with this engine's rules.
    ///
    /// - Parameters:
    ///   - file: the script file to read.
    ///   - displayName: how errors and `print` name the file (default: `file`).
    ///   - arguments: `ctx.args`.
    ///   - schedule: the schedule the script starts from (the store's current one).
    ///   - user: who runs it (the proposals' user).
    ///   - now: the clock behind `ctx.today` and the proposals' timestamp (default: the engine's).
    ///   - limits: the sandbox limits for the whole run (default `.script`).
    ///   - makeID: the id source for new entities.
    /// - Returns: the batches to write through the store, in order.
    /// - Throws: `ScriptError` naming `file:line` (nothing is to be written then).
    public func runScript(
        file: String, displayName: String? = nil, arguments: [String], schedule: Schedule, user: UserProfile, now: Date? = nil,
        limits: LuaRuntime.Configuration = .script, makeID: @escaping @Sendable () -> UUID = { UUID.random() }
    ) throws -> ScriptOutcome {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ScriptError.unreadable(file: file, reason: FileManager.default.fileExists(atPath: file) ? "permission denied" : "no such file")
        }
        let clock = now.map { instant in { @Sendable in instant } } ?? configuration.now
        let runner = try ScriptRunner(engine: self, file: displayName ?? file, path: file, limits: limits, clock: clock)
        return try runner.run(source: [UInt8](data), arguments: arguments, schedule: schedule, user: user, makeID: makeID)
    }
}

/// One run of one script: its Lua state, its working schedule and the batches it made.
final class ScriptRunner {
    let engine: RuleEngine
    let file: String
    let runtime: LuaRuntime
    let api: LuaScheduleAPI
    let clock: @Sendable () -> Date
    var makeID: @Sendable () -> UUID = { UUID.random() }
    var user = UserProfile(userId: "script", displayName: "script")
    var scriptID = "script"

    /// The schedule at the last accepted `ops.commit()` (or the start).
    var checkpoint: Schedule
    /// The checkpoint plus every pending operation: what `schedule` shows the script.
    var working: Schedule
    /// Operations since the last checkpoint, in order.
    var pending: [Mutation] = []
    var batches: [ScriptBatch] = []
    var refusedCommits = 0
    /// True only while the script's `run` executes: operations are refused at any other time.
    var operationsEnabled = false
    /// A rule that failed during `ops.commit()`: the run fails even if the script catches the error.
    var fatal: Error?

    /// - Parameter path: the script's path on disk; its folder is a `require` root too.
    init(engine: RuleEngine, file: String, path: String, limits: LuaRuntime.Configuration, clock: @escaping @Sendable () -> Date) throws {
        self.engine = engine
        self.file = file
        self.clock = clock
        var limits = limits
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().standardizedFileURL.path
        limits.requireRoots = engine.configuration.directories.map { URL(fileURLWithPath: $0).standardizedFileURL.path } + [folder]
        let log = engine.configuration.log
        limits.print = { source, message in log(source, message) }
        let empty = try Schedule()
        checkpoint = empty
        working = empty
        do {
            runtime = try LuaRuntime(configuration: limits)
            api = try LuaScheduleAPI(runtime: runtime, now: clock)
            let prelude = try runtime.loadPlugin(source: Prelude.source, chunkName: "shiftscheduler/prelude.lua")
            for name in ["rule", "rotation", "script"] {
                try runtime.setGlobal(name, try runtime.field(prelude, name))
            }
        } catch {
            throw RuleError.runtimeSetup(message: "\(error)")
        }
    }

    func run(source: [UInt8], arguments: [String], schedule: Schedule, user: UserProfile, makeID: @escaping @Sendable () -> UUID) throws -> ScriptOutcome {
        self.user = user
        self.makeID = makeID
        checkpoint = schedule
        working = schedule

        let (run, summary) = try load(source)
        api.begin(after: schedule, before: nil)
        defer { api.end() }
        let ops = try makeOperations()
        let context = LuaValue.table(LuaTable(hash: [
            .string("args"): .table(LuaTable(array: arguments.map { .string($0) })),
            .string("today"): .string(today(in: schedule).description),
            .string("file"): .string(file),
            .string("user"): .string(user.displayName),
        ]))
        operationsEnabled = true
        do {
            _ = try runtime.call(run, [context, api.scheduleObject(), ops])
            operationsEnabled = false
        } catch {
            operationsEnabled = false
            throw fatal.map(failure) ?? failure(error)
        }
        if let fatal { throw failure(fatal) }

        if !pending.isEmpty {
            let mutation = Mutation.batch(pending)
            let (_, changes) = try applying(mutation, to: checkpoint, operation: "the script's changes")
            batches.append(ScriptBatch(mutation: mutation, changes: changes, isCheckpoint: false, violations: []))
        }
        return ScriptOutcome(id: scriptID, summary: summary, file: file, batches: batches, refusedCommits: refusedCommits,
                             checkpointSchedule: checkpoint, schedule: working)
    }

    /// Compiles the file and reads `script { id, summary, run }`.
    private func load(_ source: [UInt8]) throws -> (run: LuaRef, summary: String) {
        let plugin: LuaRef
        do {
            plugin = try runtime.loadPlugin(bytes: source, chunkName: file)
        } catch {
            let mapped = RuleError.load(error, file: file)
            if case let .loadFailed(chunk, line, message) = mapped { throw ScriptError.invalidScript(file: chunk, line: line, message: message) }
            throw ScriptError.invalidScript(file: file, line: 0, message: mapped.description)
        }
        func invalid(_ message: String) -> ScriptError { .invalidScript(file: file, line: 0, message: message) }
        guard case .string("script") = try runtime.field(plugin, "__plugin") else {
            throw invalid("a script file must end with `return script { id = …, run = function(ctx, schedule, ops) … end }`")
        }
        guard case let .table(spec) = try runtime.value(of: plugin) else { throw invalid("script{ … } must be given a table") }
        let known: Set<String> = ["__plugin", "id", "summary", "description", "run"]
        for key in spec.hash.keys {
            guard let name = key.stringValue, known.contains(name) else {
                throw invalid("unknown field \(key.stringValue.map { "'\($0)'" } ?? "") in script{ … } (id, summary, description, run)")
            }
        }
        guard let id = spec["id"].stringValue, id.range(of: #"^[a-z0-9][a-z0-9_\-]*$"#, options: .regularExpression) != nil else {
            throw invalid("a script needs an id of lowercase letters, digits, - and _ (id = \"hand_over\")")
        }
        scriptID = id
        guard case let .function(run) = spec["run"] else { throw invalid("script \(id) needs run = function(ctx, schedule, ops) … end") }
        return (run, spec["summary"].stringValue ?? "")
    }

    private func today(in schedule: Schedule) -> LocalDate {
        schedule.zone.localDateTime(at: clock()).date
    }

    /// A failure of the run as a `ScriptError` naming the script's file and line.
    private func failure(_ error: Error) -> ScriptError {
        if let error = error as? ScriptError { return error }
        if let rule = error as? RuleError { return .failed(scriptID: scriptID, file: file, line: 0, message: rule.description) }
        let mapped = RuleError.evaluation(error, ruleID: scriptID, file: file)
        if case let .evaluationFailed(_, chunk, line, message) = mapped {
            return .failed(scriptID: scriptID, file: chunk, line: line, message: message)
        }
        return .failed(scriptID: scriptID, file: file, line: 0, message: mapped.description)
    }

    // MARK: Applying and committing

    /// The core's dry application, with its invariant errors as Lua errors naming the operation.
    func applying(_ mutation: Mutation, to schedule: Schedule, operation: String) throws -> (Schedule, [Change]) {
        do {
            return try schedule.applying(mutation)
        } catch {
            throw LuaScriptError("\(operation): \(error.plainMessage)")
        }
    }

    /// Applies one operation to the working schedule and queues it for the next checkpoint.
    func perform(_ mutation: Mutation, _ operation: String) throws {
        guard operationsEnabled else { throw LuaScriptError("operations are only available to scripts run with shiftctl run") }
        if let fatal { throw fatal }
        let (next, changes) = try applying(mutation, to: working, operation: operation)
        working = next
        pending.append(mutation)
        api.advance(to: next, refreshing: Self.shiftIDs(changes))
    }

    /// `ops.commit()`: checks the pending changes against the rules; keeps them as a checkpoint
    /// (`true, warnings`) or rolls the working schedule back to the last one (`false, violations`).
    func commit() throws -> [LuaValue] {
        guard operationsEnabled else { throw LuaScriptError("operations are only available to scripts run with shiftctl run") }
        if let fatal { throw fatal }
        guard !pending.isEmpty else { return [.boolean(true), .table(LuaTable())] }
        let mutation = Mutation.batch(pending)
        let (after, changes) = try applying(mutation, to: checkpoint, operation: "ops.commit")
        let violations: [Violation]
        do {
            violations = try engine.evaluate(Proposal(
                mutation: mutation, changes: changes, before: checkpoint, after: after, user: user, timestamp: Timestamp.truncated(clock())))
        } catch {
            fatal = error
            throw error
        }
        pending = []
        if violations.contains(where: { $0.severity == .error }) {
            refusedCommits += 1
            working = checkpoint
            api.advance(to: checkpoint, refreshing: Self.shiftIDs(changes))
            return [.boolean(false), violationList(violations)]
        }
        batches.append(ScriptBatch(mutation: mutation, changes: changes, isCheckpoint: true, violations: violations))
        checkpoint = working
        return [.boolean(true), violationList(violations)]
    }

    /// Violations as Lua tables: `{ rule, severity, message, date, person, person_id, shift_id, penalty }`.
    private func violationList(_ violations: [Violation]) -> LuaValue {
        .table(LuaTable(array: violations.map { violation in
            var row: [LuaValue: LuaValue] = [
                .string("rule"): .string(violation.ruleID), .string("severity"): .string(violation.severity.rawValue),
                .string("message"): .string(violation.message),
            ]
            if let date = violation.date { row[.string("date")] = .string(date.description) }
            if let person = violation.personID {
                row[.string("person_id")] = .string(person.description)
                if working.person(person) != nil { row[.string("person")] = api.view(person: person) }
            }
            if let shift = violation.shiftID { row[.string("shift_id")] = .string(shift.description) }
            if let penalty = violation.penalty { row[.string("penalty")] = .number(penalty) }
            return .table(LuaTable(hash: row))
        }))
    }

    static func shiftIDs(_ changes: [Change]) -> [ShiftID] {
        changes.compactMap { change in
            if case let .shift(before, after, _) = change { return (after ?? before)?.id }
            return nil
        }
    }
}
