import Foundation

/// Settings of one schedule store.
public struct StoreSettings: Codable, Hashable, Sendable {
    /// IANA time zone (`Europe/Berlin`) in which shift start and end instants are computed.
    public var timeZoneIdentifier: String
    /// First day of the week for week-based rules and calendar views.
    public var weekStart: Weekday
    /// How long change-log entries are kept (applied by `prune`).
    public var changeLogRetention: ChangeLogRetentionPolicy
    /// Free-form settings other layers keep in the store (rules folders, rule parameters, the
    /// default acting user): namespaced keys such as `rules.directories`.
    public var extra: Attributes

    public init(
        timeZoneIdentifier: String = TimeZone.current.identifier, weekStart: Weekday = .monday,
        changeLogRetention: ChangeLogRetentionPolicy = .forever, extra: Attributes = [:]
    ) {
        self.timeZoneIdentifier = timeZoneIdentifier
        self.weekStart = weekStart
        self.changeLogRetention = changeLogRetention
        self.extra = extra
    }

    private enum CodingKeys: String, CodingKey { case timeZone, weekStart, changeLogRetention, extra }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        timeZoneIdentifier = try c.decode(String.self, forKey: .timeZone)
        weekStart = try c.decodeIfPresent(Weekday.self, forKey: .weekStart) ?? .monday
        changeLogRetention = try c.decodeIfPresent(ChangeLogRetentionPolicy.self, forKey: .changeLogRetention) ?? .forever
        extra = try c.decodeIfPresent(Attributes.self, forKey: .extra) ?? [:]
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(timeZoneIdentifier, forKey: .timeZone)
        try c.encode(weekStart, forKey: .weekStart)
        try c.encode(changeLogRetention, forKey: .changeLogRetention)
        if !extra.isEmpty { try c.encode(extra, forKey: .extra) }
    }
}

extension StoreSettings {
    /// The key under `extra` that holds the display name a user chose for themselves
    /// (`user.displayName.<userId>`, the embedding's `UserProfileClient`). Once roles are on,
    /// anyone with a role may change their own and no one else's (`Permissions`).
    public static func displayNameKey(for userId: String) -> String { "user.displayName." + userId }
}
