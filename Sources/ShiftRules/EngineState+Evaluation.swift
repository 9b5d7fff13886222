import Foundation
import LuaHost
import ShiftCore
import Synchronization

/// Checking one proposed mutation: each rule's `check` on the changes that trigger it.
extension EngineState {

    /// The findings of the rules' checks on `proposal`'s changes (only rule `only`'s, when set).
    /// Changes are grouped by entity, and each group takes one of three paths:
    /// - one change that several rules check: `checkInOneCall`, every rule in one call into Lua;
    /// - one change otherwise: `checkOneChange`, one call per rule;
    /// - several changes: `checkInChunks`, one call per rule and chunk of `chunkSize` changes.
    /// Without `configuration.oneCallDrivers`, every group takes the plain path: one call per
    /// rule and change (`checkEachChange`), which the test suite compares with the others.
    func evaluate(_ proposal: Proposal, only: String?, clearance: Clearance? = nil) throws -> [Violation] {
        api.begin(after: proposal.after, before: proposal.before)
        collected = []
        defer {
            api.end()
            collected = []
        }
        var schedule: LuaValue?
        for (entity, changes) in Self.groupedByEntity(proposal.changes) {
            let checking = only.map { only in
                rules.filter { $0.check != nil && $0.triggers.contains(entity) && $0.id == only }
            } ?? checkers[entity, default: []]
            guard !checking.isEmpty else { continue }
            guard configuration.oneCallDrivers else {
                try checkEachChange(changes, rules: checking, clearance: clearance)
                continue
            }
            if changes.count == 1, only == nil, clearance == nil, checking.count > 1 {
                try checkInOneCall(changes[0], entity: entity, rules: checking, schedule: schedule)
                continue
            }
            // Values used by several calls are stored once; for a single call they are passed as
            // they are (a registry reference costs more than pushing them once).
            let shared = checking.count > 1 || changes.count > Self.chunkSize
            if schedule == nil {
                schedule = shared ? .reference(try runtime.makeRef(api.scheduleObject())) : api.scheduleObject()
            }
            if changes.count == 1 {
                try checkOneChange(changes[0], rules: checking, schedule: schedule!, shared: shared, clearance: clearance)
            } else {
                try checkInChunks(changes, rules: checking, schedule: schedule!, shared: shared, clearance: clearance)
            }
        }
        return collected
    }

    /// The changes of each entity kind, kinds in order of first appearance. The common case, one
    /// change, skips grouping.
    static func groupedByEntity(_ changes: [Change]) -> [(EntityKind, [Change])] {
        if changes.count == 1 { return [(changes[0].entity, changes)] }
        var entities: [EntityKind] = []
        var changesByEntity: [EntityKind: [Change]] = [:]
        for change in changes {
            if changesByEntity[change.entity] == nil { entities.append(change.entity) }
            changesByEntity[change.entity, default: []].append(change)
        }
        return entities.map { ($0, changesByEntity[$0]!) }
    }

    /// One change (a mutation's usual case) that several rules check: every rule's check in one
    /// call into Lua (each with a budget of its own), with one change object, so the fields one
    /// rule reads are remembered for the next.
    func checkInOneCall(_ change: Change, entity: EntityKind, rules checking: [LoadedRule], schedule: LuaValue?) throws {
        let object = api.changeObject(change, validating: false)
        try runEach(checking, entity, [object, schedule ?? api.scheduleObject(), api.reportFunction, marker])
    }

    /// One change: each rule's check in a call of its own.
    func checkOneChange(_ change: Change, rules checking: [LoadedRule], schedule: LuaValue, shared: Bool, clearance: Clearance?) throws {
        let object = api.changeObject(change, validating: false)
        let value = shared ? .reference(try runtime.makeRef(object)) : object
        for rule in checking where !(clearance?.skips(rule.id, change) ?? false) {
            try run(rule, rule.check!, [value, schedule, api.reportFunction, .reference(rule.params)])
        }
    }

    /// Several changes: for each chunk of `chunkSize`, each rule's check on every change of it in
    /// one call (the prelude's `each`).
    func checkInChunks(_ changes: [Change], rules checking: [LoadedRule], schedule: LuaValue, shared: Bool, clearance: Clearance?) throws {
        for start in stride(from: 0, to: changes.count, by: Self.chunkSize) {
            let chunk = changes[start..<min(start + Self.chunkSize, changes.count)]
            // Change objects are made once, for the changes some rule checks; the whole chunk's
            // list once, shared by the rules that check all of it.
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
                try run(rule, driver, [.function(rule.check!), list, schedule, api.reportFunction, .reference(rule.params), marker])
            }
        }
    }

    /// The plain path: each rule's check on each change in a call of its own, with a fresh
    /// schedule object and change object every time.
    func checkEachChange(_ changes: [Change], rules checking: [LoadedRule], clearance: Clearance?) throws {
        for change in changes {
            for rule in checking where !(clearance?.skips(rule.id, change) ?? false) {
                let object = api.changeObject(change, validating: false)
                try run(rule, rule.check!, [object, api.scheduleObject(), api.reportFunction, .reference(rule.params)])
            }
        }
    }

    /// Calls every rule of `rules` (the checkers of `entity`) on one change in one call, through
    /// `each_rule`: what each reports, and an error, are the marked rule's.
    func runEach(_ rules: [LoadedRule], _ entity: EntityKind, _ arguments: [LuaValue]) throws {
        let list: LuaValue
        if let made = checkerLists[entity] {
            list = made
        } else {
            list = .reference(try runtime.makeRef(.table(LuaTable(array: rules.flatMap { [.function($0.check!), .reference($0.params)] }))))
            checkerLists[entity] = list
        }
        markedRules = rules
        startCall()
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
            throw RuleError.evaluationFailed(ruleID: rule.id, file: rule.info.file, line: 0, message: overflowMessage)
        }
    }

    /// The `cache` a rule's person and day phases get: a table of the rule's own that lasts as
    /// long as the schedule's catalog (`Schedule.catalogVersion`: everything but the shifts) and
    /// the rule's parameters, and is a new empty one once either changes. It holds what the rule
    /// computes from them alone (bounds, contracts, the planning period), so that a search that
    /// calls the phase for thousands of rosters of one catalog computes it once.
    func cache(of rule: LoadedRule, for schedule: Schedule) throws -> LuaValue {
        guard configuration.keepsPhaseCaches else { return .reference(try runtime.newTable()) }
        if let cache = rule.cache, cache.catalog == schedule.catalogVersion, cache.params === rule.params {
            return .reference(cache.table)
        }
        let table = try runtime.newTable()
        rule.cache = (schedule.catalogVersion, rule.params, table)
        return .reference(table)
    }

    /// Starts counting what one call into Lua reports (`collect` bounds it).
    func startCall() {
        (callStart, reportedBytes, reportOverflow, overflowRule) = (collected.count, 0, false, nil)
    }

    /// What has been reported so far, to go back to.
    struct ReportMark {
        let count: Int, bytes: Int, overflow: Bool, overflowRule: LoadedRule?
    }

    var reportMark: ReportMark {
        ReportMark(count: collected.count, bytes: reportedBytes, overflow: reportOverflow, overflowRule: overflowRule)
    }

    /// Undoes what a call reported since `mark`, for the runtime to run it again (a trial that did
    /// not end in time, see `LuaRuntime.call(_:_:rewind:)`): a rule's checks have no other effect.
    func rewind(to mark: ReportMark) {
        collected.removeSubrange(mark.count...)
        (reportedBytes, reportOverflow, overflowRule) = (mark.bytes, mark.overflow, mark.overflowRule)
    }

    /// The rule `each_rule` marked last (nil outside it).
    var markedRule: LoadedRule? {
        let mark = runtime.currentMark
        return mark >= 1 && mark <= markedRules.count ? markedRules[mark - 1] : nil
    }

    /// Calls one of a rule's functions, collecting what it reports.
    func run(_ rule: LoadedRule, _ function: LuaRef, _ arguments: [LuaValue]) throws {
        currentRule = rule
        startCall()
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
            throw RuleError.evaluationFailed(ruleID: rule.id, file: rule.info.file, line: 0, message: overflowMessage)
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
    func changeList(_ changes: LuaValue) throws -> LuaValue {
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
