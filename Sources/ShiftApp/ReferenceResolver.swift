import Foundation
import ShiftCore

/// Finds entities from what a user typed: a name (location, person), a symbol (shift type) or
/// an id prefix (any entity). Unknown or ambiguous references fail with the candidates.
///
/// Order: exact name, then name ignoring case, then id or id prefix together with name
/// prefixes. A named entity's id prefix needs at least four characters, so a short text is read
/// as a name; shifts, demand and availability have no names and take any id prefix.
public struct ReferenceResolver: Sendable {
    public let schedule: Schedule

    public init(_ schedule: Schedule) { self.schedule = schedule }

    struct Candidate<Value> {
        var name: String?
        var id: String
        var value: Value
    }

    public func location(_ reference: String, option: String = "LOCATION") throws -> Location {
        try resolve(reference, option: option, kind: "location", plural: "locations",
                    schedule.locations.map { Candidate(name: $0.name, id: $0.id.description, value: $0) })
    }

    public func person(_ reference: String, option: String = "PERSON") throws -> Person {
        try resolve(reference, option: option, kind: "person", plural: "people",
                    schedule.people.map { Candidate(name: $0.displayName, id: $0.id.description, value: $0) })
    }

    public func shiftType(_ reference: String, option: String = "TYPE") throws -> ShiftType {
        if let type = schedule.shiftType(symbol: reference) { return type }
        return try resolve(reference, option: option, kind: "shift type", plural: "shift types",
                           schedule.shiftTypes.map { Candidate(name: $0.symbol, id: $0.id.description, value: $0) })
    }

    public func shift(_ reference: String, option: String = "SHIFT") throws -> ScheduledShift {
        // Only the shifts the prefix selects (an indexed lookup in a big store), enough to tell
        // one from many.
        let prefix = reference.trimmingCharacters(in: .whitespaces).lowercased()
        return try resolveID(reference, option: option, kind: "shift", plural: "shifts", schedule.shifts(idPrefix: prefix, limit: 9).map {
            Candidate(name: describe($0), id: $0.id.description, value: $0)
        })
    }

    public func demand(_ reference: String, option: String = "ID") throws -> Demand {
        try resolveID(reference, option: option, kind: "demand entry", plural: "demand entries", schedule.demand.map {
            Candidate(name: "\($0.day) \(schedule.shiftType($0.shiftTypeID)?.symbol ?? "?")", id: $0.id.description, value: $0)
        })
    }

    public func availability(_ reference: String, option: String = "ID") throws -> Availability {
        try resolveID(reference, option: option, kind: "availability entry", plural: "availability entries", schedule.availability.map {
            Candidate(name: "\(schedule.person($0.personID)?.displayName ?? "?") \($0.from)", id: $0.id.description, value: $0)
        })
    }

    /// `2026-03-02 D Alice`, for listing shift candidates.
    func describe(_ shift: ScheduledShift) -> String {
        let symbol = schedule.shiftType(shift.shiftTypeID)?.symbol ?? "?"
        let person = shift.personID.flatMap { schedule.person($0)?.displayName } ?? "open"
        return "\(shift.date) \(symbol) \(person)"
    }

    // MARK: Matching

    private func resolve<Value>(
        _ reference: String, option: String, kind: String, plural: String, _ candidates: [Candidate<Value>]
    ) throws -> Value {
        let text = reference.trimmingCharacters(in: .whitespaces)
        let exact = candidates.filter { $0.name == text }
        if exact.count == 1 { return exact[0].value }
        if exact.count > 1 { throw shared(text, option: option, kind: kind, plural: plural, exact) }
        let folded = candidates.filter { $0.name?.lowercased() == text.lowercased() }
        if folded.count == 1 { return folded[0].value }
        if folded.count > 1 { throw shared(text, option: option, kind: kind, plural: plural, folded) }

        let lower = text.lowercased()
        let byID = lower.count >= 4 ? candidates.filter { $0.id.hasPrefix(lower) } : []
        let byName = candidates.filter { $0.name?.lowercased().hasPrefix(lower) ?? false }
        var seen = Set<String>()
        let matches = (byID + byName).filter { seen.insert($0.id).inserted }
        if matches.count == 1 { return matches[0].value }
        if matches.count > 1 { throw ambiguous(text, option: option, plural: plural, matches) }
        throw AppError.unknownReference(
            option: option, kind: kind, reference: text, suggestions: NearestNames.suggestions(for: text, among: candidates.compactMap(\.name)))
    }

    private func resolveID<Value>(
        _ reference: String, option: String, kind: String, plural: String, _ candidates: [Candidate<Value>]
    ) throws -> Value {
        let text = reference.trimmingCharacters(in: .whitespaces).lowercased()
        guard !text.isEmpty, text.allSatisfy({ $0.isHexDigit || $0 == "-" }) else {
            throw AppError.invalidValue(option: option, message: "'\(reference)' is not a \(kind) id or id prefix (list them with shiftctl \(kind == "shift" ? "schedule" : kind.split(separator: " ")[0]) list)")
        }
        let matches = candidates.filter { $0.id.hasPrefix(text) }
        if matches.count == 1 { return matches[0].value }
        if matches.count > 1 { throw ambiguous(reference, option: option, plural: plural, matches) }
        throw AppError.unknownReference(option: option, kind: kind, reference: reference, suggestions: [])
    }

    /// Several entities called what the user typed in full: more letters cannot help, the id can.
    private func shared<Value>(_ text: String, option: String, kind: String, plural: String, _ matches: [Candidate<Value>]) -> AppError {
        // Symbols of shift types differ exactly; only their case can clash ("d", "D" for "D").
        guard kind != "shift type" else { return ambiguous(text, option: option, plural: plural, matches) }
        return .sharedName(option: option, kind: kind, kindPlural: plural, name: text, ids: matches.sorted { $0.id < $1.id }.map { String($0.id.prefix(8)) })
    }

    private func ambiguous<Value>(_ text: String, option: String, plural: String, _ matches: [Candidate<Value>]) -> AppError {
        let shown = matches.prefix(8).map { "\($0.name ?? "") (\($0.id.prefix(8))…)".trimmingCharacters(in: .whitespaces) }
        let more = matches.count > 8 ? ["…"] : []
        return .ambiguousReference(option: option, kindPlural: plural, reference: text, candidates: shown + more)
    }
}
