import Foundation
import ShiftCore

/// The text front end: turns a typed line into an action and the state into lines to print.
enum TextUI {
    static let help = """
        commands:
          today | day YYYY-MM-DD | next | prev     show a day
          add SYMBOL [PERSON]                      schedule a shift on the shown day (open without PERSON)
          switch N SYMBOL [REASON…]                switch shift N (as numbered) to another type
          remove N [REASON…]                       remove shift N
          name DISPLAY NAME                        change the name the change log records
          log [N]                                  the newest N changes (10)
          sample                                   add the sample ward, shift types and people
          help | quit
        """

    enum Command: Equatable {
        case action(PlannerFeature.Action)
        case help
        case quit
        case invalid(String)
    }

    /// Parses one input line.
    static func parse(_ line: String, today: LocalDate?) -> Command {
        let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard let verb = words.first?.lowercased() else { return .invalid("") }
        let rest = Array(words.dropFirst())
        func text(from index: Int) -> String? { rest.count > index ? rest[index...].joined(separator: " ") : nil }
        switch verb {
        case "help", "?": return .help
        case "quit", "exit", "q": return .quit
        case "today": return today.map { .action(.show($0)) } ?? .action(.start)
        case "next": return .action(.move(days: 1))
        case "prev", "previous": return .action(.move(days: -1))
        case "day":
            guard let text = rest.first, let day = LocalDate(text) else { return .invalid("day needs a date: day 2026-03-02") }
            return .action(.show(day))
        case "add":
            guard let symbol = rest.first else { return .invalid("add needs a shift type symbol: add E Alice") }
            return .action(.add(symbol: symbol, person: text(from: 1)))
        case "switch":
            guard rest.count >= 2, let number = Int(rest[0]) else { return .invalid("switch needs a shift number and a type: switch 1 N swap with Bob") }
            return .action(.switchShift(number: number, to: rest[1], reason: text(from: 2)))
        case "remove":
            guard let first = rest.first, let number = Int(first) else { return .invalid("remove needs a shift number: remove 2 not needed") }
            return .action(.remove(number: number, reason: text(from: 1)))
        case "name":
            guard let name = text(from: 0) else { return .invalid("name needs a display name: name Alice Smith") }
            return .action(.rename(name))
        case "log":
            let limit = rest.first.flatMap { Int($0) } ?? 10
            return .action(.showLog(limit: limit))
        case "sample": return .action(.addSampleCatalogue)
        default: return .invalid("unknown command '\(verb)' (help lists them)")
        }
    }

    /// The shown day: a heading, one numbered line per shift, the status and any violations.
    static func render(_ state: PlannerFeature.State) -> String {
        var lines: [String] = []
        if let day = state.day {
            let marker = day == state.today ? " (today)" : ""
            let who = state.profile.map { "   you: \($0.displayName)" } ?? ""
            lines.append("\(day.weekday.name.capitalized) \(day)\(marker)\(who)")
            if state.shifts.isEmpty { lines.append("  no shifts") }
            for (number, shift) in state.shifts.enumerated() {
                let type = state.shiftTypes.first { $0.id == shift.shiftTypeID }
                let person = shift.personID.flatMap { id in state.people.first { $0.id == id }?.displayName } ?? "(open)"
                let symbol = (type?.symbol ?? "?").padding(toLength: 4, withPad: " ", startingAt: 0)
                let title = (type.map { "\($0.title) \($0.duration)" } ?? "").padding(toLength: 20, withPad: " ", startingAt: 0)
                lines.append("  \(number + 1)  \(symbol)\(title) \(person)" + (shift.notes.map { "  — \($0)" } ?? ""))
            }
        }
        if let status = state.status { lines.append(status) }
        for violation in state.violations { lines.append("  \(violation)") }
        return lines.joined(separator: "\n")
    }

    /// The change log, newest first.
    static func render(log: [ChangeLogEntry]) -> String {
        guard !log.isEmpty else { return "no changes yet" }
        return log.map { entry in
            let old = entry.oldShiftSnapshot.map { "\($0.symbol)" } ?? "-"
            let new = entry.newShiftSnapshot.map { "\($0.symbol)" } ?? "-"
            let reason = entry.reason.map { "  \"\($0)\"" } ?? ""
            return "\(Timestamp.format(entry.timestamp))  \(entry.userDisplayName)  \(entry.changeType.rawValue) \(entry.scheduledShiftDate) \(old) → \(new)\(reason)"
        }.joined(separator: "\n")
    }
}
