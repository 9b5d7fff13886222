import Foundation
import ShiftCore
import ShiftInterop
import ShiftStorage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// File formats for `export` and `import` (docs/interop.md): the store's own JSON, CSV (one row
/// per shift), iCalendar and an HTML roster page (export only).
public enum ExchangeFormat: String, Sendable, CaseIterable {
    case json, csv, ics, html

    /// The format a file name's extension stands for (`.ics`/`.ical`/`.ifb`, `.csv`, `.json`,
    /// `.html`/`.htm`), nil for any other.
    public init?(fileExtensionOf path: String) {
        switch (path as NSString).pathExtension.lowercased() {
        case "json": self = .json
        case "csv": self = .csv
        case "ics", "ical", "icalendar", "ifb": self = .ics
        case "html", "htm": self = .html
        default: return nil
        }
    }
}

/// Which shifts `export` writes (`--person`, `--from`, `--to`, `--type`), as the user typed them.
public struct ExportFilter: Sendable, Hashable {
    public var people: [String]
    public var from: String?
    public var to: String?
    public var types: [String]

    public init(people: [String] = [], from: String? = nil, to: String? = nil, types: [String] = []) {
        self.people = people
        self.from = from
        self.to = to
        self.types = types
    }

    public var isEmpty: Bool { people.isEmpty && from == nil && to == nil && types.isEmpty }
}

public struct ExportOutput: Encodable, Sendable {
    public let file: String
    public let format: String
    public let shifts: Int
    enum CodingKeys: String, CodingKey { case file, format, shifts }
}

/// What `import` merged: per entity kind, how many were added and updated.
public struct ImportOutput: Encodable, Sendable {
    public struct Counts: Encodable, Sendable {
        public var added = 0
        public var updated = 0
        enum CodingKeys: String, CodingKey { case added, updated }
    }

    public let file: String
    public let unchanged: Int
    public let locations: Counts
    public let shiftTypes: Counts
    public let people: Counts
    public let shifts: Counts
    public let demand: Counts
    public let availability: Counts

    enum CodingKeys: String, CodingKey { case file, unchanged, locations, shiftTypes, people, shifts, demand, availability }
}

extension App {
    /// The store's content in a file format, on stdout (`file` nil or `-`) or into a file.
    /// `format` nil: from the file's extension, else json. `filter` narrows csv, ics and html
    /// exports (json is always the whole store).
    public func export(format: ExchangeFormat?, to file: String?, filter: ExportFilter = ExportFilter()) throws -> CommandResult {
        let format = format ?? file.flatMap { ExchangeFormat(fileExtensionOf: $0) } ?? .json
        let schedule = try load()
        if format == .json, !filter.isEmpty {
            throw AppError.invalidValue(option: "--file-format", message: "json exports the whole store; --person, --from, --to and --type apply to csv, ics and html")
        }
        let selection = try self.selection(filter, in: schedule)
        let text: String
        var count = selection.shifts(in: schedule).count
        switch format {
        case .json:
            try schedule.changeLog.prepare()
            text = String(decoding: StoreFileCodec.encode(schedule), as: UTF8.self)
            count = schedule.shiftCount
        case .csv:
            text = ShiftCSV.export(schedule, selection: selection)
        case .ics:
            text = ICalendarExporter(selection: selection, calendarName: calendarName(selection, in: schedule), now: environment.now)
                .export(schedule)
        case .html:
            let engine = try workspace.ruleEngine(for: schedule.settings)
            if !engine.hasEnabledRules, !workspace.runsWithoutRules(schedule.settings) {
                workspace.note("no rules in force, so the page marks no shift as breaking a rule")
            }
            let violations = try engine.validate(schedule)
            let now = CurrentDay(zone: schedule.zone, now: environment.now)
            let local = schedule.zone.localDateTime(at: environment.now())
            let stamp = "\(now.today) \(ICSClock.text(local.minute))"
            text = HTMLRosterExporter(selection: selection, violations: violations, title: calendarName(selection, in: schedule),
                                      subtitle: "exported by shiftctl on \(stamp) (\(schedule.zone.identifier))").export(schedule)
        }
        guard let file, file != "-" else { return .raw(text) }
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: environment.absolute(file)), options: .atomic)
        } catch {
            throw AppError.fileError(path: file, reason: "cannot write the export: \(error.localizedDescription)")
        }
        return CommandResult(text: "exported \(count) shift\(count == 1 ? "" : "s") to \(file)\n",
                             json: ExportOutput(file: file, format: format.rawValue, shifts: count))
    }

    /// `--person`, `--from`, `--to`, `--type` resolved against the schedule.
    func selection(_ filter: ExportFilter, in schedule: Schedule) throws -> ShiftSelection {
        let resolver = ReferenceResolver(schedule)
        let from = try optionalDate(filter.from, option: "--from", in: schedule)
        let to = try optionalDate(filter.to, option: "--to", in: schedule)
        try InputParsing.range(from: from, to: to)
        let people = try filter.people.map { try resolver.person($0, option: "--person").id }
        let types = try filter.types.map { try resolver.shiftType($0, option: "--type").id }
        return ShiftSelection(from: from, to: to, people: people.isEmpty ? nil : Set(people), types: types.isEmpty ? nil : Set(types))
    }

    /// `Shifts — Alice` for one person's calendar, else `Shifts`.
    private func calendarName(_ selection: ShiftSelection, in schedule: Schedule) -> String {
        let names = (selection.people ?? []).compactMap { schedule.person($0)?.displayName }.sorted()
        return names.isEmpty ? "Shifts" : "Shifts — " + names.joined(separator: ", ")
    }

    /// Merges a file into the store as one batch. `format` nil: from the file's extension.
    ///
    /// json merges every entity (new ids added, known ids updated, nothing removed; settings and
    /// change log not imported); csv and ics merge shifts (docs/interop.md). A file with problems
    /// is reported line by line and nothing is written.
    public func importFile(_ file: String, format: ExchangeFormat?) async throws -> CommandResult {
        guard let format = format ?? ExchangeFormat(fileExtensionOf: file) else {
            throw AppError.invalidValue(option: "--file-format", message: "cannot tell the format of \(file) from its extension; pass --file-format json, csv or ics")
        }
        guard format != .html else {
            throw AppError.invalidValue(option: "--file-format", message: "html is an export format only; import json, csv or ics")
        }
        let path = environment.absolute(file)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AppError.fileError(path: file, reason: "cannot read the file (does it exist?)")
        }
        switch format {
        case .json, .html: return try await importJSON(data, file: file)
        case .csv, .ics: return try await importShifts(data, file: file, format: format)
        }
    }

    /// At most this many of an import's problems are listed, one line each; the count covers all.
    static let importProblemsListed = 50

    private func importShifts(_ data: Data, file: String, format: ExchangeFormat) async throws -> CommandResult {
        guard let text = String(data: data, encoding: .utf8) else {
            throw AppError.fileError(path: file, reason: "not UTF-8 text; save it as UTF-8 and import again")
        }
        let progress = ImportProgress(file: file, bytes: data.count, environment: environment)
        progress?.show("reading \(file)…")
        defer { progress?.finish() }
        let current = try load()
        let plan: ShiftImportPlan
        do throws(ImportFailure) {
            plan = format == .csv
                ? try ShiftCSV.plan(text, into: current, progress: progress.map { line in { line.show("reading \(file): row \($0) of \($1)") } })
                : try ICalendarImporter().plan(text, into: current)
        } catch {
            let failure = error
            // The first problems, one line each: a file wrong on every row (say, exported with
            // another column order) is one mistake, not a million lines to scroll through.
            var lines = failure.problems.prefix(Self.importProblemsListed).map { "\(file)" + ($0.line.map { ":\($0)" } ?? "") + ": " + $0.message }
            let count = failure.problems.count
            if count > lines.count { lines.append("\(file): … and \(count - lines.count) more (only the first \(lines.count) are listed)") }
            return CommandResult(text: "", json: nil, status: .badInput,
                                 note: (lines + ["\(file): \(count) problem\(count == 1 ? "" : "s"); nothing was imported"]).joined(separator: "\nshiftctl: "))
        }
        if let mutation = plan.mutation {
            progress?.show("checking \(plan.added.count + plan.updated.count) shifts against the rules and writing them…")
            _ = try await workspace.apply(mutation)
        }
        let shifts = ImportOutput.Counts(added: plan.added.count, updated: plan.updated.count)
        let none = ImportOutput.Counts()
        let output = ImportOutput(file: file, unchanged: plan.unchanged, locations: none, shiftTypes: none, people: none,
                                  shifts: shifts, demand: none, availability: none)
        let summary = plan.isEmpty ? "nothing to import: the store already holds everything in \(file)\n"
            : "imported \(file) as one change\n  shifts: \(shifts.added) added, \(shifts.updated) updated\n"
                + (plan.unchanged > 0 ? "  \(plan.unchanged) unchanged\n" : "")
        return CommandResult(text: summary, json: output)
    }

    private func importJSON(_ data: Data, file: String) async throws -> CommandResult {
        let incoming = try StoreFileCodec.decodeContent([UInt8](data), path: file)
        // The file must make a whole store by itself (its own references, unique ids): checked
        // on another core while its entities are merged and the rules run, before the commit.
        let wholeFile = Task.detached { _ = try incoming.schedule(path: file) }
        // Each incoming shift is looked up in the store: over SQLite, one read of a store not much
        // bigger than the file beats a query per shift.
        let stored = try load()
        let current = stored.shiftCount <= 4 * incoming.shifts.count && incoming.shifts.count >= 1000 ? try stored.materialized() : stored
        var mutations: [Mutation] = []
        var unchanged = 0
        func merge<T: Equatable>(_ items: [T], _ existing: (T) -> T?, add: (T) -> Mutation, update: (T) -> Mutation, _ counts: inout ImportOutput.Counts) {
            for item in items {
                switch existing(item) {
                case nil: mutations.append(add(item)); counts.added += 1
                case let old? where old != item: mutations.append(update(item)); counts.updated += 1
                default: unchanged += 1
                }
            }
        }
        var locations = ImportOutput.Counts(), types = ImportOutput.Counts(), people = ImportOutput.Counts()
        var shifts = ImportOutput.Counts(), demand = ImportOutput.Counts(), availability = ImportOutput.Counts()
        merge(incoming.locations, { current.location($0.id) }, add: { .addLocation($0) }, update: { .updateLocation($0) }, &locations)
        merge(incoming.shiftTypes, { current.shiftType($0.id) }, add: { .addShiftType($0) }, update: { .updateShiftType($0) }, &types)
        merge(incoming.people, { current.person($0.id) }, add: { .addPerson($0) }, update: { .updatePerson($0) }, &people)
        merge(incoming.shifts, { current.shift($0.id) }, add: { .scheduleShift($0) }, update: { .updateShift($0, reason: "import") }, &shifts)
        merge(incoming.demand, { current.demand($0.id) }, add: { .addDemand($0) }, update: { .updateDemand($0) }, &demand)
        merge(incoming.availability, { current.availability($0.id) }, add: { .addAvailability($0) }, update: { .updateAvailability($0) }, &availability)

        let output = ImportOutput(file: file, unchanged: unchanged, locations: locations, shiftTypes: types, people: people,
                                  shifts: shifts, demand: demand, availability: availability)
        if mutations.isEmpty {
            try await wholeFile.value
        } else {
            do {
                _ = try await workspace.apply(.batch(mutations)) { try await wholeFile.value }
            } catch let error where !(error is RejectedChange) {
                // A broken file is reported as the file's problem, where it is in the file.
                try await wholeFile.value
                // What the file clashes with in the store (a name already taken) names the file.
                if let error = error as? ScheduleError, case .conflict = error {
                    throw AppError.fileError(path: file, reason: error.plainMessage + "; nothing was imported")
                }
                throw error
            }
        }
        let parts = [("locations", locations), ("shift types", types), ("people", people), ("shifts", shifts), ("demand", demand), ("availability", availability)]
            .filter { $0.1.added + $0.1.updated > 0 }
            .map { "\($0.0): \($0.1.added) added, \($0.1.updated) updated" }
        let text = mutations.isEmpty ? "nothing to import: the store already holds everything in \(file)\n"
            : "imported \(file) as one change\n" + parts.map { "  \($0)\n" }.joined() + (unchanged > 0 ? "  \(unchanged) unchanged\n" : "")
        return CommandResult(text: text, json: output)
    }
}

/// What a long import is doing, on stderr when it is a terminal: one line rewritten in place
/// (`import: reading roster.csv: row 400000 of 1000000`), cleared when the import ends. Nothing
/// for small files or when stderr is not a terminal (a script, a pipe, a log).
struct ImportProgress: Sendable {
    let write: @Sendable (String) -> Void

    /// Files from this size on show progress (about 20,000 CSV rows).
    static let minimumBytes = 512 << 10

    init?(file: String, bytes: Int, environment: AppEnvironment) {
        guard bytes >= Self.minimumBytes, isatty(STDERR_FILENO) == 1 else { return nil }
        write = environment.diagnostics
    }

    func show(_ text: String) { write("\r\u{1B}[Kimport: " + text) }

    func finish() { write("\r\u{1B}[K") }
}

/// `07:05` for a minute of the day.
enum ICSClock {
    static func text(_ minute: Int) -> String {
        (minute / 60 < 10 ? "0" : "") + String(minute / 60) + ":" + (minute % 60 < 10 ? "0" : "") + String(minute % 60)
    }
}
