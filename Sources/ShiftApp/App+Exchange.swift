import Foundation
import ShiftCore
import ShiftStorage

/// File formats for `export` and `import`. Only the store's own JSON for now; CSV, iCalendar
/// and HTML are planned as further cases.
public enum ExchangeFormat: String, Sendable, CaseIterable {
    case json
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
    public func export(format: ExchangeFormat, to file: String?) throws -> CommandResult {
        let schedule = try load()
        let bytes: [UInt8] = switch format {
        case .json: StoreFileCodec.encode(schedule)
        }
        guard let file, file != "-" else { return .raw(String(decoding: bytes, as: UTF8.self)) }
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: environment.absolute(file)), options: .atomic)
        } catch {
            throw AppError.fileError(path: file, reason: "cannot write the export: \(error.localizedDescription)")
        }
        return CommandResult(text: "exported \(schedule.shiftCount) shifts to \(file)\n",
                             json: ExportOutput(file: file, format: format.rawValue, shifts: schedule.shiftCount))
    }

    /// Merges the entities of a file into the store as one batch: new ids are added, known ids
    /// updated, nothing removed. Settings and the change log of the file are not imported.
    public func importFile(_ file: String, format: ExchangeFormat) async throws -> CommandResult {
        let path = environment.absolute(file)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AppError.fileError(path: file, reason: "cannot read the file (does it exist?)")
        }
        let incoming: Schedule
        switch format {
        case .json: incoming = try StoreFileCodec.decode([UInt8](data), path: file).schedule
        }
        let current = try load()
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
        merge(incoming.shifts(), { current.shift($0.id) }, add: { .scheduleShift($0) }, update: { .updateShift($0, reason: "import") }, &shifts)
        merge(incoming.demand, { current.demand($0.id) }, add: { .addDemand($0) }, update: { .updateDemand($0) }, &demand)
        merge(incoming.availability, { current.availability($0.id) }, add: { .addAvailability($0) }, update: { .updateAvailability($0) }, &availability)

        let output = ImportOutput(file: file, unchanged: unchanged, locations: locations, shiftTypes: types, people: people,
                                  shifts: shifts, demand: demand, availability: availability)
        if !mutations.isEmpty { _ = try await workspace.apply(.batch(mutations)) }
        let parts = [("locations", locations), ("shift types", types), ("people", people), ("shifts", shifts), ("demand", demand), ("availability", availability)]
            .filter { $0.1.added + $0.1.updated > 0 }
            .map { "\($0.0): \($0.1.added) added, \($0.1.updated) updated" }
        let text = mutations.isEmpty ? "nothing to import: the store already holds everything in \(file)\n"
            : "imported \(file) as one change\n" + parts.map { "  \($0)\n" }.joined() + (unchanged > 0 ? "  \(unchanged) unchanged\n" : "")
        return CommandResult(text: text, json: output)
    }
}
