import Foundation

/// The files of the Second International Nurse Rostering Competition (INRC-II): a scenario, a
/// history, one week-data file per week of the horizon, and optionally one solution file per
/// week. docs/inrc2.md describes how they map onto a store.
public enum INRC2 {
    public static let dayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    public struct ShiftType: Hashable, Sendable {
        public var name: String
        public var minimumConsecutive: Int
        public var maximumConsecutive: Int
        /// The shift types that may not be worked the day after this one.
        public var forbiddenNext: [String]
    }

    public struct Contract: Hashable, Sendable {
        public var name: String
        public var minimumAssignments: Int
        public var maximumAssignments: Int
        public var minimumConsecutiveWork: Int
        public var maximumConsecutiveWork: Int
        public var minimumConsecutiveOff: Int
        public var maximumConsecutiveOff: Int
        public var maximumWorkingWeekends: Int
        public var completeWeekends: Bool
    }

    public struct Nurse: Hashable, Sendable {
        public var name: String
        public var contract: String
        public var skills: [String]
    }

    public struct Scenario: Hashable, Sendable {
        public var name: String
        public var weeks: Int
        public var skills: [String]
        public var shiftTypes: [ShiftType]
        public var contracts: [Contract]
        public var nurses: [Nurse]
    }

    /// A nurse's state on the day before the horizon.
    public struct NurseHistory: Hashable, Sendable {
        public var nurse: String
        public var assignments: Int
        public var workingWeekends: Int
        /// nil: the day before was a day off.
        public var lastShiftType: String?
        public var consecutiveShifts: Int
        public var consecutiveWorkingDays: Int
        public var consecutiveDaysOff: Int
    }

    public struct History: Hashable, Sendable {
        public var week: Int
        public var scenario: String
        public var nurses: [NurseHistory]
    }

    public struct Requirement: Hashable, Sendable {
        public var shiftType: String
        public var skill: String
        /// Monday to Sunday: (minimum, optimal).
        public var days: [Pair]
    }

    public struct Pair: Hashable, Sendable {
        public var minimum: Int
        public var optimal: Int
    }

    public struct ShiftOffRequest: Hashable, Sendable {
        public var nurse: String
        /// nil: any shift.
        public var shiftType: String?
        /// 0 (Monday) … 6 (Sunday).
        public var day: Int
    }

    public struct WeekData: Hashable, Sendable {
        public var scenario: String
        public var requirements: [Requirement]
        public var requests: [ShiftOffRequest]
    }

    public struct Assignment: Hashable, Sendable {
        public var nurse: String
        public var day: Int
        public var shiftType: String
        public var skill: String
        /// The line of the solution file, for messages.
        public var line: Int
    }

    public struct Solution: Hashable, Sendable {
        public var week: Int
        public var scenario: String
        public var assignments: [Assignment]
    }

    /// A file that does not read as INRC-II: `file:line: what`.
    public struct FileError: Error, Hashable, Sendable, CustomStringConvertible {
        public var file: String
        public var line: Int?
        public var message: String

        public init(file: String, line: Int?, _ message: String) {
            self.file = file
            self.line = line
            self.message = message
        }

        public var description: String { file + (line.map { ":\($0)" } ?? "") + ": " + message }
    }
}

// MARK: Reading

extension INRC2 {
    /// The non-blank lines of a file, split into tokens, with their line numbers. Accepts CR/LF
    /// and trailing spaces.
    struct Lines {
        struct Line {
            var number: Int
            var tokens: [String]
            var text: String { tokens.joined(separator: " ") }
        }

        let file: String
        private(set) var lines: [Line]
        private(set) var position = 0

        init(text: String, file: String) {
            self.file = file
            var lines: [Line] = []
            var number = 0
            // "\r\n" is one Character in Swift, and a newline like "\n".
            for raw in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
                number += 1
                let tokens = raw.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
                if !tokens.isEmpty { lines.append(Line(number: number, tokens: tokens)) }
            }
            self.lines = lines
        }

        var atEnd: Bool { position >= lines.count }
        /// The first token of the next line, without reading it.
        var nextKeyword: String? { position < lines.count ? lines[position].tokens[0] : nil }
        var lastLine: Int? { lines.last?.number }

        func error(_ line: Line?, _ message: String) -> FileError { FileError(file: file, line: line?.number ?? lastLine, message) }

        mutating func next(_ what: String) throws(FileError) -> Line {
            guard position < lines.count else { throw FileError(file: file, line: lastLine, "the file ends before \(what)") }
            defer { position += 1 }
            return lines[position]
        }

        /// A line `KEY = n` (or `KEY= n`, `KEY =n`): n.
        mutating func count(_ key: String) throws(FileError) -> Int {
            let line = try next("'\(key) = …'")
            let text = line.text.replacingOccurrences(of: " ", with: "")
            guard text.hasPrefix(key + "="), let value = Int(text.dropFirst(key.count + 1)), value >= 0 else {
                throw error(line, "expected '\(key) = <count>', found '\(line.text)'")
            }
            return value
        }

        mutating func expect(_ keyword: String) throws(FileError) -> Line {
            let line = try next("'\(keyword)'")
            guard line.tokens.first == keyword else { throw error(line, "expected '\(keyword)', found '\(line.text)'") }
            return line
        }

        func integer(_ token: String, _ line: Line, _ what: String) throws(FileError) -> Int {
            guard let value = Int(token), value >= 0 else { throw error(line, "\(what) must be a whole number ≥ 0, not '\(token)'") }
            return value
        }

        /// `(a,b)`.
        func pair(_ token: String, _ line: Line, _ what: String) throws(FileError) -> (Int, Int) {
            let inner = token.hasPrefix("(") && token.hasSuffix(")") ? token.dropFirst().dropLast() : ""
            let parts = inner.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 2, let a = Int(parts[0]), let b = Int(parts[1]), a >= 0, b >= 0 else {
                throw error(line, "\(what) must be a pair like (2,5), not '\(token)'")
            }
            return (a, b)
        }

        func day(_ token: String, _ line: Line) throws(FileError) -> Int {
            guard let day = INRC2.dayNames.firstIndex(of: token) else {
                throw error(line, "'\(token)' is not a day (\(INRC2.dayNames.joined(separator: " ")))")
            }
            return day
        }
    }

    public static func readScenario(_ text: String, file: String) throws(FileError) -> Scenario {
        var lines = Lines(text: text, file: file)
        let head = try lines.next("'SCENARIO = name'")
        let headText = head.text.replacingOccurrences(of: " ", with: "")
        guard headText.hasPrefix("SCENARIO=") else { throw lines.error(head, "expected 'SCENARIO = <name>', found '\(head.text)'") }
        let name = String(headText.dropFirst("SCENARIO=".count))
        let weeks = try lines.count("WEEKS")
        guard weeks >= 1 else { throw lines.error(nil, "WEEKS must be at least 1") }

        let skillCount = try lines.count("SKILLS")
        var skills: [String] = []
        for _ in 0..<skillCount {
            let line = try lines.next("the skills")
            guard line.tokens.count == 1 else { throw lines.error(line, "expected one skill name, found '\(line.text)'") }
            guard !skills.contains(line.tokens[0]) else { throw lines.error(line, "skill '\(line.tokens[0])' is listed twice") }
            skills.append(line.tokens[0])
        }

        let typeCount = try lines.count("SHIFT_TYPES")
        var types: [ShiftType] = []
        for _ in 0..<typeCount {
            let line = try lines.next("the shift types")
            guard line.tokens.count == 2 else { throw lines.error(line, "expected '<shift type> (min,max)', found '\(line.text)'") }
            let (low, high) = try lines.pair(line.tokens[1], line, "the consecutive-assignment bounds")
            guard !types.contains(where: { $0.name == line.tokens[0] }) else { throw lines.error(line, "shift type '\(line.tokens[0])' is listed twice") }
            types.append(ShiftType(name: line.tokens[0], minimumConsecutive: low, maximumConsecutive: high, forbiddenNext: []))
        }

        _ = try lines.expect("FORBIDDEN_SHIFT_TYPES_SUCCESSIONS")
        for _ in 0..<typeCount {
            let line = try lines.next("the forbidden successions")
            guard line.tokens.count >= 2, let index = types.firstIndex(where: { $0.name == line.tokens[0] }) else {
                throw lines.error(line, "expected '<shift type> <count> <successors…>' naming a shift type, found '\(line.text)'")
            }
            let count = try lines.integer(line.tokens[1], line, "the number of forbidden successors")
            guard line.tokens.count == 2 + count else {
                throw lines.error(line, "'\(line.tokens[0])' announces \(count) forbidden successors but lists \(line.tokens.count - 2)")
            }
            for successor in line.tokens.dropFirst(2) where !types.contains(where: { $0.name == successor }) {
                throw lines.error(line, "'\(successor)' is not a shift type of the scenario")
            }
            types[index].forbiddenNext = Array(line.tokens.dropFirst(2))
        }

        let contractCount = try lines.count("CONTRACTS")
        var contracts: [Contract] = []
        for _ in 0..<contractCount {
            let line = try lines.next("the contracts")
            guard line.tokens.count == 6 else {
                throw lines.error(line, "expected '<name> (minTot,maxTot) (minWork,maxWork) (minOff,maxOff) <maxWeekends> <complete 0|1>', found '\(line.text)'")
            }
            let total = try lines.pair(line.tokens[1], line, "the total assignments")
            let work = try lines.pair(line.tokens[2], line, "the consecutive working days")
            let off = try lines.pair(line.tokens[3], line, "the consecutive days off")
            let weekends = try lines.integer(line.tokens[4], line, "the maximum working weekends")
            guard line.tokens[5] == "0" || line.tokens[5] == "1" else { throw lines.error(line, "complete weekends is 0 or 1, not '\(line.tokens[5])'") }
            contracts.append(Contract(
                name: line.tokens[0], minimumAssignments: total.0, maximumAssignments: total.1,
                minimumConsecutiveWork: work.0, maximumConsecutiveWork: work.1, minimumConsecutiveOff: off.0,
                maximumConsecutiveOff: off.1, maximumWorkingWeekends: weekends, completeWeekends: line.tokens[5] == "1"))
        }

        let nurseCount = try lines.count("NURSES")
        var nurses: [Nurse] = []
        for _ in 0..<nurseCount {
            let line = try lines.next("the nurses")
            guard line.tokens.count >= 3 else { throw lines.error(line, "expected '<name> <contract> <count> <skills…>', found '\(line.text)'") }
            guard contracts.contains(where: { $0.name == line.tokens[1] }) else {
                throw lines.error(line, "'\(line.tokens[1])' is not a contract of the scenario (\(contracts.map(\.name).joined(separator: ", ")))")
            }
            let count = try lines.integer(line.tokens[2], line, "the number of skills")
            guard line.tokens.count == 3 + count else {
                throw lines.error(line, "'\(line.tokens[0])' announces \(count) skills but lists \(line.tokens.count - 3)")
            }
            for skill in line.tokens.dropFirst(3) where !skills.contains(skill) {
                throw lines.error(line, "'\(skill)' is not a skill of the scenario (\(skills.joined(separator: ", ")))")
            }
            guard !nurses.contains(where: { $0.name == line.tokens[0] }) else { throw lines.error(line, "nurse '\(line.tokens[0])' is listed twice") }
            nurses.append(Nurse(name: line.tokens[0], contract: line.tokens[1], skills: Array(line.tokens.dropFirst(3))))
        }
        return Scenario(name: name, weeks: weeks, skills: skills, shiftTypes: types, contracts: contracts, nurses: nurses)
    }

    public static func readHistory(_ text: String, file: String, scenario: Scenario) throws(FileError) -> History {
        var lines = Lines(text: text, file: file)
        _ = try lines.expect("HISTORY")
        let head = try lines.next("the week index and scenario name")
        guard head.tokens.count == 2 else { throw lines.error(head, "expected '<week> <scenario>', found '\(head.text)'") }
        let week = try lines.integer(head.tokens[0], head, "the week index")
        _ = try lines.expect("NURSE_HISTORY")
        var nurses: [NurseHistory] = []
        while !lines.atEnd {
            let line = try lines.next("a nurse's history")
            guard line.tokens.count == 7 else {
                throw lines.error(line, "expected '<nurse> <assignments> <weekends> <last shift|None> <cons. shift> <cons. work> <cons. off>', found '\(line.text)'")
            }
            let name = line.tokens[0]
            guard scenario.nurses.contains(where: { $0.name == name }) else { throw lines.error(line, "'\(name)' is not a nurse of the scenario") }
            guard !nurses.contains(where: { $0.nurse == name }) else { throw lines.error(line, "'\(name)' has two history lines") }
            let last = line.tokens[3] == "None" ? nil : line.tokens[3]
            if let last, !scenario.shiftTypes.contains(where: { $0.name == last }) {
                throw lines.error(line, "'\(last)' is not a shift type of the scenario (or None)")
            }
            let history = NurseHistory(
                nurse: name, assignments: try lines.integer(line.tokens[1], line, "assignments"),
                workingWeekends: try lines.integer(line.tokens[2], line, "working weekends"), lastShiftType: last,
                consecutiveShifts: try lines.integer(line.tokens[4], line, "consecutive shifts"),
                consecutiveWorkingDays: try lines.integer(line.tokens[5], line, "consecutive working days"),
                consecutiveDaysOff: try lines.integer(line.tokens[6], line, "consecutive days off"))
            guard (history.consecutiveWorkingDays == 0) != (history.consecutiveDaysOff == 0), (last == nil) == (history.consecutiveWorkingDays == 0) else {
                throw lines.error(line, "exactly one of consecutive working days and days off is 0, and the last shift is None exactly when the nurse was off")
            }
            nurses.append(history)
        }
        if let missing = scenario.nurses.first(where: { nurse in !nurses.contains { $0.nurse == nurse.name } }) {
            throw FileError(file: file, line: nil, "no history for nurse '\(missing.name)'")
        }
        return History(week: week, scenario: head.tokens[1], nurses: nurses)
    }

    public static func readWeek(_ text: String, file: String, scenario: Scenario) throws(FileError) -> WeekData {
        var lines = Lines(text: text, file: file)
        _ = try lines.expect("WEEK_DATA")
        let name = try lines.next("the scenario name")
        _ = try lines.expect("REQUIREMENTS")
        var requirements: [Requirement] = []
        while !(lines.nextKeyword?.hasPrefix("SHIFT_OFF_REQUESTS") ?? false) {
            let line = try lines.next("SHIFT_OFF_REQUESTS")
            guard line.tokens.count == 9 else {
                throw lines.error(line, "expected '<shift type> <skill> (min,opt) × 7', found '\(line.text)'")
            }
            guard scenario.shiftTypes.contains(where: { $0.name == line.tokens[0] }) else {
                throw lines.error(line, "'\(line.tokens[0])' is not a shift type of the scenario")
            }
            guard scenario.skills.contains(line.tokens[1]) else { throw lines.error(line, "'\(line.tokens[1])' is not a skill of the scenario") }
            var days: [Pair] = []
            for token in line.tokens.dropFirst(2) {
                let (minimum, optimal) = try lines.pair(token, line, "a requirement")
                days.append(Pair(minimum: minimum, optimal: optimal))
            }
            requirements.append(Requirement(shiftType: line.tokens[0], skill: line.tokens[1], days: days))
        }
        let count = try lines.count("SHIFT_OFF_REQUESTS")
        var requests: [ShiftOffRequest] = []
        for _ in 0..<count {
            let line = try lines.next("the shift-off requests")
            guard line.tokens.count == 3 else { throw lines.error(line, "expected '<nurse> <shift type|Any> <day>', found '\(line.text)'") }
            guard scenario.nurses.contains(where: { $0.name == line.tokens[0] }) else {
                throw lines.error(line, "'\(line.tokens[0])' is not a nurse of the scenario")
            }
            let type = line.tokens[1] == "Any" ? nil : line.tokens[1]
            if let type, !scenario.shiftTypes.contains(where: { $0.name == type }) {
                throw lines.error(line, "'\(type)' is not a shift type of the scenario (or Any)")
            }
            requests.append(ShiftOffRequest(nurse: line.tokens[0], shiftType: type, day: try lines.day(line.tokens[2], line)))
        }
        return WeekData(scenario: name.text, requirements: requirements, requests: requests)
    }

    /// Reads exactly the announced number of assignments; lines after them (a solver's `Cost:`
    /// notes) are ignored.
    public static func readSolution(_ text: String, file: String, scenario: Scenario) throws(FileError) -> Solution {
        var lines = Lines(text: text, file: file)
        _ = try lines.expect("SOLUTION")
        let head = try lines.next("the week index and scenario name")
        guard head.tokens.count == 2 else { throw lines.error(head, "expected '<week> <scenario>', found '\(head.text)'") }
        let week = try lines.integer(head.tokens[0], head, "the week index")
        let count = try lines.count("ASSIGNMENTS")
        var assignments: [Assignment] = []
        for _ in 0..<count {
            let line = try lines.next("assignment \(assignments.count + 1) of \(count)")
            guard line.tokens.count == 4 else { throw lines.error(line, "expected '<nurse> <day> <shift type> <skill>', found '\(line.text)'") }
            guard scenario.nurses.contains(where: { $0.name == line.tokens[0] }) else {
                throw lines.error(line, "'\(line.tokens[0])' is not a nurse of the scenario")
            }
            guard scenario.shiftTypes.contains(where: { $0.name == line.tokens[2] }) else {
                throw lines.error(line, "'\(line.tokens[2])' is not a shift type of the scenario")
            }
            guard scenario.skills.contains(line.tokens[3]) else { throw lines.error(line, "'\(line.tokens[3])' is not a skill of the scenario") }
            assignments.append(Assignment(nurse: line.tokens[0], day: try lines.day(line.tokens[1], line), shiftType: line.tokens[2],
                                          skill: line.tokens[3], line: line.number))
        }
        return Solution(week: week, scenario: head.tokens[1], assignments: assignments)
    }
}
