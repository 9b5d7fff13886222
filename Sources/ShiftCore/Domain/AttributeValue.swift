import Foundation

/// A custom value on a person, shift type, location or shift that rules can read
/// (`skills = ["nurse", "head"]`, `max_hours = 38.5`, `night_worker = true`).
public enum AttributeValue: Hashable, Sendable, CustomStringConvertible {
    case string(String)
    case number(Double)
    case bool(Bool)
    case list([AttributeValue])

    public var description: String {
        switch self {
        case let .string(value): value
        case let .number(value): value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        case let .bool(value): String(value)
        case let .list(values): "[" + values.map(\.description).joined(separator: ", ") + "]"
        }
    }

    public var stringValue: String? { if case let .string(value) = self { value } else { nil } }
    public var numberValue: Double? { if case let .number(value) = self { value } else { nil } }
    public var boolValue: Bool? { if case let .bool(value) = self { value } else { nil } }
    public var listValue: [AttributeValue]? { if case let .list(value) = self { value } else { nil } }

    /// Parses command-line text: `true`/`false`, a number, `[a, b]` as a list, else a string.
    public init(parsing text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed == "true" { self = .bool(true) }
        else if trimmed == "false" { self = .bool(false) }
        else if let number = Double(trimmed), number.isFinite { self = .number(number) }
        else if trimmed.hasPrefix("["), trimmed.hasSuffix("]") {
            let inner = trimmed.dropFirst().dropLast()
            self = .list(inner.isEmpty ? [] : inner.split(separator: ",").map {
                AttributeValue(parsing: $0.trimmingCharacters(in: .whitespaces))
            })
        } else { self = .string(text) }
    }
}

/// Named custom values. Keys are free-form; rules document the keys they read.
public typealias Attributes = [String: AttributeValue]

extension AttributeValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([AttributeValue].self) { self = .list(value) }
        else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "an attribute is a string, number, bool or list of them")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case let .string(value): try container.encode(value)
        case let .number(value): try container.encode(value)
        case let .bool(value): try container.encode(value)
        case let .list(value): try container.encode(value)
        }
    }
}
