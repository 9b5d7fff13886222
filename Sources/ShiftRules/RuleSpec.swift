import Foundation
import LuaHost
import ShiftCore

/// Reads and checks the table a rule file returns (`return rule { … }`).
enum RuleSpec {
    static let knownKeys: Set<String> = [
        "__plugin", "id", "summary", "description", "severity", "on", "check", "validate", "validate_person",
        "validate_day", "validate_demand", "params", "examples",
    ]

    static func read(_ plugin: LuaRef, file: String, runtime: LuaRuntime, config: RulesConfig) throws -> LoadedRule {
        func invalid(_ message: String) -> RuleError { .invalidRule(file: file, message: message) }
        guard case let .table(spec) = try runtime.value(of: plugin) else { throw invalid("rule{ … } must be given a table") }
        for key in spec.hash.keys {
            guard case let .string(name) = key, knownKeys.contains(name) else {
                throw invalid("unknown field \(key.stringValue.map { "'\($0)'" } ?? "of type \(key.typeName)") in rule{ … } (id, summary, description, severity, on, check, validate, validate_person, validate_day, validate_demand, params, examples)")
            }
        }
        guard case let .string(id) = spec["id"], id.range(of: #"^[a-z][a-z0-9_]*$"#, options: .regularExpression) != nil else {
            throw invalid("a rule needs an id of lowercase letters, digits and _ (id = \"no_double_booking\")")
        }
        guard case let .string(summary) = spec["summary"], !summary.isEmpty else {
            throw invalid("rule \(id) needs a summary (one sentence: what it enforces)")
        }
        var severity = Violation.Severity.error
        if !spec["severity"].isNil {
            guard let text = spec["severity"].stringValue, let level = Violation.Severity(rawValue: text) else {
                throw invalid("rule \(id): severity must be \"error\", \"warning\" or \"penalty\"")
            }
            severity = level
        }
        severity = config.severity[id] ?? severity

        var triggers: [EntityKind] = []
        switch spec["on"] {
        case .nil: break
        case let .string(name): triggers = [try entity(name, id, invalid)]
        case let .table(list): triggers = try list.array.map { try entity($0.stringValue ?? "", id, invalid) }
        default: throw invalid("rule \(id): on must be a list of entity kinds, e.g. on = { \"shift\" }")
        }

        let check = try function(spec["check"], "check", id, invalid)
        let validate = try function(spec["validate"], "validate", id, invalid)
        let validatePerson = try function(spec["validate_person"], "validate_person", id, invalid)
        let validateDay = try function(spec["validate_day"], "validate_day", id, invalid)
        let validateDemand = try function(spec["validate_demand"], "validate_demand", id, invalid)
        guard check != nil || validate != nil || validatePerson != nil || validateDay != nil || validateDemand != nil else {
            throw invalid("rule \(id) needs a check function, a validate, validate_person, validate_day or validate_demand function, or both")
        }
        if check != nil, triggers.isEmpty {
            throw invalid("rule \(id) has a check but no triggers: add on = { \"shift\" } (or person, shift_type, location, demand, availability, settings)")
        }

        var parameters = LuaTable()
        switch spec["params"] {
        case .nil: break
        case let .table(table): parameters = table
        default: throw invalid("rule \(id): params must be a table of defaults")
        }
        var effective: Attributes = [:]
        for (key, value) in parameters.hash {
            if case let .string(name) = key, let attribute = attributeValue(value) { effective[name] = attribute }
        }
        for (name, value) in config.parameters[id] ?? [:] {
            parameters.hash[.string(name)] = LuaScheduleAPI.luaValue(value)
            effective[name] = value
        }
        let params = try runtime.makeRef(.table(parameters))
        try runtime.freeze(params, name: "params")

        var examples: LuaTable?
        switch spec["examples"] {
        case .nil: break
        case let .table(list): examples = list
        default: throw invalid("rule \(id): examples must be a list of tables")
        }
        let exampleCount = examples?.array.count ?? 0

        let info = RuleInfo(
            id: id, summary: summary, severity: severity, triggers: triggers, file: file, enabled: !config.disabled.contains(id),
            hasValidatePhase: validate != nil, hasPersonPhase: validatePerson != nil, hasDayPhase: validateDay != nil,
            hasDemandPhase: validateDemand != nil, exampleCount: exampleCount, parameters: effective)
        return LoadedRule(info: info, check: check, validate: validate, validatePerson: validatePerson, validateDay: validateDay,
                          validateDemand: validateDemand, params: params, examples: examples, triggers: Set(triggers))
    }

    private static func entity(_ name: String, _ id: String, _ invalid: (String) -> RuleError) throws -> EntityKind {
        guard let kind = EntityKind(rawValue: name) else {
            throw invalid("rule \(id): '\(name)' is not an entity kind (shift, person, shift_type, location, demand, availability, settings, change_log)")
        }
        return kind
    }

    private static func function(_ value: LuaValue, _ name: String, _ id: String, _ invalid: (String) -> RuleError) throws -> LuaRef? {
        switch value {
        case .nil: return nil
        case let .function(ref): return ref
        default: throw invalid("rule \(id): \(name) must be a function")
        }
    }

    static func attributeValue(_ value: LuaValue) -> AttributeValue? {
        switch value {
        case let .string(text): .string(text)
        case let .integer(number): .number(Double(number))
        case let .number(number): .number(number)
        case let .boolean(flag): .bool(flag)
        case let .table(table) where table.hash.isEmpty: .list(table.array.compactMap(attributeValue))
        default: nil
        }
    }
}
