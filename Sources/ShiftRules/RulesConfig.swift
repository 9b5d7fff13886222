import Foundation
import ShiftCore

/// Per-store rule settings: which rules are off, severity overrides and parameters.
///
/// Kept in the store's settings as flat, hand-editable keys under `extra`:
///
/// ```json
/// "extra": {
///   "rules.disabled": ["one_shift_per_day"],
///   "rules.severity.max_consecutive_days": "warning",
///   "rules.param.min_rest_between_shifts.hours": 10
/// }
/// ```
public struct RulesConfig: Codable, Hashable, Sendable {
    /// Rule ids switched off.
    public var disabled: Set<String>
    /// Overrides of a rule's default severity (reports that name their own severity keep it).
    public var severity: [String: Violation.Severity]
    /// Parameters per rule id, over the defaults the rule declares in `params`.
    public var parameters: [String: Attributes]

    public init(disabled: Set<String> = [], severity: [String: Violation.Severity] = [:], parameters: [String: Attributes] = [:]) {
        self.disabled = disabled
        self.severity = severity
        self.parameters = parameters
    }

    static let disabledKey = "rules.disabled"
    static let severityPrefix = "rules.severity."
    static let parameterPrefix = "rules.param."

    /// Reads the rule settings from a store's settings (absent keys mean defaults).
    public init(settings: StoreSettings) {
        self.init()
        for (key, value) in settings.extra {
            if key == Self.disabledKey {
                disabled = Set((value.listValue ?? [value]).compactMap(\.stringValue))
            } else if key.hasPrefix(Self.severityPrefix) {
                let rule = String(key.dropFirst(Self.severityPrefix.count))
                if let text = value.stringValue, let level = Violation.Severity(rawValue: text) { severity[rule] = level }
            } else if key.hasPrefix(Self.parameterPrefix) {
                let rest = key.dropFirst(Self.parameterPrefix.count)
                guard let dot = rest.firstIndex(of: ".") else { continue }
                parameters[String(rest[..<dot]), default: [:]][String(rest[rest.index(after: dot)...])] = value
            }
        }
    }

    /// Writes the rule settings into a store's settings, replacing earlier rule keys.
    public func store(into settings: inout StoreSettings) {
        settings.extra = settings.extra.filter { key, _ in
            key != Self.disabledKey && !key.hasPrefix(Self.severityPrefix) && !key.hasPrefix(Self.parameterPrefix)
        }
        if !disabled.isEmpty { settings.extra[Self.disabledKey] = .list(disabled.sorted().map { .string($0) }) }
        for (rule, level) in severity { settings.extra[Self.severityPrefix + rule] = .string(level.rawValue) }
        for (rule, values) in parameters {
            for (name, value) in values { settings.extra[Self.parameterPrefix + rule + "." + name] = value }
        }
    }
}

extension RulesConfig {
    /// `rules.none = true` in a store's settings: the store is meant to run without rules
    /// (`shiftctl init --no-rules`). Hosts that refuse to check or change a schedule when no
    /// rule is in force go ahead for such a store.
    public static let noRulesKey = "rules.none"

    /// Whether the store's settings say it runs without rules on purpose (`rules.none = true`).
    public static func runsWithoutRules(_ settings: StoreSettings) -> Bool {
        settings.extra[noRulesKey]?.boolValue == true
    }
}
