import Dependencies
import Foundation
import ShiftCore
import ShiftDependencies
import ShiftStorage
import Testing
import TestSupport

/// The request client over the stock rules: each person works through a connection of their
/// own over one repository, as each user's app would.
@Suite struct RequestClientTests {
    static let bobsEarly = ScheduledShift(id: ShiftID(UUID(100)), shiftTypeID: early.id, date: date("2026-03-05"), personID: bob.id)
    static let carolsLate = ScheduledShift(id: ShiftID(UUID(101)), shiftTypeID: late.id, date: date("2026-03-05"), personID: carol.id)
    /// An open night before Bob's early on Thursday: 0 h of rest between them.
    static let openNight = ScheduledShift(id: ShiftID(UUID(102)), shiftTypeID: night.id, date: date("2026-03-04"))
    static let openLate = ScheduledShift(id: ShiftID(UUID(103)), shiftTypeID: late.id, date: date("2026-03-07"))

    /// The sample catalogue with the shifts above, people with the roles given, and
    /// `requests.auto_approve` when asked.
    static func ward(roles: [PersonID: Role] = [:], autoApprove: Bool = false) throws -> Schedule {
        let base = try catalogue()
        var settings = base.settings
        if autoApprove { settings.extra[StoreSettings.autoApproveKey] = .bool(true) }
        let people = base.people.map { person in
            var person = person
            if let role = roles[person.id] { person.attributes[Role.attribute] = .string(role.rawValue) }
            return person
        }
        return try Schedule(
            settings: settings, locations: base.locations, shiftTypes: base.shiftTypes, people: people,
            shifts: [bobsEarly, carolsLate, openNight, openLate])
    }

    static let bobUser = UserProfile(userId: "bob", displayName: "Bob")
    static let carolUser = UserProfile(userId: "carol", displayName: "Carol")

    /// Each user's request client over one repository, with the stock rules.
    static func clients(
        _ repository: InMemoryRepository, enforcesRoles: Bool = true
    ) -> (bob: RequestClient, carol: RequestClient, alice: RequestClient) {
        func client(_ user: UserProfile) -> RequestClient {
            .live(connection: ScheduleConnection(ScheduleConfiguration(
                backend: .repository(repository), rulesDirectories: [stockRules], defaultProfile: user, enforcesRoles: enforcesRoles)))
        }
        return (client(bobUser), client(carolUser), client(alice))
    }

    @Test func aSwapGoesFromRequestThroughAcceptanceToApproval() async throws {
        let repository = InMemoryRepository(try Self.ward())
        try await withLiveClients(ScheduleConfiguration(backend: .repository(repository)), now: mondayMorning) {
            let (bob, carol, scheduler) = Self.clients(repository)
            let made = try await bob.requestSwap(
                shift: Self.bobsEarly, colleagueID: SampleSchedule.carol.id, theirs: Self.carolsLate, requester: nil, reason: "a wedding")
            #expect(made.action == "made")
            #expect(made.request.state == .pending)
            #expect(made.request.requesterID == SampleSchedule.bob.id, "the requester is the app user's person")
            let id = made.request.id

            // The funnel's own refusal: the field is the request's place in the plan's batch.
            await #expect(throws: ScheduleError.conflict(
                field: "batch[0].request.state",
                reason: "request \(id.description.prefix(8)) is a swap with a colleague, who has to accept it before it is approved")) {
                _ = try await scheduler.approve(id: id, reason: nil)
            }
            #expect(try await carol.accept(id: id, reason: nil).request.state == .accepted)
            #expect(try await carol.fetchRequests(mine: true, pending: true).map(\.id) == [id], "addressed to Carol, so hers too")

            let approved = try await scheduler.approve(id: id, reason: "fine")
            #expect(approved.action == "approved")
            let schedule = repository.snapshot
            #expect(schedule.shift(Self.bobsEarly.id)?.personID == SampleSchedule.carol.id)
            #expect(schedule.shift(Self.carolsLate.id)?.personID == SampleSchedule.bob.id)
            let request = try #require(schedule.request(id))
            #expect(request.history.map(\.state) == [.pending, .accepted, .approved])
            #expect(request.history.map(\.userId) == ["bob", "carol", "alice"])
            #expect(request.history.map(\.reason) == ["a wedding", nil, "fine"])
            #expect(request.history.allSatisfy { $0.timestamp == mondayMorning }, "stamped by the date dependency")
            #expect(schedule.changeLog.suffix(2).allSatisfy { $0.reason == "request \(id.description.prefix(8)): swap approved" })
            #expect(try await bob.fetchRequests(mine: true, pending: false).map(\.state) == [.approved])
            #expect(try await bob.fetchRequests(mine: false, pending: true).isEmpty)
            #expect(try await bob.fetchRequest(id: id) == request)
        }
    }

    @Test func anApprovalTheRulesRefuseLeavesTheRequestPendingWithTheViolations() async throws {
        let repository = InMemoryRepository(try Self.ward())
        try await withLiveClients(ScheduleConfiguration(backend: .repository(repository)), now: mondayMorning) {
            let (bob, _, scheduler) = Self.clients(repository)
            let claim = try await bob.requestClaim(shift: Self.openNight, requester: nil, reason: nil)
            #expect(claim.request.state == .pending)
            let before = repository.snapshot
            do {
                _ = try await scheduler.approve(id: claim.request.id, reason: nil)
                Issue.record("the rules should have refused the night before Bob's early")
            } catch let ScheduleError.rejected(violations) {
                #expect(violations.contains { $0.ruleID == "min_rest_between_shifts" && $0.severity == .error }, "\(violations)")
            }
            #expect(repository.snapshot == before, "nothing written")
            #expect(try await scheduler.fetchRequest(id: claim.request.id)?.state == .pending)
            #expect(try await scheduler.fetchRequests(mine: false, pending: true).map(\.id) == [claim.request.id])
        }
    }

    @Test func withAutoApprovalAClaimThatPassesIsApprovedAndOneThatDoesNotWaits() async throws {
        let repository = InMemoryRepository(try Self.ward(autoApprove: true))
        try await withLiveClients(ScheduleConfiguration(backend: .repository(repository)), now: mondayMorning) {
            let (bob, _, _) = Self.clients(repository)
            let waits = try await bob.requestClaim(shift: Self.openNight, requester: nil, reason: nil)
            #expect(waits.action == "made")
            #expect(waits.request.state == .pending)
            #expect(waits.autoApprovalRefusal.contains { $0.ruleID == "min_rest_between_shifts" })
            #expect(waits.note == "not approved automatically: the rules refuse the change (1 violation: min_rest_between_shifts); it waits for a scheduler")

            let taken = try await bob.requestClaim(shift: Self.openLate, requester: nil, reason: nil)
            #expect(taken.action == "made and approved")
            #expect(taken.request.state == .approved)
            #expect(taken.request.history.last?.reason == RequestWorkflow.autoApprovalReason)
            #expect(taken.note == nil)
            #expect(repository.snapshot.shift(Self.openLate.id)?.personID == SampleSchedule.bob.id)
        }
    }

    @Test func timeOffApprovedBecomesUnavailabilityAndOpensTheShifts() async throws {
        let repository = InMemoryRepository(try Self.ward())
        try await withLiveClients(ScheduleConfiguration(backend: .repository(repository)), now: mondayMorning) {
            let (bob, _, scheduler) = Self.clients(repository)
            let asked = try await bob.requestTimeOff(
                from: date("2026-03-05"), to: date("2026-03-06"), shiftTypeID: nil, requester: nil, reason: "moving house")
            _ = try await scheduler.approve(id: asked.request.id, reason: nil)
            let schedule = repository.snapshot
            #expect(schedule.shift(Self.bobsEarly.id)?.personID == nil)
            #expect(schedule.availability(of: SampleSchedule.bob.id).map { [$0.from, $0.to] } == [[date("2026-03-05"), date("2026-03-06")]])
            #expect(schedule.availability(of: SampleSchedule.bob.id).first?.kind == .unavailable)
        }
    }

    @Test func aSchedulerMakesARequestForSomeoneAndTheRequesterCancelsIt() async throws {
        let repository = InMemoryRepository(try Self.ward())
        try await withLiveClients(ScheduleConfiguration(backend: .repository(repository)), now: mondayMorning) {
            let (bob, _, scheduler) = Self.clients(repository)
            let offer = try await scheduler.requestOffer(shift: Self.bobsEarly, requester: SampleSchedule.bob.id, reason: nil)
            #expect(offer.request.requesterID == SampleSchedule.bob.id)
            #expect(offer.request.history.first?.userId == "alice", "made by the scheduler")
            #expect(try await bob.cancel(id: offer.request.id, reason: "found cover").request.state == .cancelled)
            await #expect(throws: ScheduleError.conflict(
                field: "state",
                reason: "request \(offer.request.id.description.prefix(8)) is already cancelled; only a pending or accepted request can be declined")) {
                _ = try await scheduler.decline(id: offer.request.id, reason: nil)
            }
        }
    }

    @Test func badRequestsAreRefusedNamingTheFieldWithNothingWritten() async throws {
        let repository = InMemoryRepository(try Self.ward())
        try await withLiveClients(ScheduleConfiguration(backend: .repository(repository)), now: mondayMorning) {
            let (bob, _, _) = Self.clients(repository)
            let before = repository.snapshot
            await #expect(throws: ScheduleError.invalidValue(field: "shift", reason: "the L shift on 2026-03-05 is Carol's, not Bob's")) {
                try await bob.requestOffer(shift: Self.carolsLate, requester: nil, reason: nil)
            }
            await #expect(throws: ScheduleError.invalidValue(field: "shift", reason: "the L shift on 2026-03-05 is Carol's, not open; only an open shift can be claimed")) {
                try await bob.requestClaim(shift: Self.carolsLate, requester: nil, reason: nil)
            }
            await #expect(throws: ScheduleError.invalidValue(field: "colleagueID", reason: "a swap is with someone else, not Bob")) {
                try await bob.requestSwap(shift: Self.bobsEarly, colleagueID: SampleSchedule.bob.id, theirs: nil, requester: nil, reason: nil)
            }
            await #expect(throws: ScheduleError.invalidValue(field: "from", reason: "2026-03-01 is in the past (today is 2026-03-02); time off is asked for ahead")) {
                try await bob.requestTimeOff(from: date("2026-03-01"), to: date("2026-03-01"), shiftTypeID: nil, requester: nil, reason: nil)
            }
            await #expect(throws: ScheduleError.notFound(entity: .request, id: RequestID(UUID(999)).description, field: "id")) {
                _ = try await bob.approve(id: RequestID(UUID(999)), reason: nil)
            }
            let stranger = RequestClient.live(connection: ScheduleConnection(ScheduleConfiguration(
                backend: .repository(repository), rulesDirectories: [stockRules], defaultProfile: UserProfile(userId: "mallory", displayName: "M"))))
            await #expect(throws: ShiftClientError.userIsNobody(userId: "mallory")) {
                try await stranger.requestOffer(shift: Self.bobsEarly, requester: nil, reason: nil)
            }
            await #expect(throws: ShiftClientError.userIsNobody(userId: "mallory")) {
                try await stranger.fetchRequests(mine: true, pending: false)
            }
            #expect(repository.snapshot == before)
        }
    }

    @Test func aRequestOnAShiftThatChangedSinceTheAppReadItIsRefused() async throws {
        let repository = InMemoryRepository(try Self.ward())
        try await withLiveClients(ScheduleConfiguration(backend: .repository(repository), rulesDirectories: [stockRules], defaultProfile: alice), now: mondayMorning) {
            @Dependency(\.shiftSwitchClient) var shiftSwitch
            let (bob, _, _) = Self.clients(repository)
            let seen = Self.bobsEarly
            _ = try await shiftSwitch.switchShift(eventIdentifier: seen.eventIdentifier, date: seen.date, old: early.id, new: late.id, reason: nil)
            let before = repository.snapshot
            do {
                _ = try await bob.requestOffer(shift: seen, requester: nil, reason: nil)
                Issue.record("a request on a shift that changed should be refused")
            } catch let ScheduleError.conflict(field, reason) {
                #expect(field == "batch[0].request.shift")
                #expect(reason.hasPrefix("the shift changed since it was read: E on 2026-03-05 for Bob is now L on 2026-03-05 for Bob"), "\(reason)")
            }
            #expect(repository.snapshot == before)
        }
    }

    @Test func aRequestWhoseShiftStartedExpiresWithTheNextRequestChange() async throws {
        let repository = InMemoryRepository(try Self.ward())
        let (offer, other) = try await withLiveClients(ScheduleConfiguration(backend: .repository(repository)), now: mondayMorning) {
            let (bob, carol, _) = Self.clients(repository)
            return (try await bob.requestOffer(shift: Self.bobsEarly, requester: nil, reason: nil).request.id,
                    try await carol.requestOffer(shift: Self.carolsLate, requester: nil, reason: nil).request.id)
        }
        // Thursday 07:00 in Berlin: Bob's early (06:00) has started, Carol's late (14:00) has not.
        let thursday = Date(timeIntervalSince1970: 1_772_690_400)
        try await withLiveClients(ScheduleConfiguration(backend: .repository(repository)), now: thursday) {
            let (_, _, scheduler) = Self.clients(repository)
            await #expect(throws: ScheduleError.conflict(
                field: "state", reason: "request \(offer.description.prefix(8)) expired: its shift started at 2026-03-05 E; it can no longer be approved")) {
                _ = try await scheduler.approve(id: offer, reason: nil)
            }
            #expect(repository.snapshot.request(offer)?.state == .pending, "a refused approval writes nothing")
            _ = try await scheduler.decline(id: other, reason: "no cover")
            let expired = try #require(repository.snapshot.request(offer))
            #expect(expired.state == .expired)
            #expect(expired.history.last?.reason == "its shift started at 2026-03-05 E")
        }
    }

    @Test func aStaffMemberMayNotApproveAndTheFunnelSaysWhoAndWhy() async throws {
        let roles: [PersonID: Role] = [SampleSchedule.alice.id: .scheduler, SampleSchedule.bob.id: .staff, SampleSchedule.carol.id: .staff]
        let repository = InMemoryRepository(try Self.ward(roles: roles))
        try await withLiveClients(ScheduleConfiguration(backend: .repository(repository)), now: mondayMorning) {
            let (bob, carol, scheduler) = Self.clients(repository)
            let offer = try await bob.requestOffer(shift: Self.bobsEarly, requester: nil, reason: nil)
            let before = repository.snapshot
            await #expect(throws: ScheduleError.forbidden(message: "Bob (staff) may not approve requests; a scheduler or admin may")) {
                _ = try await bob.approve(id: offer.request.id, reason: nil)
            }
            await #expect(throws: ScheduleError.forbidden(message: "Carol (staff) may not cancel someone else's request; a scheduler or admin may")) {
                _ = try await carol.cancel(id: offer.request.id, reason: nil)
            }
            await #expect(throws: ScheduleError.forbidden(message: "Carol (staff) may not make a request for someone else; a scheduler or admin may")) {
                try await carol.requestOffer(shift: Self.bobsEarly, requester: SampleSchedule.bob.id, reason: nil)
            }
            #expect(repository.snapshot == before)
            _ = try await scheduler.approve(id: offer.request.id, reason: nil)
            #expect(repository.snapshot.shift(Self.bobsEarly.id)?.personID == nil)
        }
    }

    @Test func withRolesNotEnforcedTheAppDecidesWhoMayApprove() async throws {
        let repository = InMemoryRepository(try Self.ward(roles: [SampleSchedule.bob.id: .staff]))
        try await withLiveClients(ScheduleConfiguration(backend: .repository(repository)), now: mondayMorning) {
            let (bob, _, _) = Self.clients(repository, enforcesRoles: false)
            let offer = try await bob.requestOffer(shift: Self.bobsEarly, requester: nil, reason: nil)
            #expect(try await bob.approve(id: offer.request.id, reason: nil).request.state == .approved)
        }
    }

    @Test func previewsMakeRequestsOnTheSampleSchedule() async throws {
        try await withDependencies {
            $0.context = .preview
            $0.date = .constant(mondayMorning)
        } operation: {
            @Dependency(\.requestClient) var requests
            @Dependency(\.calendarClient) var calendar
            let shift = try #require(try await calendar.fetchShifts(on: date("2026-03-09")).first { $0.personID == SampleSchedule.alice.id })
            // The preview user is nobody in the sample schedule: name the requester.
            let offer = try await requests.requestOffer(shift: shift, requester: SampleSchedule.alice.id, reason: "preview")
            #expect(offer.request.history.first?.userId == SampleSchedule.profile.userId)
            #expect(try await requests.fetchRequests(mine: false, pending: true).map(\.id) == [offer.request.id])
        }
    }

    @Test func observingYieldsTheOpenRequestsWhenTheyChange() async throws {
        let repository = InMemoryRepository(try Self.ward())
        try await withLiveClients(ScheduleConfiguration(backend: .repository(repository), rulesDirectories: [stockRules], defaultProfile: Self.bobUser), now: mondayMorning) {
            @Dependency(\.requestClient) var requests
            var open = requests.observe(mine: true, pending: true).makeAsyncIterator()
            #expect(await open.next() == [])
            let offer = try await requests.requestOffer(shift: Self.bobsEarly, requester: nil, reason: nil)
            #expect(await open.next()?.map(\.id) == [offer.request.id])
            _ = try await requests.cancel(id: offer.request.id, reason: nil)
            #expect(await open.next() == [])
        }
    }
}
