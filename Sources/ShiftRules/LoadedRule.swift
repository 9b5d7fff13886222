import Foundation
import LuaHost
import ShiftCore
import Synchronization

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
    /// The table the rule's person and day phases get as `cache`, with the catalog and the
    /// parameters it was made for (`EngineState.cache(of:for:)`).
    var cache: (catalog: UInt64, params: LuaRef, table: LuaRef)?
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
