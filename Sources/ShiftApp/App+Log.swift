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

extension App {
    /// How often `log --follow` asks the store whether anything was committed, besides the
    /// wake-ups a store that can announce commits sends (PostgreSQL's NOTIFY).
    static let followInterval: Duration = .seconds(1)

    /// `log --follow`: the newest `limit` entries (10 by default, `--from` as for `log`), oldest
    /// first, then every entry committed from then on by any process or machine, as it arrives,
    /// until the calling task is cancelled (Ctrl-C). Each entry is one line: the columns of `log`,
    /// or one JSON object a line (JSON Lines). Works on every store: the store's own commit
    /// announcements wake it where there are some (LISTEN/NOTIFY on PostgreSQL), and it looks
    /// every `followInterval` besides.
    ///
    /// - Throws: the store's error when it cannot be opened (nothing is printed then). A store
    ///   that cannot be read later is said once on stderr and tried again.
    public func followLog(from: String?, limit: Int?, format: OutputFormat, write: @escaping @Sendable (String) -> Void) async throws {
        let store = try workspace.translatingStorageErrors { try ScheduleStore(repository: try workspace.repository()) }
        let schedule = await store.schedule
        let start = try optionalDate(from, option: "--from", in: schedule)
        let count = try limit.map { try InputParsing.count($0, option: "--limit") } ?? 10
        let zone = schedule.zone
        let backlog = schedule.changeLog.entries(
            from: start.map { Date(timeIntervalSince1970: Double(zone.instant(of: $0, minutes: 0))) }, newestFirst: true, limit: count)
        if let failure = schedule.source?.takeFailure() { throw failure }
        for entry in backlog.reversed() { write(try Self.followLine(entry, format: format, zone: zone)) }
        // The newest entry seen so far: later ones are the new ones.
        let newest = schedule.changeLog.entries(newestFirst: true, limit: 1).first
        let diagnostics = environment.diagnostics

        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    var last = newest
                    for await current in await store.observe() {
                        let fresh = Self.entries(after: last, in: current.changeLog)
                        if let failure = current.source?.takeFailure() {
                            diagnostics("shiftctl: note: \(CommandRunner.message(for: failure))\n")
                            continue
                        }
                        for entry in fresh { write(try Self.followLine(entry, format: format, zone: zone)) }
                        if let latest = fresh.last { last = latest }
                    }
                }
                group.addTask {
                    var failing = false
                    while true {
                        try await Task.sleep(for: Self.followInterval)
                        do {
                            try await store.refresh()
                            if failing { diagnostics("shiftctl: note: reading the store again\n") }
                            failing = false
                        } catch {
                            if !failing {
                                diagnostics("shiftctl: note: cannot read the store (\(CommandRunner.message(for: error))); still trying\n")
                            }
                            failing = true
                        }
                    }
                }
                try await group.next()
                group.cancelAll()
            }
        } catch is CancellationError {
            return
        }
    }

    /// The entries of `log` after `last` (by id; when `last` was pruned meanwhile, those made
    /// after it), oldest first.
    static func entries(after last: ChangeLogEntry?, in log: ChangeLog) -> [ChangeLogEntry] {
        guard let last else { return Array(log) }
        var limit = 64
        while true {
            let newest = log.entries(newestFirst: true, limit: limit)
            if let index = newest.firstIndex(where: { $0.id == last.id }) { return newest[..<index].reversed() }
            if newest.count < limit { return newest.filter { $0.timestamp > last.timestamp }.reversed() }
            limit *= 4
        }
    }

    /// One entry as one line: the columns of `log`, or a JSON object.
    static func followLine(_ entry: ChangeLogEntry, format: OutputFormat, zone: ZoneRules) throws -> String {
        switch format {
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return String(decoding: try encoder.encode(entry), as: UTF8.self) + "\n"
        case .text:
            let (date, minute) = zone.localDateTime(atUTC: Int64(entry.timestamp.timeIntervalSince1970.rounded(.down)))
            let when = "\(date) \(HourMinuteTime(hour: minute / 60, minute: minute % 60)!)"
            let fields = [when, entry.userDisplayName, entry.changeType.rawValue, entry.scheduledShiftDate.description,
                          snapshotText(entry.oldShiftSnapshot) + " -> " + snapshotText(entry.newShiftSnapshot)]
                + (entry.reason.map { [$0] } ?? [])
            return fields.map { CommandRunner.printable($0.replacingOccurrences(of: "\n", with: " ")) }.joined(separator: "  ") + "\n"
        }
    }
}
