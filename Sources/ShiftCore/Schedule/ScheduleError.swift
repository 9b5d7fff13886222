import Foundation

/// Why the core refused a mutation or an operation. Each message names the field and says what
/// to do.
public enum ScheduleError: Error, Hashable, Sendable, CustomStringConvertible, LocalizedError {
    /// The mutation names an entity that does not exist.
    case notFound(entity: EntityKind, id: String, field: String)
    /// An entity with this id already exists.
    case duplicateID(entity: EntityKind, id: String, field: String)
    /// A field refers to an entity that does not exist.
    case unknownReference(field: String, id: String)
    /// A field's value is not allowed (empty name, minimum above optimal, unknown time zone…).
    case invalidValue(field: String, reason: String)
    /// The value clashes with another entity (a shift type symbol or event UID already used).
    case conflict(field: String, reason: String)
    /// Rules found error-severity violations; nothing was written.
    case rejected(violations: [Violation])
    /// A validator (a rule script) failed to run; the mutation is rejected (fail closed).
    case validatorFailed(validator: String, message: String)
    /// Another process held the store's write lock for too long.
    case lockTimeout(store: String, seconds: Double)
    /// The acting user's role does not allow the change (`Permissions`); nothing was written.
    case forbidden(message: String)

    public var description: String {
        switch self {
        case let .notFound(entity, id, field):
            "\(field): no \(entity.rawValue.replacingOccurrences(of: "_", with: " ")) with id \(id)"
        case let .duplicateID(entity, id, field):
            "\(field): a \(entity.rawValue.replacingOccurrences(of: "_", with: " ")) with id \(id) already exists"
        case let .unknownReference(field, id):
            "\(field): refers to \(id), which does not exist"
        case let .invalidValue(field, reason):
            "\(field): \(reason)"
        case let .conflict(field, reason):
            "\(field): \(reason)"
        case let .rejected(violations):
            "rejected by rules: " + violations.filter { $0.severity == .error }.map(\.description).joined(separator: "; ")
        case let .validatorFailed(validator, message):
            "rule host \(validator) failed, mutation rejected: \(message)"
        case let .forbidden(message):
            "permission denied: \(message)"
        case let .lockTimeout(store, seconds):
            "\(store): another process has been writing for over \(seconds) s; try again, or check for a stuck process holding \(store).lock"
        }
    }

    public var errorDescription: String? { description }
}
