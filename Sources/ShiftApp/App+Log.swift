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

/// `log --format json`: the change-log entries and the requests' state changes of the same
/// window, each newest first.
public struct LogOutput: Encodable, Sendable {
    public let entries: [ChangeLogEntry]
    public let requestEvents: [RequestEventOutput]
}

/// One state change of a request as `log` shows it. Requests keep their history in themselves
/// (`Request.history`: who, when, why), not in the change log, so `log` reads both into one
/// timeline.
public struct RequestEventOutput: Encodable, Sendable {
    public let timestamp: String
    public let userId: String
    public let userDisplayName: String
    public let requestID: String
    public let kind: String
    /// `made`, `accepted`, `approved`, `declined`, `cancelled` or `expired`.
    public let event: String
    public let state: String
    /// The state before (absent when the request was made).
    public let previousState: String?
    public let requester: String
    public let requesterID: String
    /// What the request asks for (`D 2026-03-02 to Carol`), as `request list` shows it.
    public let summary: String
    /// The first date it is about: its shift's, or its first day off.
    public let date: String?
    public let reason: String?
}

/// A row of `log`: a change-log entry or a request's state change.
enum LogItem {
    case entry(ChangeLogEntry)
    /// The request and the position of the state change in its history.
    case request(Request, Int)

    var timestamp: Date {
        switch self {
        case let .entry(entry): entry.timestamp
        case let .request(request, step): request.history[step].timestamp
        }
    }

    /// Every state change of every request made between two instants (both inclusive), newest
    /// first.
    static func requestEvents(in schedule: Schedule, from: Date?, to: Date?) -> [LogItem] {
        var items: [LogItem] = []
        for request in schedule.requests {
            for (step, transition) in request.history.enumerated()
            where from.map({ transition.timestamp >= $0 }) ?? true && to.map({ transition.timestamp <= $0 }) ?? true {
                items.append(.request(request, step))
            }
        }
        return items.sorted { $0.timestamp > $1.timestamp }
    }

    /// Entries and request events (each newest first) as one list, newest first, cut to
    /// `limit`. A request event made by the same commit as entries comes after them, so that
    /// read from the bottom up an approval comes before the shift changes it made.
    static func merged(_ entries: [ChangeLogEntry], _ events: [LogItem], limit: Int?) -> [LogItem] {
        var items: [LogItem] = []
        var (e, r) = (0, 0)
        while items.count < (limit ?? Int.max), e < entries.count || r < events.count {
            if r == events.count || (e < entries.count && entries[e].timestamp >= events[r].timestamp) {
                items.append(.entry(entries[e]))
                e += 1
            } else {
                items.append(events[r])
                r += 1
            }
        }
        return items
    }

    /// `swap made`, `time off approved`.
    static func change(_ request: Request, _ step: Int) -> String {
        "\(request.kind.words) \(event(request.history[step].state))"
    }

    static func event(_ state: RequestState) -> String { state == .pending ? "made" : state.rawValue }
}

extension RequestEventOutput {
    init(_ request: Request, _ step: Int, in schedule: Schedule) {
        let transition = request.history[step]
        timestamp = Timestamp.format(transition.timestamp)
        userId = transition.userId
        userDisplayName = transition.userDisplayName
        requestID = request.id.description
        kind = request.kind.rawValue
        event = LogItem.event(transition.state)
        state = transition.state.rawValue
        previousState = step > 0 ? request.history[step - 1].state.rawValue : nil
        requester = schedule.person(request.requesterID)?.displayName ?? "?"
        requesterID = request.requesterID.description
        summary = RequestOutput.summary(request, in: schedule)
        date = request.firstDate?.description
        reason = transition.reason
    }
}

extension App {
    /// Change-log entries and requests' state changes, newest first; `--from`/`--to` are dates
    /// in the store's time zone, `--limit` counts both.
    public func log(from: String?, to: String?, limit: Int?) throws -> CommandResult {
        let schedule = try load()
        // Only `log` reads a JSON store's change log (other commands leave it unread), and only
        // the entries it shows.
        try schedule.changeLog.prepareToList()
        let start = try optionalDate(from, option: "--from", in: schedule)
        let end = try optionalDate(to, option: "--to", in: schedule)
        try InputParsing.range(from: start, to: end)
        let count = try limit.map { try InputParsing.count($0, option: "--limit") }
        let instant = { (date: LocalDate) in Date(timeIntervalSince1970: Double(schedule.zone.instant(of: date, minutes: 0))) }
        let (first, last) = (start.map(instant), end.map { instant($0.adding(days: 1)).addingTimeInterval(-0.001) })
        let items = LogItem.merged(
            schedule.changeLog.entries(from: first, to: last, newestFirst: true, limit: count),
            LogItem.requestEvents(in: schedule, from: first, to: last), limit: count)
        if let failure = schedule.changeLog.takeFailure() ?? schedule.source?.takeFailure() { throw failure }
        var table = TextTable("WHEN", "USER", "CHANGE", "SHIFT DATE", "BEFORE", "AFTER", "REASON")
        for item in items { table.add(row: Self.logColumns(item, zone: schedule.zone)) }
        var entries: [ChangeLogEntry] = []
        var events: [RequestEventOutput] = []
        for item in items {
            switch item {
            case let .entry(entry): entries.append(entry)
            case let .request(request, step): events.append(RequestEventOutput(request, step, in: schedule))
            }
        }
        return CommandResult(text: items.isEmpty ? "no change-log entries\n" : table.rendered, json: LogOutput(entries: entries, requestEvents: events))
    }

    /// The columns of a row of `log`: when, user, change, shift date, before, after, reason. A
    /// request's state change shows the states before and after, and `request 1a2b3c4d` with
    /// the reason given, as the shift changes of an approval do.
    static func logColumns(_ item: LogItem, zone: ZoneRules) -> [String] {
        let (date, minute) = zone.localDateTime(at: item.timestamp)
        let when = "\(date) \(HourMinuteTime(hour: minute / 60, minute: minute % 60)!)"
        switch item {
        case let .entry(entry):
            if let created = entry.createdShifts {
                let dates = created.lastDate == entry.scheduledShiftDate
                    ? entry.scheduledShiftDate.description : "\(entry.scheduledShiftDate)…\(created.lastDate)"
                let count = created.count
                return [when, entry.userDisplayName, entry.changeType.rawValue, dates, "-", "\(count) shift\(count == 1 ? "" : "s")", entry.reason ?? ""]
            }
            return [when, entry.userDisplayName, entry.changeType.rawValue, entry.scheduledShiftDate.description,
                    snapshotText(entry.oldShiftSnapshot), snapshotText(entry.newShiftSnapshot), entry.reason ?? ""]
        case let .request(request, step):
            let transition = request.history[step]
            return [when, transition.userDisplayName, LogItem.change(request, step), request.firstDate?.description ?? "-",
                    step > 0 ? request.history[step - 1].state.rawValue : "-", transition.state.rawValue,
                    "request \(shortID(request.id))" + (transition.reason.map { ": \($0)" } ?? "")]
        }
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

    /// `log --follow`: the newest `limit` entries and request events (10 by default, `--from` as
    /// for `log`), oldest first, then every entry committed from then on by any process or
    /// machine, and every request state change, as it arrives, until the calling task is
    /// cancelled (Ctrl-C). Each is one line: the columns of `log`, or one JSON object a line
    /// (JSON Lines). Works on every store: the store's own commit announcements wake it where
    /// there are some (LISTEN/NOTIFY on PostgreSQL), and it looks every `followInterval` besides.
    ///
    /// - Throws: the store's error when it cannot be opened (nothing is printed then). A store
    ///   that cannot be read later is said once on stderr and tried again.
    public func followLog(from: String?, limit: Int?, format: OutputFormat, write: @escaping @Sendable (String) -> Void) async throws {
        let store = try workspace.translatingStorageErrors { try ScheduleStore(repository: try workspace.repository()) }
        let schedule = await store.schedule
        let start = try optionalDate(from, option: "--from", in: schedule)
        let count = try limit.map { try InputParsing.count($0, option: "--limit") } ?? 10
        let zone = schedule.zone
        let first = start.map { Date(timeIntervalSince1970: Double(zone.instant(of: $0, minutes: 0))) }
        let backlog = LogItem.merged(
            schedule.changeLog.entries(from: first, newestFirst: true, limit: count),
            LogItem.requestEvents(in: schedule, from: first, to: nil), limit: count)
        if let failure = schedule.source?.takeFailure() { throw failure }
        for item in backlog.reversed() { write(try Self.followLine(item, format: format, in: schedule)) }
        // The newest entry and the request steps seen so far: later ones are the new ones.
        let newest = schedule.changeLog.entries(newestFirst: true, limit: 1).first
        let steps = Self.requestSteps(in: schedule)
        let diagnostics = environment.diagnostics

        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    var last = newest
                    var seen = steps
                    for await current in await store.observe() {
                        let fresh = Self.entries(after: last, in: current.changeLog)
                        if let failure = current.source?.takeFailure() {
                            diagnostics("shiftctl: note: \(CommandRunner.message(for: failure))\n")
                            continue
                        }
                        let events = Self.requestEvents(after: seen, in: current)
                        for item in LogItem.merged(fresh.reversed(), events, limit: nil).reversed() {
                            write(try Self.followLine(item, format: format, in: current))
                        }
                        if let latest = fresh.last { last = latest }
                        seen = Self.requestSteps(in: current)
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

    /// How many state changes each request has had.
    static func requestSteps(in schedule: Schedule) -> [RequestID: Int] {
        Dictionary(uniqueKeysWithValues: schedule.requests.map { ($0.id, $0.history.count) })
    }

    /// The request state changes beyond the `seen` counts, newest first.
    static func requestEvents(after seen: [RequestID: Int], in schedule: Schedule) -> [LogItem] {
        var items: [LogItem] = []
        for request in schedule.requests where request.history.count > seen[request.id] ?? 0 {
            for step in (seen[request.id] ?? 0)..<request.history.count { items.append(.request(request, step)) }
        }
        return items.sorted { $0.timestamp > $1.timestamp }
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

    /// One entry or request event as one line: the columns of `log` (the shift or the request
    /// state before and after joined by `->`), or a JSON object as in `log --format json`.
    static func followLine(_ item: LogItem, format: OutputFormat, in schedule: Schedule) throws -> String {
        switch format {
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let data = switch item {
            case let .entry(entry): try encoder.encode(entry)
            case let .request(request, step): try encoder.encode(RequestEventOutput(request, step, in: schedule))
            }
            return String(decoding: data, as: UTF8.self) + "\n"
        case .text:
            let columns = logColumns(item, zone: schedule.zone)
            let fields = Array(columns[0..<4]) + [columns[4] + " -> " + columns[5]] + (columns[6].isEmpty ? [] : [columns[6]])
            return fields.map { CommandRunner.printable($0.replacingOccurrences(of: "\n", with: " ")) }.joined(separator: "  ") + "\n"
        }
    }
}
