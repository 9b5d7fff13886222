import Dependencies
import Foundation
import ShiftCore

extension CalendarClient: DependencyKey {
    /// Works on the `scheduleConnection` in effect where each call is made.
    public static let liveValue = CalendarClient.live { .current }
    /// The live implementation over the preview connection (sample data in memory).
    public static let previewValue = liveValue

    /// The live implementation over one connection.
    public static func live(connection: ScheduleConnection) -> CalendarClient { live { connection } }

    static func live(_ connection: @escaping @Sendable () -> ScheduleConnection) -> CalendarClient {
        CalendarClient(
            createShift: { type, date, person, notes in
                @Dependency(\.uuid) var uuid
                return try await connection().store().createShift(type: type, date: date, person: person, notes: notes, id: ShiftID(uuid()))
            },
            fetchShift: { uid in try await connection().read { $0.shift(eventIdentifier: uid) } },
            fetchShifts: { date in try await connection().read { $0.shifts(on: date) } },
            fetchShiftsInRange: { from, to in try await connection().read { $0.shifts(from: from, to: to) } },
            deleteShift: { uid, reason in try await connection().store().deleteShift(eventIdentifier: uid, reason: reason) },
            checkForDuplicate: { type, date, person in
                try await connection().read { $0.hasShift(type: type, on: date, person: person) }
            },
            updateShift: { shift, reason in
                let connection = connection()
                try await connection.apply(.updateShift(shift, reason: reason))
                return try await connection.store().schedule.shift(shift.id) ?? shift
            },
            observe: { from, to in connection().stream { await $0.observe(ShiftQuery(from: from, to: to)) } }
        )
    }
}
