import Foundation
import ShiftCore
import ShiftStorage

/// What `init` created.
public struct InitOutput: Encodable, Sendable {
    public let store: String
    public let timeZone: String
    public let weekStart: String
    /// The rules folders recorded in the store (relative to its folder).
    public let rulesDirectories: [String]
    /// True when the stock rules were copied (false: none wanted, or the folder already existed).
    public let copiedStockRules: Bool

    enum CodingKeys: String, CodingKey { case store, timeZone, weekStart, rulesDirectories, copiedStockRules }
}

extension App {
    /// Creates a store; unless `noRules`, copies the stock rules into `rules/` beside it and
    /// records `rules.directories = ["rules"]`. With `noRules` the store records
    /// `rules.none = true`: it runs without rules on purpose, so commands that check or change
    /// it go ahead when no rule is in force.
    public func initialize(timeZone: String?, weekStart: String?, noRules: Bool) async throws -> CommandResult {
        let path = workspace.absoluteStorePath
        let kind = try workspace.storeKind()
        guard try !workspace.translatingStorageErrors({ try kind.exists(at: path) }) else { throw AppError.storeExists(path: workspace.storePath) }

        let zone = timeZone ?? environment.variables["TZ"].flatMap { ZoneRules(identifier: $0)?.identifier } ?? TimeZone.current.identifier
        guard ZoneRules(identifier: zone) != nil else {
            throw AppError.invalidValue(option: "--time-zone", message: "'\(zone)' is not an IANA time zone (e.g. Europe/Berlin)")
        }
        var settings = StoreSettings(timeZoneIdentifier: zone, weekStart: try weekStart.map { try InputParsing.weekday($0, option: "--week-start") } ?? .monday)

        do {
            try FileManager.default.createDirectory(atPath: workspace.storeFolder, withIntermediateDirectories: true)
        } catch {
            throw AppError.fileError(path: workspace.storeFolder, reason: "cannot create the folder: \(error.localizedDescription)")
        }
        var copied = false
        if !noRules {
            let source = try StockRules.locate(environment: environment)
            copied = try StockRules.install(from: source, to: workspace.storeFolder + "/rules")
            settings.extra[SettingsKey.rulesDirectories] = .list([.string("rules")])
        } else {
            settings.extra[SettingsKey.noRules] = .bool(true)
        }

        do {
            let repository = try kind.repository(path: path, createIfMissing: true, initialSettings: settings)
            let store = try ScheduleStore(repository: repository, actingUser: workspace.actingUser(settings: settings))
            try await store.apply(.updateSettings(settings))
        } catch {
            kind.removeFiles(at: path)
            throw error
        }

        let output = InitOutput(
            store: workspace.storePath, timeZone: zone, weekStart: settings.weekStart.name,
            rulesDirectories: noRules ? [] : ["rules"], copiedStockRules: copied)
        var text = "created \(workspace.storePath) (time zone \(zone), weeks start on \(settings.weekStart.name))\n"
        if noRules {
            text += "no rules: changes and validate will not be checked (the store records \(SettingsKey.noRules) = true)\n"
        } else {
            text += copied ? "copied the stock rules to rules/ (edit them or add your own there)\n"
                : "kept the existing rules/ folder beside the store\n"
        }
        return CommandResult(text: text, json: output)
    }
}
