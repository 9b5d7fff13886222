import Dependencies
import Foundation
import ShiftCore

extension RequestClient: DependencyKey {
    /// Works on the `scheduleConnection` in effect where each call is made.
    public static let liveValue = RequestClient.live { .current }
    /// The live implementation over the preview connection (sample data in memory).
    public static let previewValue = liveValue

    /// The live implementation over one connection.
    public static func live(connection: ScheduleConnection) -> RequestClient { live { connection } }

    static func live(_ connection: @escaping @Sendable () -> ScheduleConnection) -> RequestClient {
        RequestClient(
            requestSwap: { shift, colleague, theirs, requester, reason in
                try await commit(connection(), requester: requester) { workflow, asker in
                    try workflow.swap(shift, by: asker, with: colleague, for: theirs, reason: reason)
                }
            },
            requestOffer: { shift, requester, reason in
                try await commit(connection(), requester: requester) { workflow, asker in try workflow.offer(shift, by: asker, reason: reason) }
            },
            requestClaim: { shift, requester, reason in
                try await commit(connection(), requester: requester) { workflow, asker in try workflow.claim(shift, by: asker, reason: reason) }
            },
            requestTimeOff: { from, to, type, requester, reason in
                try await commit(connection(), requester: requester) { workflow, asker in
                    try workflow.timeOff(from: from, to: to, shiftTypeID: type, by: asker, reason: reason)
                }
            },
            fetchRequests: { mine, pending in
                let store = try await connection().store()
                try await store.refresh()
                return try requests(in: await store.schedule, of: await store.actingUser, mine: mine, pending: pending)
            },
            fetchRequest: { id in try await connection().read { $0.request(id) } },
            accept: { id, reason in try await commit(connection(), id) { try $0.accept($1, reason: reason) } },
            approve: { id, reason in try await commit(connection(), id) { try $0.approve($1, reason: reason) } },
            decline: { id, reason in try await commit(connection(), id) { try $0.decline($1, reason: reason) } },
            cancel: { id, reason in try await commit(connection(), id) { try $0.cancel($1, reason: reason) } },
            observe: { mine, pending in
                connection().stream { store in
                    let user = await store.actingUser
                    let schedules = await store.observe()
                    return AsyncStream { continuation in
                        let task = Task {
                            var last: [Request]?
                            for await schedule in schedules {
                                guard let list = try? requests(in: schedule, of: user, mine: mine, pending: pending) else { break }
                                if list != last { continuation.yield(list) }
                                last = list
                            }
                            continuation.finish()
                        }
                        continuation.onTermination = { _ in task.cancel() }
                    }
                }
            }
        )
    }

    /// Plans against the schedule as it is now, as the store's acting user with the store's
    /// clock and ids, and commits the plan through the funnel.
    private static func commit(
        _ connection: ScheduleConnection, plan: (RequestWorkflow) throws -> RequestPlan
    ) async throws -> RequestCommit {
        let store = try await connection.store()
        try await store.refresh()
        let workflow = RequestWorkflow(
            schedule: await store.schedule, user: await store.actingUser, environment: store.environment,
            databaseStaff: await store.databaseIdentity?.staffPerson)
        return try await store.apply(try plan(workflow))
    }

    /// A new request by `requester`, else by the acting user's person.
    private static func commit(
        _ connection: ScheduleConnection, requester: PersonID?, plan: (RequestWorkflow, PersonID) throws -> RequestPlan
    ) async throws -> RequestCommit {
        try await commit(connection) { workflow in
            let asker = try requester ?? person(of: workflow.user, in: workflow.schedule).id
            return try plan(workflow, asker)
        }
    }

    /// A move of the request with this id.
    private static func commit(
        _ connection: ScheduleConnection, _ id: RequestID, plan: (RequestWorkflow, Request) throws -> RequestPlan
    ) async throws -> RequestCommit {
        try await commit(connection) { workflow in
            guard let request = workflow.schedule.request(id) else {
                throw ScheduleError.notFound(entity: .request, id: id.description, field: "id")
            }
            return try plan(workflow, request)
        }
    }

    private static func requests(in schedule: Schedule, of user: UserProfile, mine: Bool, pending: Bool) throws -> [Request] {
        schedule.requests(involving: mine ? try person(of: user, in: schedule).id : nil, openOnly: pending)
    }

    private static func person(of user: UserProfile, in schedule: Schedule) throws -> Person {
        guard let person = Permissions.person(of: user, in: schedule) else { throw ShiftClientError.userIsNobody(userId: user.userId) }
        return person
    }
}
