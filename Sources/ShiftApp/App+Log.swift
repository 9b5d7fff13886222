import Foundation
import ShiftCore

/// What `log prune` did.
public struct PruneOutput: Encodable, Sendable {
    public let removed: Int
    /// Entries older than this instant were removed (nil: nothing to prune, retention is forever).
    public let before: String?
    public let olderThan: String

    enum CodingKeys: String, CodingKey { case removed, before, olderThan }
}

extension App {
    /// Change-log entries, newest first; `--from`/`--to` are dates in the store's time zone.
    public func log(from: String?, to: String?, limit: Int?) throws -> CommandResult {
        let schedule = try load()
        // Only `log` reads a JSON store's change log (other commands leave it unread).
        try schedule.changeLog.prepare()
        let start = try optionalDate(from, option: "--from", in: schedule)
        let end = try optionalDate(to, option: "--to", in: schedule)
        try InputParsing.range(from: start, to: end)
        let instant = { (date: LocalDate) in Date(timeIntervalSince1970: Double(schedule.zone.instant(of: date, minutes: 0))) }
        let entries = schedule.changeLog.entries(
            from: start.map(instant), to: end.map { instant($0.adding(days: 1)).addingTimeInterval(-0.001) }, newestFirst: true,
            limit: try limit.map { try InputParsing.count($0, option: "--limit") })
        var table = TextTable("WHEN", "USER", "CHANGE", "SHIFT DATE", "BEFORE", "AFTER", "REASON")
        for entry in entries {
            let (date, minute) = schedule.zone.localDateTime(atUTC: Int64(entry.timestamp.timeIntervalSince1970.rounded(.down)))
            let when = "\(date) \(HourMinuteTime(hour: minute / 60, minute: minute % 60)!)"
            if let created = entry.createdShifts {
                let dates = created.lastDate == entry.scheduledShiftDate
                    ? entry.scheduledShiftDate.description : "\(entry.scheduledShiftDate)…\(created.lastDate)"
                let count = created.shiftIDs.count
                table.add(when, entry.userDisplayName, entry.changeType.rawValue, dates, "-",
                          "\(count) shift\(count == 1 ? "" : "s")", entry.reason ?? "")
                continue
            }
            table.add(when, entry.userDisplayName, entry.changeType.rawValue, entry.scheduledShiftDate.description,
                      Self.snapshotText(entry.oldShiftSnapshot), Self.snapshotText(entry.newShiftSnapshot), entry.reason ?? "")
        }
        return CommandResult(text: entries.isEmpty ? "no change-log entries\n" : table.rendered, json: ListOutput(key: "entries", items: entries))
    }

    /// Drops entries older than `olderThan` (e.g. `90d`), else the store's retention policy.
    public func pruneLog(olderThan: String?) async throws -> CommandResult {
        let schedule = try load()
        let policy = try olderThan.map { try InputParsing.retention($0, option: "--older-than") } ?? schedule.settings.changeLogRetention
        guard let cutoff = policy.cutoff(now: environment.now()) else {
            return CommandResult(text: "nothing to prune: the store keeps its change log forever (pass --older-than 90d)\n",
                                 json: PruneOutput(removed: 0, before: nil, olderThan: policy.description))
        }
        let store = try await workspace.openStore()
        let removed = try await store.pruneChangeLog(before: cutoff)
        return CommandResult(text: "removed \(removed) change-log entr\(removed == 1 ? "y" : "ies") older than \(policy)\n",
                             json: PruneOutput(removed: removed, before: Timestamp.format(cutoff), olderThan: policy.description))
    }

    static func snapshotText(_ snapshot: ShiftSnapshot?) -> String {
        guard let snapshot else { return "-" }
        return "\(snapshot.symbol) \(snapshot.personName ?? "(open)")"
    }
}
