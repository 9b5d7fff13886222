import Dependencies
import Foundation
import ShiftCore

extension ShiftSwitchClient: DependencyKey {
    /// Works on the `scheduleConnection` in effect where each call is made.
    public static let liveValue = ShiftSwitchClient.live { .current }
    /// The live implementation over the preview connection (sample data in memory).
    public static let previewValue = liveValue

    /// The live implementation over one connection.
    public static func live(connection: ScheduleConnection) -> ShiftSwitchClient { live { connection } }

    static func live(_ connection: @escaping @Sendable () -> ScheduleConnection) -> ShiftSwitchClient {
        ShiftSwitchClient(
            switchShift: { uid, date, old, new, reason in
                guard old != new else {
                    throw ScheduleError.invalidValue(field: "new", reason: "the shift already has this type; choose another one")
                }
                let connection = connection()
                let shift = try await connection.read { try Self.shift(uid, in: $0) }
                let result = try await connection.apply(.switchShift(shift.id, to: new, reason: reason)) { schedule in
                    guard let current = schedule.shift(shift.id) else {
                        throw ShiftClientError.shiftChanged(eventIdentifier: uid, reason: "it was deleted")
                    }
                    if current.date != date {
                        throw ShiftClientError.shiftChanged(eventIdentifier: uid, reason: "it is on \(current.date), not \(date)")
                    }
                    if current.shiftTypeID != old {
                        let symbol = schedule.shiftType(current.shiftTypeID)?.symbol ?? current.shiftTypeID.description
                        throw ShiftClientError.shiftChanged(eventIdentifier: uid, reason: "its type is now \(symbol)")
                    }
                }
                guard let entry = result.logEntries.first(where: { $0.newShiftSnapshot?.shiftID == shift.id }) else {
                    preconditionFailure("the store logs every shift change it commits")
                }
                return entry.id
            },
            checkSwitch: { uid, new in
                let store = try await connection().store()
                try await store.refresh()
                let shift = try Self.shift(uid, in: await store.schedule)
                return try await store.check(.switchShift(shift.id, to: new)).violations
            }
        )
    }

    private static func shift(_ eventIdentifier: String, in schedule: Schedule) throws -> ScheduledShift {
        guard let shift = schedule.shift(eventIdentifier: eventIdentifier) else {
            throw ScheduleError.notFound(entity: .shift, id: eventIdentifier, field: "eventIdentifier")
        }
        return shift
    }
}
