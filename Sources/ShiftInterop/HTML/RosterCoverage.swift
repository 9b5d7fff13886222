import Foundation
import ShiftCore

/// How well each day is staffed: per shift type (and per skill a demand names for it), the people
/// assigned against the demand's minimum and optimum. Counted as the stock `meets_demand` rule
/// counts: assigned shifts only; for a skill, shifts whose `skill` attribute names it, or without
/// one whose person lists it in `skills`. Where several demand entries apply (a dated one and a
/// weekday one), the highest minimum and optimum hold.
struct RosterCoverage {
    struct Cell: Equatable {
        var staffed = 0
        /// nil when no demand applies.
        var minimum: Int?
        var optimal: Int?

        var isShort: Bool { minimum.map { staffed < $0 } ?? false }
        var isBelowOptimal: Bool { !isShort && (optimal.map { staffed < $0 } ?? false) }
    }

    struct Row {
        let type: ShiftType
        let skill: String?
        /// One per date.
        let cells: [Cell]
    }

    let rows: [Row]

    init(schedule: Schedule, types: [ShiftType], dates: [LocalDate]) {
        struct Slot: Hashable {
            var type: ShiftTypeID
            var skill: String?
        }
        var cells: [Slot: [Cell]] = [:]
        var skills: [ShiftTypeID: Set<String>] = [:]
        for (index, date) in dates.enumerated() {
            for demand in schedule.demand(on: date) {
                let slot = Slot(type: demand.shiftTypeID, skill: demand.skill)
                if let skill = demand.skill { skills[demand.shiftTypeID, default: []].insert(skill) }
                var cell = cells[slot]?[index] ?? Cell()
                cell.minimum = max(cell.minimum ?? 0, demand.minimum)
                cell.optimal = max(cell.optimal ?? 0, demand.optimal)
                cells[slot, default: Array(repeating: Cell(), count: dates.count)][index] = cell
            }
        }
        for (index, date) in dates.enumerated() {
            for shift in schedule.shifts(.on(date)) {
                guard let personID = shift.personID else { continue }
                var slots = [Slot(type: shift.shiftTypeID, skill: nil)]
                for skill in skills[shift.shiftTypeID] ?? [] where Self.covers(shift, skill: skill, person: schedule.person(personID)) {
                    slots.append(Slot(type: shift.shiftTypeID, skill: skill))
                }
                for slot in slots { cells[slot, default: Array(repeating: Cell(), count: dates.count)][index].staffed += 1 }
            }
        }
        rows = types.flatMap { type -> [Row] in
            ([nil] + (skills[type.id] ?? []).sorted()).map { skill in
                Row(type: type, skill: skill, cells: cells[Slot(type: type.id, skill: skill)] ?? Array(repeating: Cell(), count: dates.count))
            }
        }
    }

    /// Whether an assigned shift counts for a demand with this skill.
    static func covers(_ shift: ScheduledShift, skill: String, person: Person?) -> Bool {
        if let named = shift.attributes["skill"] { return named.stringValue == skill }
        switch person?.attributes["skills"] {
        case let .string(text)?: return text == skill
        case let .list(values)?: return values.contains(.string(skill))
        default: return false
        }
    }
}
