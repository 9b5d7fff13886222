import Foundation
import LuaHost
import ShiftCore

/// What `shiftctl rotations list` and `rotations show` tell about a rotation plugin.
public struct RotationInfo: Codable, Hashable, Sendable {
    public let id: String
    public let summary: String
    /// Where the pattern is defined (a citation).
    public let source: String
    public let file: String
    /// Team names in the order the file lists them.
    public let teams: [String]
    /// Each team's day string over one cycle (fixed patterns; empty for `generate` rotations).
    public let pattern: [String: String]
    /// Days in one cycle (nil for `generate` rotations).
    public let cycleDays: Int?
    /// Shift letters and their default times (`D` → `07:00-19:00`).
    public let shifts: [String: String]
    /// Average weekly hours of one team over the cycle, from the letters' default times.
    public let averageWeeklyHours: Double?
}

/// A request to generate a rotation into a schedule.
public struct RotationRequest: Sendable {
    public var rotation: String
    /// Team name → people, in order (`A` → [Bob, Carol]).
    public var teams: [(name: String, people: [PersonID])]
    public var from: LocalDate
    public var to: LocalDate
    /// The date on which the cycle starts (day 0); default `from`.
    public var anchor: LocalDate?
    /// Shift letter → shift type; letters not given use the shift type with that symbol.
    public var shiftTypes: [String: ShiftTypeID]

    public init(rotation: String, teams: [(name: String, people: [PersonID])], from: LocalDate, to: LocalDate,
                anchor: LocalDate? = nil, shiftTypes: [String: ShiftTypeID] = [:]) {
        self.rotation = rotation
        self.teams = teams
        self.from = from
        self.to = to
        self.anchor = anchor
        self.shiftTypes = shiftTypes
    }
}

/// Why a rotation could not be generated.
public enum RotationError: Error, Hashable, Sendable, CustomStringConvertible, LocalizedError {
    case unknownRotation(name: String, available: [String])
    case unknownTeam(rotation: String, team: String, teams: [String])
    case unmappedLetter(rotation: String, letter: String, time: String?)
    case invalidRange(from: LocalDate, to: LocalDate)
    case invalidPattern(file: String, message: String)
    case generateFailed(file: String, message: String)

    public var description: String {
        switch self {
        case let .unknownRotation(name, available):
            "no rotation '\(name)'; available: \(available.joined(separator: ", "))"
        case let .unknownTeam(rotation, team, teams):
            "rotation \(rotation) has no team '\(team)'; its teams are \(teams.joined(separator: ", "))"
        case let .unmappedLetter(rotation, letter, time):
            "rotation \(rotation) uses shift \(letter)\(time.map { " (\($0))" } ?? "") but no shift type has the symbol \(letter): "
                + "add one (shiftctl type add \(letter)\(time.map { " --time \($0)" } ?? "")) or map it with --shift \(letter)=SYMBOL"
        case let .invalidRange(from, to):
            "--to (\(to)) is before --from (\(from))"
        case let .invalidPattern(file, message):
            "\(file): \(message)"
        case let .generateFailed(file, message):
            "\(file): \(message)"
        }
    }

    public var errorDescription: String? { description }
}

/// A rotation as loaded.
struct LoadedRotation {
    var info: RotationInfo
    var generate: LuaRef?
    var params: LuaTable
}

/// Characters that mean "off" in a day string.
public let rotationOffLetters: Set<Character> = ["-", "O", "."]

enum RotationSpec {
    static let knownKeys: Set<String> = ["__plugin", "id", "summary", "description", "source", "teams", "team_order", "shifts", "generate", "params"]

    static func read(_ plugin: LuaRef, file: String, runtime: LuaRuntime) throws -> LoadedRotation {
        func invalid(_ message: String) -> RuleError { .invalidRule(file: file, message: message) }
        guard case let .table(spec) = try runtime.value(of: plugin) else { throw invalid("rotation{ … } must be given a table") }
        for key in spec.hash.keys {
            guard case let .string(name) = key, knownKeys.contains(name) else {
                throw invalid("unknown field \(key.stringValue.map { "'\($0)'" } ?? "") in rotation{ … } (id, summary, description, source, teams, team_order, shifts, generate, params)")
            }
        }
        guard case let .string(id) = spec["id"], id.range(of: #"^[a-z0-9][a-z0-9_\-]*$"#, options: .regularExpression) != nil else {
            throw invalid("a rotation needs an id of lowercase letters, digits, - and _ (id = \"panama\")")
        }
        guard let summary = spec["summary"].stringValue, !summary.isEmpty else { throw invalid("rotation \(id) needs a summary") }
        let source = spec["source"].stringValue ?? ""

        var shifts: [String: String] = [:]
        for (key, value) in spec["shifts"].tableValue?.hash ?? [:] {
            guard let letter = key.stringValue, letter.count == 1, !rotationOffLetters.contains(Character(letter)) else {
                throw invalid("rotation \(id): shifts are keyed by one letter (not -, O or .)")
            }
            let time = value.stringValue ?? value["time"].stringValue ?? ""
            guard ShiftDuration(time) != nil else { throw invalid("rotation \(id): shift \(letter): '\(time)' is not a duration") }
            shifts[letter] = time
        }

        var pattern: [String: String] = [:]
        var order: [String] = spec["team_order"].tableValue?.array.compactMap(\.stringValue) ?? []
        for (key, value) in spec["teams"].tableValue?.hash ?? [:] {
            guard let team = key.stringValue, let days = value.stringValue, !days.isEmpty else {
                throw invalid("rotation \(id): teams map a team name to its day string, e.g. A = \"DD--NN--\"")
            }
            pattern[team] = days
        }
        if order.isEmpty { order = pattern.keys.sorted() }
        guard Set(order) == Set(pattern.keys) || pattern.isEmpty else {
            throw invalid("rotation \(id): team_order must list exactly the teams")
        }
        let generate: LuaRef?
        switch spec["generate"] {
        case .nil: generate = nil
        case let .function(ref): generate = ref
        default: throw invalid("rotation \(id): generate must be a function")
        }
        guard generate != nil || !pattern.isEmpty else { throw invalid("rotation \(id) needs teams = { … } or a generate function") }

        var cycle: Int?
        var average: Double?
        if !pattern.isEmpty {
            let lengths = Set(pattern.values.map(\.count))
            guard lengths.count == 1, let length = lengths.first else {
                throw invalid("rotation \(id): every team's day string must have the same length (the cycle)")
            }
            cycle = length
            for (team, days) in pattern {
                for letter in days where !rotationOffLetters.contains(letter) && shifts[String(letter)] == nil {
                    throw invalid("rotation \(id): team \(team) uses '\(letter)', which is not in shifts = { … }")
                }
            }
            let minutes = pattern.values.map { days in
                days.reduce(0) { total, letter in total + (shifts[String(letter)].flatMap { ShiftDuration($0)?.nominalMinutes } ?? 0) }
            }
            average = Double(minutes.reduce(0, +)) / Double(minutes.count) / 60 / Double(length) * 7
        }
        let info = RotationInfo(id: id, summary: summary, source: source, file: file, teams: order, pattern: pattern,
                                cycleDays: cycle, shifts: shifts, averageWeeklyHours: average)
        return LoadedRotation(info: info, generate: generate, params: spec["params"].tableValue ?? LuaTable())
    }
}

extension EngineState {
    /// The shifts a rotation puts into a schedule: for each date from `from` to `to`, each staffed
    /// team's letter for that day of the cycle, one shift per person in the team.
    func generateRotation(_ request: RotationRequest, in schedule: Schedule, makeID: () -> UUID) throws -> [ScheduledShift] {
        guard let rotation = rotations.first(where: { $0.info.id == request.rotation }) else {
            throw RotationError.unknownRotation(name: request.rotation, available: rotations.map(\.info.id))
        }
        guard request.from <= request.to else { throw RotationError.invalidRange(from: request.from, to: request.to) }
        let anchor = request.anchor ?? request.from
        var pattern = rotation.info.pattern
        var explicit: [(team: String, date: LocalDate, letter: String)]?
        if let generate = rotation.generate {
            (pattern, explicit) = try runGenerate(generate, rotation, request, anchor: anchor, schedule: schedule)
        }
        let teamNames = rotation.info.teams.isEmpty ? pattern.keys.sorted() : rotation.info.teams
        for team in request.teams where !teamNames.contains(team.name) && explicit == nil {
            throw RotationError.unknownTeam(rotation: rotation.info.id, team: team.name, teams: teamNames)
        }

        func type(for letter: String) throws -> ShiftTypeID {
            if let id = request.shiftTypes[letter] { return id }
            if let type = schedule.shiftType(symbol: letter) { return type.id }
            throw RotationError.unmappedLetter(rotation: rotation.info.id, letter: letter, time: rotation.info.shifts[letter])
        }

        var shifts: [ScheduledShift] = []
        if let explicit {
            let people = Dictionary(request.teams.map { ($0.name, $0.people) }, uniquingKeysWith: { first, _ in first })
            for item in explicit where item.date >= request.from && item.date <= request.to {
                guard let members = people[item.team] else { continue }
                let typeID = try type(for: item.letter)
                for person in members {
                    shifts.append(ScheduledShift(id: ShiftID(makeID()), shiftTypeID: typeID, date: item.date, personID: person))
                }
            }
            return shifts
        }
        var day = request.from
        while day <= request.to {
            for team in request.teams {
                guard let days = pattern[team.name], !days.isEmpty else { continue }
                let letters = Array(days)
                let offset = ((anchor.days(to: day) % letters.count) + letters.count) % letters.count
                let letter = letters[offset]
                if rotationOffLetters.contains(letter) { continue }
                let typeID = try type(for: String(letter))
                for person in team.people {
                    shifts.append(ScheduledShift(id: ShiftID(makeID()), shiftTypeID: typeID, date: day, personID: person))
                }
            }
            day = day.adding(days: 1)
        }
        return shifts
    }

    /// Calls a rotation's `generate(ctx)`: it returns day strings per team (`{ A = "DD--" }`) or
    /// a list of `{ team = "A", date = "2026-03-02", shift = "D" }`.
    private func runGenerate(
        _ function: LuaRef, _ rotation: LoadedRotation, _ request: RotationRequest, anchor: LocalDate, schedule: Schedule
    ) throws -> ([String: String], [(team: String, date: LocalDate, letter: String)]?) {
        var teams = LuaTable()
        for team in request.teams {
            teams.hash[.string(team.name)] = .table(LuaTable(array: team.people.map { .string(schedule.person($0)?.displayName ?? $0.description) }))
        }
        let context = LuaValue.table(LuaTable(hash: [
            .string("from"): .string(request.from.description), .string("to"): .string(request.to.description),
            .string("anchor"): .string(anchor.description), .string("teams"): .table(teams),
            .string("params"): .table(rotation.params),
        ]))
        api.begin(after: schedule, before: nil)
        defer { api.end() }
        let results: [LuaValue]
        do {
            results = try runtime.call(function, [context])
        } catch {
            throw RotationError.generateFailed(file: rotation.info.file, message: RuleError.evaluation(error, ruleID: rotation.info.id, file: rotation.info.file).description)
        }
        guard case let .table(table) = results.first ?? .nil else {
            throw RotationError.generateFailed(file: rotation.info.file, message: "generate must return a table")
        }
        if table.array.isEmpty {
            var pattern: [String: String] = [:]
            for (key, value) in table.hash {
                guard let team = key.stringValue, let days = value.stringValue else {
                    throw RotationError.generateFailed(file: rotation.info.file, message: "generate returned a non-string day string")
                }
                pattern[team] = days
            }
            return (pattern, nil)
        }
        var items: [(team: String, date: LocalDate, letter: String)] = []
        for (index, item) in table.array.enumerated() {
            guard let team = item["team"].stringValue, let text = item["date"].stringValue, let date = LocalDate(text),
                  let letter = item["shift"].stringValue else {
                throw RotationError.generateFailed(
                    file: rotation.info.file, message: "generate result \(index + 1) must be { team = …, date = \"YYYY-MM-DD\", shift = … }")
            }
            items.append((team, date, letter))
        }
        return ([:], items)
    }
}
