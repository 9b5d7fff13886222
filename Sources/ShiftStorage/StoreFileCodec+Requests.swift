import Foundation
import ShiftCore

/// The `requests` section (version 4 on): one request per line, its history inside it, so a
/// state change is a one-line diff.
extension StoreFileCodec {
    static func writeRequest(_ request: Request, _ w: inout JSONWriter) {
        w.beginObject()
        w.key("id"); w.uuid(request.id.rawValue)
        w.key("kind"); w.string(request.kind.rawValue)
        w.key("requesterID"); w.uuid(request.requesterID.rawValue)
        if let seen = request.shift { w.key("shift"); writeSeen(seen, &w) }
        if let colleague = request.colleagueID { w.key("colleagueID"); w.uuid(colleague.rawValue) }
        if let seen = request.colleagueShift { w.key("colleagueShift"); writeSeen(seen, &w) }
        if let from = request.from { w.key("from"); w.date(from) }
        if let to = request.to { w.key("to"); w.date(to) }
        if let type = request.shiftTypeID { w.key("shiftTypeID"); w.uuid(type.rawValue) }
        w.key("history")
        w.beginArray()
        for transition in request.history {
            w.element()
            w.beginObject()
            w.key("state"); w.string(transition.state.rawValue)
            w.key("timestamp"); w.string(Timestamp.format(transition.timestamp))
            w.key("userId"); w.string(transition.userId)
            w.key("userDisplayName"); w.string(transition.userDisplayName)
            if let reason = transition.reason { w.key("reason"); w.string(reason) }
            w.endObject()
        }
        w.endArray()
        w.endObject()
    }

    private static func writeSeen(_ seen: SeenShift, _ w: inout JSONWriter) {
        w.beginObject()
        w.key("shiftID"); w.uuid(seen.shiftID.rawValue)
        w.key("shiftTypeID"); w.uuid(seen.shiftTypeID.rawValue)
        w.key("date"); w.date(seen.date)
        if let person = seen.personID { w.key("personID"); w.uuid(person.rawValue) }
        w.endObject()
    }
}

extension EntityDecoder {
    func request(_ r: inout JSONReader, _ path: @autoclosure () -> String) throws(StorageError) -> Request {
        let start = r.position
        var id: UUID?
        var kind: RequestKind?
        var requester: UUID?
        var shift: SeenShift?
        var colleague: UUID?
        var colleagueShift: SeenShift?
        var from: LocalDate?
        var to: LocalDate?
        var type: UUID?
        var history: [RequestTransition]?
        try r.readObject { r, key throws(StorageError) in
            switch key {
            case "id": id = try r.readUUID(path() + ".id")
            case "kind":
                let at = r.valueStart()
                let text = try r.readString()
                guard let parsed = RequestKind(rawValue: text) else {
                    throw r.error("\(path()).kind: '\(text)' is not swap, offer, claim or time_off", at: at)
                }
                kind = parsed
            case "requesterID": requester = try r.readUUID(path() + ".requesterID")
            case "shift": shift = try seen(&r, path() + ".shift")
            case "colleagueID": colleague = try r.readUUID(path() + ".colleagueID")
            case "colleagueShift": colleagueShift = try seen(&r, path() + ".colleagueShift")
            case "from": from = try r.readDate(path() + ".from")
            case "to": to = try r.readDate(path() + ".to")
            case "shiftTypeID": type = try r.readUUID(path() + ".shiftTypeID")
            case "history":
                var items: [RequestTransition] = []
                try r.readArray { r, index throws(StorageError) in items.append(try transition(&r, "\(path()).history[\(index)]")) }
                history = items
            default: throw r.error("\(path()): unknown field \"\(key)\"", at: r.lastKeyPosition)
            }
        }
        func missing(_ field: String) -> StorageError { r.error("\(path()): missing \"\(field)\"", at: start) }
        guard let id else { throw missing("id") }
        guard let kind else { throw missing("kind") }
        guard let requester else { throw missing("requesterID") }
        guard let history else { throw missing("history") }
        return Request(
            id: RequestID(id), kind: kind, requesterID: PersonID(requester), shift: shift,
            colleagueID: colleague.map(PersonID.init), colleagueShift: colleagueShift, from: from, to: to,
            shiftTypeID: type.map(ShiftTypeID.init), history: history)
    }

    private func seen(_ r: inout JSONReader, _ path: @autoclosure () -> String) throws(StorageError) -> SeenShift {
        let start = r.position
        var shiftID: UUID?
        var typeID: UUID?
        var date: LocalDate?
        var personID: UUID?
        try r.readObject { r, key throws(StorageError) in
            switch key {
            case "shiftID": shiftID = try r.readUUID(path() + ".shiftID")
            case "shiftTypeID": typeID = try r.readUUID(path() + ".shiftTypeID")
            case "date": date = try r.readDate(path() + ".date")
            case "personID": personID = try r.readUUID(path() + ".personID")
            default: throw r.error("\(path()): unknown field \"\(key)\"", at: r.lastKeyPosition)
            }
        }
        guard let shiftID else { throw r.error("\(path()): missing \"shiftID\"", at: start) }
        guard let typeID else { throw r.error("\(path()): missing \"shiftTypeID\"", at: start) }
        guard let date else { throw r.error("\(path()): missing \"date\"", at: start) }
        return SeenShift(shiftID: ShiftID(shiftID), shiftTypeID: ShiftTypeID(typeID), date: date, personID: personID.map(PersonID.init))
    }

    private func transition(_ r: inout JSONReader, _ path: @autoclosure () -> String) throws(StorageError) -> RequestTransition {
        let start = r.position
        var state: RequestState?
        var timestamp: Date?
        var userId: String?
        var userName: String?
        var reason: String?
        try r.readObject { r, key throws(StorageError) in
            switch key {
            case "state":
                let at = r.valueStart()
                let text = try r.readString()
                guard let parsed = RequestState(rawValue: text) else {
                    throw r.error("\(path()).state: '\(text)' is not pending, accepted, approved, declined, cancelled or expired", at: at)
                }
                state = parsed
            case "timestamp":
                let at = r.valueStart()
                let text = try r.readString()
                guard let parsed = Timestamp.parse(text) else {
                    throw r.error("\(path()).timestamp: '\(text)' is not a UTC timestamp (YYYY-MM-DDTHH:MM:SS.sssZ)", at: at)
                }
                timestamp = parsed
            case "userId": userId = try r.readString()
            case "userDisplayName": userName = try r.readString()
            case "reason": reason = try r.readString()
            default: throw r.error("\(path()): unknown field \"\(key)\"", at: r.lastKeyPosition)
            }
        }
        guard let state else { throw r.error("\(path()): missing \"state\"", at: start) }
        guard let timestamp else { throw r.error("\(path()): missing \"timestamp\"", at: start) }
        guard let userId else { throw r.error("\(path()): missing \"userId\"", at: start) }
        return RequestTransition(state: state, timestamp: timestamp, userId: userId, userDisplayName: userName ?? userId, reason: reason)
    }
}
