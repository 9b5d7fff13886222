import Foundation

extension ScheduleError {
    /// The message in the words of someone who uses the schedule rather than this code (the
    /// command line, a script's error): field paths such as `batch[3].shiftType.symbol` become
    /// `shift type symbol`, and a rule that failed to run is named by its own message, not by
    /// the validator that ran it. `description` keeps the paths, for developers.
    public var plainMessage: String {
        switch self {
        case let .notFound(entity, id, field):
            "\(Self.words(field)): no \(Self.words(entity.rawValue)) with id \(id)"
        case let .duplicateID(entity, id, field):
            "\(Self.words(field)): a \(Self.words(entity.rawValue)) with id \(id) already exists"
        case let .unknownReference(field, id):
            "\(Self.words(field)): refers to \(id), which does not exist"
        case let .invalidValue(field, reason), let .conflict(field, reason):
            "\(Self.words(field)): \(reason)"
        case let .validatorFailed(_, message):
            "the rules could not check the change, so nothing was written: \(message)"
        case .rejected, .lockTimeout, .forbidden:
            description
        }
    }

    /// `batch[3].person.displayName` → `person name`; `shiftTypeID` → `shift type`.
    static func words(_ path: String) -> String {
        let parts = path.split(separator: ".").map(String.init).filter { !$0.hasPrefix("batch") && !$0.hasPrefix("[") }
        let named = parts.suffix(2).map { part -> String in
            let bare = part.replacingOccurrences(of: #"\[\d+\]$"#, with: "", options: .regularExpression)
            return fieldWords[bare] ?? spaced(bare)
        }
        return named.isEmpty ? "the change" : named.joined(separator: " ")
    }

    private static let fieldWords = [
        "displayName": "name", "shiftType": "shift type", "shiftTypeID": "shift type", "personID": "person",
        "locationID": "location", "shiftID": "shift", "demandID": "demand entry", "availabilityID": "availability entry",
        "changeLogEntry": "change-log entry", "shift_type": "shift type", "change_log": "change log",
        "requesterID": "requester", "colleagueID": "colleague", "colleagueShift": "colleague's shift",
    ]

    /// `eventIdentifier` → `event identifier`.
    private static func spaced(_ name: String) -> String {
        var out = ""
        for character in name {
            if character.isUppercase, !out.isEmpty { out += " " }
            out += character.lowercased()
        }
        return out.replacingOccurrences(of: "_", with: " ")
    }
}
