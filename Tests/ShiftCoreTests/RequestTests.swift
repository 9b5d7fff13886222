import Foundation
import TestSupport
import Testing
@testable import ShiftCore

/// Requests in the core: their shape, the state machine (every allowed move and every refused
/// one, with its message) and requests made or moved on stale data.
@Suite struct RequestTests {
    static let f = Fixture()
    static let bobsDay = f.shift(1, f.day, "2026-03-02", f.bob)
    static let carolsNight = f.shift(2, f.night, "2026-03-03", f.carol)
    static let open = f.shift(3, f.day, "2026-03-04", nil)

    static func made(_ n: Int = 0) -> RequestTransition {
        RequestTransition(state: .pending, timestamp: fixedNow.addingTimeInterval(Double(n)), by: alice, reason: "family")
    }

    static func swap(_ id: Int = 1) -> Request {
        Request(id: RequestID(uuid(300 + id)), kind: .swap, requesterID: f.bob.id, shift: SeenShift(bobsDay),
                colleagueID: f.carol.id, colleagueShift: SeenShift(carolsNight), history: [made(id)])
    }
    static func offer() -> Request {
        Request(id: RequestID(uuid(310)), kind: .offer, requesterID: f.bob.id, shift: SeenShift(bobsDay), history: [made()])
    }
    static func claim() -> Request {
        Request(id: RequestID(uuid(311)), kind: .claim, requesterID: f.carol.id, shift: SeenShift(open), history: [made()])
    }
    static func timeOff() -> Request {
        Request(id: RequestID(uuid(312)), kind: .timeOff, requesterID: f.bob.id, from: date("2026-03-10"), to: date("2026-03-12"),
                history: [made()])
    }

    private func store() async throws -> ScheduleStore {
        let (store, _) = try await Self.f.store()
        try await store.apply(.batch([.scheduleShift(Self.bobsDay), .scheduleShift(Self.carolsNight), .scheduleShift(Self.open)]))
        return store
    }

    @Test(arguments: [swap(), offer(), claim(), timeOff()])
    func eachKindIsMadeAndReadBack(_ request: Request) async throws {
        let store = try await store()
        let result = try await store.apply(.addRequest(request))
        #expect(result.changes == [.request(before: nil, after: request)])
        #expect(await store.schedule.request(request.id) == request)
        #expect(await store.schedule.requests == [request])
    }

    func move(_ request: Request, to state: RequestState) -> Request {
        request.moved(RequestTransition(state: state, timestamp: fixedNow.addingTimeInterval(60), by: alice, reason: "because"))
    }

    /// Every (kind, from, to) pair: allowed ones commit, refused ones name the state.
    @Test func everyMoveIsAllowedOrRefusedAsTheStateMachineSays() async throws {
        for request in [Self.swap(), Self.offer(), Self.claim(), Self.timeOff()] {
            for from in RequestState.allCases {
                for to in RequestState.allCases {
                    let store = try await store()
                    var start = request
                    // Reach `from` through allowed moves.
                    let path: [RequestState] = switch from {
                    case .pending: []
                    case .accepted: [.accepted]
                    case .approved: request.needsAcceptance ? [.accepted, .approved] : [.approved]
                    default: [from]
                    }
                    try await store.apply(.addRequest(start))
                    var reachable = true
                    for step in path {
                        let next = move(start, to: step)
                        do { try await store.apply(.updateRequest(next)); start = next } catch { reachable = false; break }
                    }
                    guard reachable else {
                        #expect(from == .accepted && !request.needsAcceptance)
                        continue
                    }
                    let before = await store.schedule
                    let allowed = from.canMove(to: to, kind: request.kind, needsAcceptance: request.needsAcceptance)
                    if allowed {
                        try await store.apply(.updateRequest(move(start, to: to)))
                        #expect(await store.schedule.request(request.id)?.state == to)
                    } else {
                        await #expect(throws: ScheduleError.conflict(field: "request.state", reason: MutationContext.refusedMove(start, to: to))) {
                            try await store.apply(.updateRequest(move(start, to: to)))
                        }
                        #expect(await store.schedule == before)
                    }
                }
            }
        }
    }

    @Test func refusedMovesSayWhy() {
        var approved = Self.offer()
        approved = move(approved, to: .approved)
        #expect(MutationContext.refusedMove(approved, to: .cancelled).hasSuffix("is already approved; only a pending or accepted request can be cancelled"))
        #expect(MutationContext.refusedMove(Self.swap(), to: .approved).hasSuffix("is a swap with a colleague, who has to accept it before it is approved"))
        #expect(MutationContext.refusedMove(Self.timeOff(), to: .accepted).hasSuffix("is a time-off request; only a swap is accepted"))
    }

    @Test func aRequestMadeOnStaleDataFailsNamingTheChange() async throws {
        let store = try await store()
        try await store.apply(.reassignShift(Self.bobsDay.id, to: Self.f.carol.id))
        let before = await store.schedule
        await #expect(throws: ScheduleError.conflict(
            field: "request.shift",
            reason: "the shift changed since it was read: D on 2026-03-02 for Bob is now D on 2026-03-02 for Carol; look again and make the request anew")) {
            try await store.apply(.addRequest(Self.offer()))
        }
        #expect(await store.schedule == before)
    }

    @Test func approvingAfterTheShiftChangedFailsAndKeepsTheRequestPending() async throws {
        let store = try await store()
        try await store.apply(.addRequest(Self.offer()))
        try await store.apply(.switchShift(Self.bobsDay.id, to: Self.f.night.id))
        await #expect(throws: ScheduleError.self) { try await store.apply(.updateRequest(move(Self.offer(), to: .approved))) }
        #expect(await store.schedule.request(Self.offer().id)?.state == .pending)
        // Declining needs no current shift.
        try await store.apply(.updateRequest(move(Self.offer(), to: .declined)))
    }

    @Test func shapeAndPartiesAreChecked() async throws {
        let store = try await store()
        var notMine = Self.offer(); notMine.requesterID = Self.f.carol.id
        var notOpen = Self.claim(); notOpen.shift = SeenShift(Self.bobsDay)
        var backwards = Self.timeOff(); backwards.to = date("2026-03-01")
        var withShift = Self.timeOff(); withShift.shift = SeenShift(Self.bobsDay)
        var selfSwap = Self.swap(); selfSwap.colleagueID = Self.f.bob.id
        var twoStates = Self.offer(); twoStates = move(twoStates, to: .approved)
        let cases: [(Request, ScheduleError)] = [
            (notMine, .conflict(field: "request.shift", reason: "the shift on 2026-03-02 is not the requester's own")),
            (notOpen, .conflict(field: "request.shift", reason: "the shift on 2026-03-02 is not open; only an open shift can be claimed")),
            (backwards, .invalidValue(field: "request.to", reason: "ends (2026-03-01) before it starts (2026-03-10)")),
            (withShift, .invalidValue(field: "request.shift", reason: "a time-off request has none")),
            (selfSwap, .invalidValue(field: "request.colleagueID", reason: "a swap is with someone else")),
            (twoStates, .invalidValue(field: "request.history", reason: "a new request has one state change, to pending")),
        ]
        for (request, error) in cases {
            await #expect(throws: error) { try await store.apply(.addRequest(request)) }
        }
        #expect(await store.schedule.requestCount == 0)
    }

    @Test func onlyTheStateChangesOnceMade() async throws {
        let store = try await store()
        try await store.apply(.addRequest(Self.timeOff()))
        var edited = move(Self.timeOff(), to: .cancelled)
        edited.to = date("2026-03-20")
        await #expect(throws: ScheduleError.invalidValue(
            field: "request", reason: "only a request's state changes once it is made; make a new request instead")) {
            try await store.apply(.updateRequest(edited))
        }
    }

    @Test func removingAPersonRemovesTheirRequests() async throws {
        let store = try await store()
        try await store.apply(.batch([.addRequest(Self.timeOff()), .addRequest(Self.claim())]))
        try await store.apply(.removePerson(Self.f.bob.id))
        #expect(await store.schedule.requests.map(\.id) == [Self.claim().id])
    }
}
