import Foundation
import ShiftCore

extension INRC2 {
    /// Which files make up one problem (and its solution) in an instance folder.
    public struct Files: Hashable, Sendable {
        public var scenario: String
        public var history: String
        public var weeks: [String]
        /// One per week, or empty when only the problem is loaded.
        public var solutions: [String]

        /// The files of instance folder `instance` (`…/n005w4`): `Sc-<inst>.txt`, `H0-<inst>-<h>.txt`,
        /// `WD-<inst>-<w>.txt`. With a solution folder named `Solution_H_<h>-WD_<w0>-<w1>-…[__variant]`,
        /// the history and weeks come from its name (`history` and `weeks` may repeat them) and
        /// week k's solution is the file ending in `-<wk>-<k>.txt` (or `sol-week<k>.txt`).
        public static func locate(instance: String, solution: String?, history: Int?, weeks: [Int]?) throws -> Files {
            let folder = URL(fileURLWithPath: instance).standardizedFileURL
            let name = folder.lastPathComponent
            var history = history
            var weeks = weeks
            var solutions: [String] = []
            if let solution {
                let solutionFolder = URL(fileURLWithPath: solution).standardizedFileURL
                let (h, w) = try parseSolutionFolderName(solutionFolder.lastPathComponent, path: solution)
                if let given = history, given != h {
                    throw FileError(file: solution, line: nil, "the folder is for history \(h), but --history says \(given)")
                }
                if let given = weeks, given != w {
                    throw FileError(file: solution, line: nil, "the folder is for weeks \(w.map(String.init).joined(separator: ",")), but --weeks says \(given.map(String.init).joined(separator: ","))")
                }
                history = h
                weeks = w
                let files = (try? FileManager.default.contentsOfDirectory(atPath: solutionFolder.path)) ?? []
                guard !files.isEmpty else { throw FileError(file: solution, line: nil, "cannot read the solution folder (does it exist?)") }
                for (k, wd) in w.enumerated() {
                    let matches = files.filter { file in
                        file == "sol-week\(k).txt" || (file.hasSuffix("-\(wd)-\(k).txt") && file.lowercased().contains("sol-\(name.lowercased())-"))
                    }
                    guard matches.count == 1 else {
                        throw FileError(file: solution, line: nil, matches.isEmpty
                            ? "no solution file for week \(k) (week data \(wd)): expected Sol-\(name)-\(wd)-\(k).txt or sol-week\(k).txt"
                            : "several solution files for week \(k): \(matches.sorted().joined(separator: ", "))")
                    }
                    solutions.append(solutionFolder.appendingPathComponent(matches[0]).path)
                }
            }
            guard let history else { throw FileError(file: instance, line: nil, "say which history to load: --history N (or give --solution)") }
            guard let weeks, !weeks.isEmpty else { throw FileError(file: instance, line: nil, "say which week files to load: --weeks a,b,… (or give --solution)") }
            let files = Files(
                scenario: folder.appendingPathComponent("Sc-\(name).txt").path,
                history: folder.appendingPathComponent("H0-\(name)-\(history).txt").path,
                weeks: weeks.map { folder.appendingPathComponent("WD-\(name)-\($0).txt").path },
                solutions: solutions)
            for path in [files.scenario, files.history] + files.weeks where !FileManager.default.fileExists(atPath: path) {
                throw FileError(file: path, line: nil, "no such file (an instance folder holds Sc-\(name).txt, H0-\(name)-<h>.txt and WD-\(name)-<w>.txt)")
            }
            return files
        }

        /// `Solution_H_0-WD_1-2-3-3` or `Solution_H_1-WD_6-2-9-1__Opt-0b929ad8`: history 0, weeks [1,2,3,3].
        static func parseSolutionFolderName(_ name: String, path: String) throws(FileError) -> (Int, [Int]) {
            let base = name.components(separatedBy: "__")[0]
            let parts = base.components(separatedBy: "-WD_")
            guard parts.count == 2, parts[0].hasPrefix("Solution_H_"), let history = Int(parts[0].dropFirst("Solution_H_".count)) else {
                throw FileError(file: path, line: nil, "the folder name does not say the history and weeks (Solution_H_<h>-WD_<w0>-<w1>-…); give --history and --weeks with the solution files")
            }
            let weeks = parts[1].split(separator: "-").compactMap { Int($0) }
            guard !weeks.isEmpty, weeks.count == parts[1].split(separator: "-").count else {
                throw FileError(file: path, line: nil, "the folder name's weeks '\(parts[1])' are not numbers separated by '-'")
            }
            return (history, weeks)
        }
    }

    /// A problem read from its files: scenario, history, weeks, and optionally a solution.
    public struct Problem: Hashable, Sendable {
        public var scenario: Scenario
        public var history: History
        public var weeks: [WeekData]
        public var solutions: [Solution]
        /// File names (without folders) for the store's settings.
        public var fileNames: Files

        /// Reads and cross-checks every file; the first problem found is thrown as `file:line: what`.
        public static func read(_ files: Files, contents: (String) throws -> String) throws -> Problem {
            let scenario = try readScenario(try contents(files.scenario), file: files.scenario)
            if files.weeks.count != scenario.weeks {
                throw FileError(file: files.scenario, line: nil, "the scenario's horizon is \(scenario.weeks) weeks, but \(files.weeks.count) week files were given")
            }
            let history = try readHistory(try contents(files.history), file: files.history, scenario: scenario)
            let weeks = try files.weeks.map { try readWeek(try contents($0), file: $0, scenario: scenario) }
            let solutions = try files.solutions.map { try readSolution(try contents($0), file: $0, scenario: scenario) }
            for (k, solution) in solutions.enumerated() where solution.week != k {
                throw FileError(file: files.solutions[k], line: 2, "this is the solution of week \(solution.week), expected week \(k)")
            }
            func base(_ path: String) -> String { (path as NSString).lastPathComponent }
            let names = Files(scenario: base(files.scenario), history: base(files.history), weeks: files.weeks.map(base),
                              solutions: files.solutions.map(base))
            return Problem(scenario: scenario, history: history, weeks: weeks, solutions: solutions, fileNames: names)
        }

        /// Settings keys the import records (besides `horizon.first` and `horizon.last`).
        public static let settingsPrefix = "inrc2."

        /// The store settings of the import: `base` in UTC with weeks from Monday, plus the horizon
        /// and where the data came from.
        public func settings(start: LocalDate, base: StoreSettings) -> StoreSettings {
            let days = 7 * weeks.count
            var settings = base
            settings.timeZoneIdentifier = "UTC"
            settings.weekStart = .monday
            settings.extra["horizon.first"] = .string(start.description)
            settings.extra["horizon.last"] = .string(start.adding(days: days - 1).description)
            settings.extra[Self.settingsPrefix + "scenario"] = .string(scenario.name)
            settings.extra[Self.settingsPrefix + "history"] = .string(fileNames.history)
            settings.extra[Self.settingsPrefix + "weeks"] = .list(fileNames.weeks.map { .string($0) })
            if !fileNames.solutions.isEmpty {
                settings.extra[Self.settingsPrefix + "solutions"] = .list(fileNames.solutions.map { .string($0) })
            }
            return settings
        }

        /// The store content as one batch: `settings(start:base:)`, shift types, people, demand,
        /// shift-off requests as availability, and the solution's assignments as shifts carrying
        /// their skill. `start` is the horizon's first day (a Monday).
        public func mutations(start: LocalDate, settings base: StoreSettings, makeID: () -> UUID = { UUID.random() }) -> [Mutation] {
            var result: [Mutation] = [.updateSettings(settings(start: start, base: base))]

            var typeIDs: [String: ShiftTypeID] = [:]
            for type in scenario.shiftTypes {
                let id = ShiftTypeID(makeID())
                typeIDs[type.name] = id
                result.append(.addShiftType(ShiftCore.ShiftType(
                    id: id, symbol: type.name, title: type.name, duration: .allDay,
                    attributes: ["min_consecutive": .number(Double(type.minimumConsecutive)),
                                 "max_consecutive": .number(Double(type.maximumConsecutive)),
                                 "forbidden_next": .list(type.forbiddenNext.map { .string($0) })])))
            }
            var personIDs: [String: PersonID] = [:]
            for nurse in scenario.nurses {
                let id = PersonID(makeID())
                personIDs[nurse.name] = id
                let contract = scenario.contracts.first { $0.name == nurse.contract }!
                let past = history.nurses.first { $0.nurse == nurse.name }!
                var attributes: Attributes = [
                    "skills": .list(nurse.skills.map { .string($0) }),
                    "contract": .string(contract.name),
                    "min_assignments": .number(Double(contract.minimumAssignments)),
                    "max_assignments": .number(Double(contract.maximumAssignments)),
                    "min_consecutive_work": .number(Double(contract.minimumConsecutiveWork)),
                    "max_consecutive_work": .number(Double(contract.maximumConsecutiveWork)),
                    "min_consecutive_off": .number(Double(contract.minimumConsecutiveOff)),
                    "max_consecutive_off": .number(Double(contract.maximumConsecutiveOff)),
                    "max_working_weekends": .number(Double(contract.maximumWorkingWeekends)),
                    "complete_weekends": .bool(contract.completeWeekends),
                    "history_assignments": .number(Double(past.assignments)),
                    "history_working_weekends": .number(Double(past.workingWeekends)),
                    "history_consecutive_shifts": .number(Double(past.consecutiveShifts)),
                    "history_consecutive_work": .number(Double(past.consecutiveWorkingDays)),
                    "history_consecutive_off": .number(Double(past.consecutiveDaysOff)),
                ]
                if let last = past.lastShiftType { attributes["history_last_shift"] = .string(last) }
                result.append(.addPerson(Person(id: id, displayName: nurse.name, attributes: attributes)))
            }
            for (k, week) in weeks.enumerated() {
                for requirement in week.requirements {
                    // Requirements of nobody too: INRC-II charges nothing for staff beyond the
                    // optimal, and `solve --overstaff` makes room for it per demand entry.
                    for (d, pair) in requirement.days.enumerated() {
                        result.append(.addDemand(Demand(
                            id: DemandID(makeID()), day: .date(start.adding(days: 7 * k + d)), shiftTypeID: typeIDs[requirement.shiftType]!,
                            skill: requirement.skill, minimum: pair.minimum, optimal: pair.optimal)))
                    }
                }
                for request in week.requests {
                    result.append(.addAvailability(Availability(
                        id: AvailabilityID(makeID()), personID: personIDs[request.nurse]!, from: start.adding(days: 7 * k + request.day),
                        shiftTypeID: request.shiftType.map { typeIDs[$0]! }, kind: .undesired)))
                }
            }
            for (k, solution) in solutions.enumerated() {
                for assignment in solution.assignments {
                    result.append(.scheduleShift(ScheduledShift(
                        id: ShiftID(makeID()), shiftTypeID: typeIDs[assignment.shiftType]!, date: start.adding(days: 7 * k + assignment.day),
                        personID: personIDs[assignment.nurse]!, attributes: ["skill": .string(assignment.skill)])))
                }
            }
            return result
        }
    }
}
