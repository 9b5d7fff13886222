import Dependencies
import Foundation
import ShiftCore

extension PersistenceClient: DependencyKey {
    /// Works on the `scheduleConnection` in effect where each call is made.
    public static let liveValue = PersistenceClient.live { .current }
    /// The live implementation over the preview connection (sample data in memory).
    public static let previewValue = liveValue

    /// The live implementation over one connection.
    public static func live(connection: ScheduleConnection) -> PersistenceClient { live { connection } }

    static func live(_ connection: @escaping @Sendable () -> ScheduleConnection) -> PersistenceClient {
        PersistenceClient(
            fetchLocations: { try await connection().read(\.locations) },
            saveLocation: { location in
                let exists = try await connection().read { $0.location(location.id) != nil }
                try await connection().apply(exists ? .updateLocation(location) : .addLocation(location))
            },
            deleteLocation: { id in try await connection().apply(.removeLocation(id)) },
            canDeleteLocation: { id in
                try await connection().read { schedule in
                    guard schedule.location(id) != nil else {
                        throw ScheduleError.notFound(entity: .location, id: id.description, field: "locationID")
                    }
                    return schedule.shiftTypes(at: id).isEmpty
                }
            },
            safeDeleteLocation: { id in
                try await connection().apply(.removeLocation(id)) { schedule in
                    let users = schedule.shiftTypes(at: id).count
                    if users > 0 { throw ShiftClientError.locationInUse(count: users) }
                }
            },
            fetchShiftTypes: { try await connection().read(\.shiftTypes) },
            saveShiftType: { type in
                let exists = try await connection().read { $0.shiftType(type.id) != nil }
                try await connection().apply(exists ? .updateShiftType(type) : .addShiftType(type))
            },
            deleteShiftType: { id in try await connection().apply(.removeShiftType(id)) },
            fetchPeople: { try await connection().read(\.people) },
            savePerson: { person in
                let exists = try await connection().read { $0.person(person.id) != nil }
                try await connection().apply(exists ? .updatePerson(person) : .addPerson(person))
            },
            deletePerson: { id in try await connection().apply(.removePerson(id)) },
            fetchChangeLogEntries: { try await connection().read { try $0.changeLog.prepare(); return $0.changeLog.entries(newestFirst: true) } },
            changeLogRetention: { try await connection().read(\.settings.changeLogRetention) },
            setChangeLogRetention: { policy in
                try await connection().updateSettings { $0.changeLogRetention = policy }
            },
            purgeExpiredChangeLogEntries: {
                let store = try await connection().store()
                try await store.refresh()
                return try await store.pruneChangeLog()
            },
            observe: { connection().stream { await $0.observe() } }
        )
    }
}
