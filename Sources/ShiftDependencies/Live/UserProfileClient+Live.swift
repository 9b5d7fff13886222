import Dependencies
import Foundation
import ShiftCore

extension UserProfileClient: DependencyKey {
    /// Works on the `scheduleConnection` in effect where each call is made.
    public static let liveValue = UserProfileClient.live { .current }
    /// The live implementation over the preview connection (sample data in memory).
    public static let previewValue = liveValue

    /// The live implementation over one connection.
    public static func live(connection: ScheduleConnection) -> UserProfileClient { live { connection } }

    static func live(_ connection: @escaping @Sendable () -> ScheduleConnection) -> UserProfileClient {
        UserProfileClient(
            current: {
                let connection = connection()
                let store = try await connection.store()
                return await store.actingUser
            },
            updateDisplayName: { name in
                let displayName = try ProfileSettings.validated(name)
                return try await Self.save(connection()) { settings, profile in
                    settings.extra[ProfileSettings.key(for: profile.userId)] = .string(displayName)
                }
            },
            reset: {
                try await Self.save(connection()) { settings, profile in
                    settings.extra[ProfileSettings.key(for: profile.userId)] = nil
                }
            }
        )
    }

    /// Changes the settings through the funnel, then makes the store act as the profile they
    /// now describe.
    private static func save(
        _ connection: ScheduleConnection, _ change: @escaping @Sendable (inout StoreSettings, UserProfile) -> Void
    ) async throws -> UserProfile {
        let store = try await connection.store()
        let acting = await store.actingUser
        let base = connection.defaultProfile ?? acting
        try await connection.updateSettings { change(&$0, base) }
        let profile = ProfileSettings.profile(for: base, in: await store.schedule.settings)
        await store.setActingUser(profile)
        return profile
    }
}

/// Where display names live in the store's settings: `user.displayName.<userId>` under `extra`.
enum ProfileSettings {
    static func key(for userId: String) -> String { StoreSettings.displayNameKey(for: userId) }

    /// `profile` with the display name the settings save for its user id, if any.
    static func profile(for profile: UserProfile, in settings: StoreSettings) -> UserProfile {
        guard let name = settings.extra[key(for: profile.userId)]?.stringValue, !name.isEmpty else { return profile }
        return UserProfile(userId: profile.userId, displayName: name)
    }

    /// The trimmed name, or `ScheduleError.invalidValue` naming `displayName`.
    static func validated(_ name: String) throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw ScheduleError.invalidValue(field: "displayName", reason: "must not be empty") }
        if let scalar = trimmed.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            throw ScheduleError.invalidValue(
                field: "displayName", reason: "contains the control character U+\(String(scalar.value, radix: 16, uppercase: true))")
        }
        guard trimmed.utf8.count <= 256 else { throw ScheduleError.invalidValue(field: "displayName", reason: "is longer than 256 bytes") }
        return trimmed
    }
}
