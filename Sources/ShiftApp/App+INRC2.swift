import Foundation
import ShiftCore
import ShiftInterop
import ShiftStorage

/// What `inrc2 import` created.
public struct INRC2ImportOutput: Encodable, Sendable {
    public let store: String
    public let scenario: String
    public let history: String
    public let weeks: [String]
    public let solutions: [String]
    public let first: String
    public let last: String
    public let nurses: Int
    public let shiftTypes: Int
    public let demand: Int
    public let requests: Int
    public let shifts: Int
    public let rulesDirectories: [String]

    enum CodingKeys: String, CodingKey {
        case store, scenario, history, weeks, solutions, first, last, nurses, shiftTypes, demand, requests, shifts, rulesDirectories
    }
}

extension App {
    /// The folder, inside the stock rules, that holds the INRC-II rules.
    static let inrc2RulesFolder = "rules/examples/inrc2"

    /// Creates a store from an INRC-II instance (docs/inrc2.md): the scenario, a history and the
    /// week files, plus one solution file per week when `solution` is given. The stock rules are
    /// copied beside the store (as `init` does) and the store records `rules/examples/inrc2` as
    /// its rules, so `validate --score` scores the roster. The whole load is one change that the
    /// rules check; if they reject it (a hard violation that `check` catches) nothing is written.
    public func importINRC2(instance: String, solution: String?, history: Int?, weeks: [Int]?, start: String?) async throws -> CommandResult {
        let path = workspace.absoluteStorePath
        let kind = try workspace.storeKind()
        guard !FileManager.default.fileExists(atPath: path) else {
            throw AppError.invalidValue(option: "--store", message: "\(workspace.storePath) already exists; an INRC-II instance loads into a new store (pass another --store)")
        }
        let first: LocalDate
        if let start {
            guard let date = LocalDate(start) else { throw AppError.invalidValue(option: "--start", message: "'\(start)' is not a date (YYYY-MM-DD)") }
            first = date
        } else {
            first = LocalDate("2024-01-01")!
        }
        guard first.weekday == .monday else {
            throw AppError.invalidValue(option: "--start", message: "\(first) is a \(first.weekday.name); INRC-II weeks start on a Monday")
        }

        let problem: INRC2.Problem
        do {
            let files = try INRC2.Files.locate(instance: environment.absolute(instance), solution: solution.map(environment.absolute),
                                               history: history, weeks: weeks)
            problem = try INRC2.Problem.read(files) { file in
                guard let data = FileManager.default.contents(atPath: file) else {
                    throw INRC2.FileError(file: file, line: nil, "cannot read the file")
                }
                guard let text = String(data: data, encoding: .utf8) else { throw INRC2.FileError(file: file, line: nil, "not UTF-8 text") }
                return text
            }
        } catch let error as INRC2.FileError {
            throw AppError.fileError(path: display(error.file) + (error.line.map { ":\($0)" } ?? ""), reason: error.message)
        }

        // The rules: the stock rules beside the store, as init copies them.
        var settings = StoreSettings(timeZoneIdentifier: "UTC", weekStart: .monday)
        settings.extra[SettingsKey.rulesDirectories] = .list([.string(Self.inrc2RulesFolder)])
        do {
            try FileManager.default.createDirectory(atPath: workspace.storeFolder, withIntermediateDirectories: true)
        } catch {
            throw AppError.fileError(path: workspace.storeFolder, reason: "cannot create the folder: \(error.localizedDescription)")
        }
        let rulesFolder = workspace.storeFolder + "/rules"
        let copied = try StockRules.install(from: try StockRules.locate(environment: environment), to: rulesFolder)
        func undo() { if copied { try? FileManager.default.removeItem(atPath: rulesFolder) } }
        guard Workspace.isDirectory(workspace.storeFolder + "/" + Self.inrc2RulesFolder) else {
            undo()
            throw AppError.rulesFolderMissing(path: workspace.storeFolder + "/" + Self.inrc2RulesFolder,
                                              origin: "the rules/ folder beside the store, which predates the INRC-II rules")
        }

        let mutations = problem.mutations(start: first, settings: settings)
        let recorded = problem.settings(start: first, base: settings)
        let repository = try kind.repository(path: path, createIfMissing: true, initialSettings: recorded)
        do {
            let store = try ScheduleStore(repository: repository, actingUser: workspace.actingUser(settings: recorded))
            await store.setValidators([try workspace.checkingRuleEngine(for: recorded)])
            do {
                _ = try await store.apply(.batch(mutations))
            } catch let ScheduleError.rejected(violations) {
                throw RejectedChange(violations: violations, schedule: await store.schedule, pending: Mutation.batch(mutations).shifts)
            }
        } catch {
            undo()
            kind.removeFiles(at: path)
            throw error
        }

        let last = first.adding(days: 7 * problem.weeks.count - 1)
        let shifts = problem.solutions.reduce(0) { $0 + $1.assignments.count }
        let demand = mutations.filter { if case .addDemand = $0 { true } else { false } }.count
        let requests = problem.weeks.reduce(0) { $0 + $1.requests.count }
        let output = INRC2ImportOutput(
            store: workspace.storePath, scenario: problem.scenario.name, history: problem.fileNames.history, weeks: problem.fileNames.weeks,
            solutions: problem.fileNames.solutions, first: first.description, last: last.description, nurses: problem.scenario.nurses.count,
            shiftTypes: problem.scenario.shiftTypes.count, demand: demand, requests: requests, shifts: shifts,
            rulesDirectories: [Self.inrc2RulesFolder])
        var text = "created \(workspace.storePath) from INRC-II \(problem.scenario.name): \(problem.scenario.nurses.count) nurses, "
            + "\(problem.scenario.shiftTypes.count) shift types, \(problem.weeks.count) weeks from \(first) to \(last)\n"
        text += "  history \(problem.fileNames.history); weeks \(problem.fileNames.weeks.joined(separator: ", "))\n"
        text += "  demand: \(demand) entries; shift-off requests: \(requests); shifts: \(shifts)"
            + (solution.map { " (from \(($0 as NSString).lastPathComponent))" } ?? "") + "\n"
        text += "rules: \(Self.inrc2RulesFolder)" + (copied ? " (copied the stock rules to rules/)" : "") + "\n"
        text += "score it with: shiftctl --store \(workspace.storePath) validate --score\n"
        return CommandResult(text: text, json: output)
    }

    /// A path for messages: relative to the working folder when inside it.
    func display(_ path: String) -> String {
        let folder = environment.currentDirectory.hasSuffix("/") ? environment.currentDirectory : environment.currentDirectory + "/"
        return path.hasPrefix(folder) ? String(path.dropFirst(folder.count)) : path
    }
}

/// What `inrc2 export` wrote.
public struct INRC2ExportOutput: Encodable, Sendable {
    public struct File: Encodable, Sendable {
        public let path: String
        public let assignments: Int
    }
    public let folder: String
    public let files: [File]
}

extension App {
    /// Writes the store's roster as one INRC-II solution file per week into `folder` (created if
    /// needed), in the format the official validator and `scripts/inrc2_reference.py` read.
    public func exportINRC2(to folder: String) throws -> CommandResult {
        let schedule = try load().materialized()
        let export: INRC2.Export
        do { export = try INRC2.Export(schedule) } catch {
            throw AppError.invalidValue(option: "--store", message: error.description)
        }
        let path = environment.absolute(folder)
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw AppError.fileError(path: folder, reason: "cannot create the folder: \(error.localizedDescription)")
        }
        var written: [INRC2ExportOutput.File] = []
        for file in export.files {
            let target = (path as NSString).appendingPathComponent(file.name)
            do {
                try Data(file.text.utf8).write(to: URL(fileURLWithPath: target), options: .atomic)
            } catch {
                throw AppError.fileError(path: display(target), reason: "cannot write: \(error.localizedDescription)")
            }
            written.append(.init(path: display(target), assignments: file.assignments))
        }
        let text = written.map { "wrote \($0.path) (\($0.assignments) assignments)\n" }.joined()
        return CommandResult(text: text, json: INRC2ExportOutput(folder: display(path), files: written))
    }
}
