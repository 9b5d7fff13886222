import Foundation
import ShiftCore

extension INRC2 {
    /// A store's roster as competition solution files, one per week of the horizon, in the
    /// format the official validator reads (`Sol-<instance>-<wd>-<k>.txt`).
    public struct Export: Sendable {
        /// One week's file: its name and text.
        public struct File: Sendable, Equatable {
            public let name: String
            public let text: String
            public let assignments: Int
        }

        public let files: [File]

        /// Reads what the import recorded (`horizon.first`, `inrc2.scenario`, `inrc2.weeks`) and
        /// each shift's person, type symbol and `skill` attribute.
        /// - Throws: `ExportError` naming what is missing: a store not imported from INRC-II, a
        ///   shift without a person's name, a skill or in the horizon.
        public init(_ schedule: Schedule) throws(ExportError) {
            let extra = schedule.settings.extra
            guard let scenario = extra[Problem.settingsPrefix + "scenario"]?.stringValue,
                  case let .list(weekValues)? = extra[Problem.settingsPrefix + "weeks"],
                  let first = extra[Schedule.horizonFirstKey]?.stringValue.flatMap(LocalDate.init)
            else {
                throw ExportError("the store was not made by `shiftctl inrc2 import` (it has no inrc2.scenario, inrc2.weeks or horizon.first setting)")
            }
            let weeks = weekValues.compactMap(\.stringValue)
            var byWeek = [[String]](repeating: [], count: weeks.count)
            let last = first.adding(days: 7 * weeks.count - 1)
            for person in schedule.people {
                for shift in schedule.shifts(ShiftQuery(personID: person.id)) {
                    let offset = first.days(to: shift.date)
                    guard offset >= 0, shift.date <= last else {
                        throw ExportError("\(person.displayName)'s shift on \(shift.date) is outside the horizon \(first) to \(last)")
                    }
                    guard let type = schedule.shiftType(shift.shiftTypeID) else { continue }
                    guard let skill = shift.attributes["skill"]?.stringValue else {
                        throw ExportError("\(person.displayName)'s \(type.symbol) shift on \(shift.date) has no skill attribute (INRC-II needs the skill each nurse covers)")
                    }
                    guard !person.displayName.contains(" "), !type.symbol.contains(" "), !skill.contains(" ") else {
                        throw ExportError("\(person.displayName) \(type.symbol) \(skill): INRC-II names have no spaces")
                    }
                    byWeek[offset / 7].append("\(person.displayName) \(Self.days[offset % 7]) \(type.symbol) \(skill)")
                }
            }
            files = try weeks.enumerated().map { (index, week) throws(ExportError) -> File in
                let stem = (week as NSString).deletingPathExtension
                let parts = stem.split(separator: "-")
                guard parts.count >= 3, parts[0] == "WD" else {
                    throw ExportError("inrc2.weeks names '\(week)', not a week-data file WD-<instance>-<n>.txt")
                }
                let instance = parts[1..<(parts.count - 1)].joined(separator: "-")
                let lines = byWeek[index]
                let text = "SOLUTION\n\(index) \(scenario)\n\nASSIGNMENTS = \(lines.count)\n" + lines.map { $0 + "\n" }.joined()
                return File(name: "Sol-\(instance)-\(parts.last!)-\(index).txt", text: text, assignments: lines.count)
            }
        }

        static let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    }

    public struct ExportError: Error, Sendable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
