import ShiftCore

/// One thing wrong with an import file, at a line (1-based, the line in the file as a text
/// editor counts it).
public struct ImportProblem: Hashable, Sendable, CustomStringConvertible {
    public var line: Int?
    public var message: String

    public init(line: Int?, message: String) {
        self.line = line
        self.message = message
    }

    /// `line 12: event 'Dentist' on 2026-03-02 matches no shift type …`.
    public var description: String { (line.map { "line \($0): " } ?? "") + message }
}

/// Why a file could not be imported: every problem found, so a user can fix them in one go.
/// Nothing was written.
public struct ImportFailure: Error, Hashable, Sendable, CustomStringConvertible {
    public var problems: [ImportProblem]

    public init(_ problems: [ImportProblem]) { self.problems = problems }
    public init(line: Int?, _ message: String) { self.problems = [ImportProblem(line: line, message: message)] }

    public var description: String { problems.map(\.description).joined(separator: "; ") }
}

/// What importing a file would change: shifts to add, shifts to update, and how many are
/// already in the store as they are. Applied as one batch mutation (`mutation`), so the rules
/// check the whole import and it commits whole or not at all.
public struct ShiftImportPlan: Hashable, Sendable {
    public var added: [ScheduledShift] = []
    public var updated: [ScheduledShift] = []
    public var unchanged = 0

    public init() {}

    /// The plan for a list of shifts read from a file: new ids are added, known ids updated
    /// (when they differ), nothing is removed.
    public init(merging shifts: [ScheduledShift], into schedule: Schedule) {
        self.init(merging: shifts, into: schedule, new: [])
    }

    /// As above; `new` holds the ids just made for rows without one, which no store can hold
    /// yet, so they are added without looking them up (over SQLite, a query per row).
    init(merging shifts: [ScheduledShift], into schedule: Schedule, new: Set<ShiftID>) {
        for shift in shifts {
            if new.contains(shift.id) {
                added.append(shift)
                continue
            }
            switch schedule.shift(shift.id) {
            case nil: added.append(shift)
            case let old? where old != shift: updated.append(shift)
            default: unchanged += 1
            }
        }
    }

    public var isEmpty: Bool { added.isEmpty && updated.isEmpty }

    /// The whole import as one batch (nil when there is nothing to do).
    public var mutation: Mutation? {
        isEmpty ? nil : .batch(added.map { .scheduleShift($0) } + updated.map { .updateShift($0, reason: "import") })
    }
}

/// Finds people and shift types by what a file calls them: exact text first, then ignoring case
/// when that is unique.
///
/// Names and symbols are looked up in dictionaries made once per import, so a row costs the
/// same whether the store has 20 people or 20,000 (the schedule's `people` sorts them all on
/// every read).
struct NameLookup: Sendable {
    let schedule: Schedule
    private let peopleByName: [String: [Person]]
    private let peopleByFoldedName: [String: [Person]]
    private let typesByFoldedSymbol: [String: [ShiftType]]
    /// The shift types, by symbol.
    let shiftTypes: [ShiftType]
    /// The symbols, for messages: `D, E, N`.
    let symbolList: String

    init(schedule: Schedule) {
        self.schedule = schedule
        let people = schedule.people
        peopleByName = Dictionary(grouping: people, by: \.displayName)
        peopleByFoldedName = Dictionary(grouping: people) { $0.displayName.lowercased() }
        let types = schedule.shiftTypes
        shiftTypes = types
        typesByFoldedSymbol = Dictionary(grouping: types) { $0.symbol.lowercased() }
        symbolList = types.map(\.symbol).joined(separator: ", ")
    }

    func shiftType(symbol: String) -> ShiftType? {
        if let type = schedule.shiftType(symbol: symbol) { return type }
        let folded = typesByFoldedSymbol[symbol.lowercased()] ?? []
        return folded.count == 1 ? folded[0] : nil
    }

    func person(named name: String) -> Person? {
        try? person(name)
    }

    /// The person a file names, or why there is none: an unknown name (with the closest names),
    /// or a name several people share (a store from before names had to differ).
    func person(_ name: String) throws(NameProblem) -> Person {
        let exact = peopleByName[name] ?? []
        if exact.count == 1 { return exact[0] }
        let folded = exact.isEmpty ? peopleByFoldedName[name.lowercased()] ?? [] : exact
        if folded.count == 1 { return folded[0] }
        if folded.count > 1 {
            throw NameProblem("'\(name)' is the name of \(folded.count) people (\(folded.map { $0.id.description.prefix(8) }.joined(separator: ", "))); "
                + "give each a name of their own (shiftctl person update ID --name NEW)")
        }
        let near = NearestNames.suggestions(for: name, among: schedule.people.map(\.displayName))
        throw NameProblem("no person '\(name)' in the store" + (near.isEmpty ? " (add them first: shiftctl person add)" : "; did you mean: " + near.joined(separator: ", ")))
    }
}

/// Why a name in a file finds nobody, as a message for the file's line.
struct NameProblem: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
