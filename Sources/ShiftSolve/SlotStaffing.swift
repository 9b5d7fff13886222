import ShiftCore
import ShiftRules

/// The staffing of each window day's demand, counted from who holds the slots: what
/// `Schedule.staffed(_:on:)` says of a roster the search made, without walking the day's shifts.
///
/// During a solve the schedule is the problem's schedule with the slots' persons changed, and
/// demand does not change. A day's count for a demand entry is therefore what the shifts that are
/// not slots count (the same all along: taken once from the problem's schedule, less what the
/// slots held there counted), plus each of the day's slots held by someone it counts for: a slot
/// of the entry's type that covers its skill, by the slot shift's own `skill` or else by its
/// person's `skills` (`Schedule.covers`). `SlotStaffingTests` compares it with `Schedule.staffed`
/// after random moves.
struct SlotStaffing {
    /// How a slot counts toward one demand entry of its day.
    enum Share {
        /// Whoever holds it.
        case always
        /// When its person has the skill (index into `skills`).
        case skill(Int)
    }

    /// Per window day: its demand entries, in `Schedule.demand(on:)`'s order.
    let entries: [[Demand]]
    /// Per window day and entry: what the shifts outside the slots count.
    let base: [[Int]]
    /// Per window day: its slots.
    let slotsOfDay: [[Int]]
    /// Per slot: the entries of its day it counts toward, and how.
    let shares: [[(entry: Int, share: Share)]]
    /// Per skill a demand asks for: whether each person (index in `problem.people`) covers it.
    let skills: [[Bool]]

    init(problem: SolveProblem) {
        let schedule = problem.schedule
        let first = problem.window.lowerBound
        entries = problem.days.map { schedule.demand(on: $0) }
        var skillNames: [String] = []
        var skills: [[Bool]] = []
        func skill(_ name: String) -> Int {
            if let known = skillNames.firstIndex(of: name) { return known }
            skillNames.append(name)
            skills.append(problem.people.map { schedule.covers(name, person: $0, ownSkill: nil) })
            return skills.count - 1
        }
        var slotsOfDay = [[Int]](repeating: [], count: problem.days.count)
        var shares: [[(entry: Int, share: Share)]] = []
        shares.reserveCapacity(problem.slots.count)
        for (index, slot) in problem.slots.enumerated() {
            let day = first.days(to: slot.date)
            guard day >= 0, day < problem.days.count else {
                shares.append([])
                continue
            }
            slotsOfDay[day].append(index)
            let own = slot.shift.attributes["skill"]
            var counted: [(entry: Int, share: Share)] = []
            for (e, demand) in entries[day].enumerated() where demand.shiftTypeID == slot.shift.shiftTypeID {
                guard let wanted = demand.skill else {
                    counted.append((e, .always))
                    continue
                }
                if let own {
                    if own == .string(wanted) { counted.append((e, .always)) }
                } else {
                    counted.append((e, .skill(skill(wanted))))
                }
            }
            shares.append(counted)
        }
        self.slotsOfDay = slotsOfDay
        self.shares = shares
        self.skills = skills
        // What the slots held in the problem's schedule count (by whoever holds them there), taken
        // from the whole count; a demand slot is not in the schedule yet.
        var base: [[Int]] = []
        for (day, date) in problem.days.enumerated() {
            var counts = schedule.staffed(entries[day], on: date)
            for slot in slotsOfDay[day] where !problem.slots[slot].origin.isDemand {
                guard let person = problem.slots[slot].initial else { continue }
                for (e, share) in shares[slot] {
                    switch share {
                    case .always: counts[e] -= 1
                    case let .skill(k): if schedule.covers(skillNames[k], person: person, ownSkill: nil) { counts[e] -= 1 }
                    }
                }
            }
            base.append(counts)
        }
        self.base = base
    }

    private static func counts(_ share: Share, _ person: Int, _ skills: [[Bool]]) -> Bool {
        switch share {
        case .always: true
        case let .skill(skill): skills[skill][person]
        }
    }

    /// Whether handing `slot` from `old` to `new` (-1: nobody) changes any count of its day: it
    /// does when, for one of the entries the slot counts toward, the slot counts with one of them
    /// holding it and not with the other (nobody never counts; a skill entry's slot without a
    /// `skill` of its own counts by its person's skills).
    func changesCounts(slot: Int, from old: Int, to new: Int) -> Bool {
        guard old != new else { return false }
        return shares[slot].contains { _, share in
            (old >= 0 && Self.counts(share, old, skills)) != (new >= 0 && Self.counts(share, new, skills))
        }
    }

    /// The counts of a window day's entries when `holder(slot)` holds each slot (-1: nobody).
    func counts(day: Int, holder: (Int) -> Int) -> [Int] {
        var counts = base[day]
        for slot in slotsOfDay[day] {
            let person = holder(slot)
            guard person >= 0 else { continue }
            for (e, share) in shares[slot] where Self.counts(share, person, skills) { counts[e] += 1 }
        }
        return counts
    }
}
