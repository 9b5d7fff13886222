import Foundation
import ShiftCore

/// The requests still waiting for a decision (pending or accepted), found by what they are about:
/// a swap's, offer's or claim's shift (by id, wherever the shift is now), and a time-off
/// request's person and days. The calendar and roster views mark them (docs/requests.md).
struct RequestMarks {
    private var byShift: [ShiftID: [Request]] = [:]
    private var timeOff: [PersonID: [Request]] = [:]

    init(_ schedule: Schedule) {
        for request in schedule.requests where request.state.isOpen {
            if request.kind == .timeOff {
                timeOff[request.requesterID, default: []].append(request)
            } else {
                for seen in [request.shift, request.colleagueShift].compactMap({ $0 }) {
                    byShift[seen.shiftID, default: []].append(request)
                }
            }
        }
    }

    var isEmpty: Bool { byShift.isEmpty && timeOff.isEmpty }

    /// The open requests about this shift.
    func about(_ shift: ShiftID) -> [Request] { byShift[shift] ?? [] }

    /// The open time-off requests of this person that cover this day.
    func timeOff(of person: PersonID, on date: LocalDate) -> [Request] {
        (timeOff[person] ?? []).filter { request in
            guard let from = request.from else { return false }
            return from <= date && date <= (request.to ?? from)
        }
    }

    /// The open time-off requests of anyone that cover this day.
    func timeOff(on date: LocalDate) -> [Request] {
        timeOff.keys.sorted().flatMap { timeOff(of: $0, on: date) }
    }

    /// `swap from Alice to Carol, pending (4f1c2a3b)`, `claim by Bob, pending (…)`: one
    /// request as a calendar line shows it.
    static func label(_ request: Request, in schedule: Schedule) -> String {
        let name = { (id: PersonID?) in id.flatMap { schedule.person($0)?.displayName } ?? "?" }
        let what = switch request.kind {
        case .swap:
            request.colleagueShift == nil ? "swap from \(name(request.requesterID)) to \(name(request.colleagueID))"
                : "swap between \(name(request.requesterID)) and \(name(request.colleagueID))"
        case .offer: "offered by \(name(request.requesterID))"
        case .claim: "claim by \(name(request.requesterID))"
        case .timeOff: "time off for \(name(request.requesterID))"
        }
        return "\(what), \(request.state.rawValue) (\(shortID(request.id)))"
    }
}

/// An open request as the calendar's JSON shows it on a day.
public struct CalendarRequestOutput: Encodable, Sendable {
    public let id: String
    public let kind: String
    public let state: String
    public let requester: String
    public let requesterID: String
    /// The shift of the day it is about (nil for time off).
    public let shiftID: String?
    public let summary: String

    enum CodingKeys: String, CodingKey { case id, kind, state, requester, requesterID, shiftID, summary }

    init(_ request: Request, shift: ShiftID?, in schedule: Schedule) {
        id = request.id.description
        kind = request.kind.rawValue
        state = request.state.rawValue
        requester = schedule.person(request.requesterID)?.displayName ?? "?"
        requesterID = request.requesterID.description
        shiftID = shift?.description
        summary = RequestOutput.summary(request, in: schedule)
    }
}
