import Dependencies
import DependenciesMacros
import Foundation
import ShiftCore

/// The app's user: the name the change log records for their edits.
///
/// The user id comes from the configuration's `defaultProfile`; the display name they choose is
/// saved in the store's settings (one key per user id, so people sharing a store keep their
/// own) through the funnel, and the store records their later changes under it.
@DependencyClient
public struct UserProfileClient: Sendable {
    /// The profile the store records changes under.
    public var current: @Sendable () async throws -> UserProfile
    /// Saves a new display name (trimmed; it must not be empty or hold control characters) and
    /// returns the updated profile.
    public var updateDisplayName: @Sendable (_ displayName: String) async throws -> UserProfile
    /// Forgets the saved display name: back to the configuration's default profile.
    public var reset: @Sendable () async throws -> UserProfile
}

extension UserProfileClient: TestDependencyKey {
    /// Every endpoint unimplemented: a test fails when it calls one it did not override.
    public static let testValue = UserProfileClient()
}

extension DependencyValues {
    public var userProfileClient: UserProfileClient {
        get { self[UserProfileClient.self] }
        set { self[UserProfileClient.self] = newValue }
    }
}
