import Foundation

/// Which people suit slots of which kind (shift type and skill), as the rules say: the solver
/// knows nothing of skills or contracts, so it asks. For each kind and person it gives the person
/// one slot of that kind on a day they are free, with free days on either side, and runs their
/// person phases: a person to whom that adds an error on each of two such days (four days apart
/// where the window allows; on the one day when there is only one) does not suit the kind
/// (a nurse without the skill a slot needs, say). Everyone suits a kind that has no such days to
/// probe, and everyone suits every kind when the rules have no person phase.
///
/// The search draws people who suit a slot's kind and keeps few moves that give a slot to one who
/// does not (`MoveGenerator`), and the construction tries suitable candidates first: on INRC-II
/// four moves in five used to give a nurse a skill she lacks and were refused after a whole
/// evaluation. The table is a preference, not a rule: a tenth of such moves are still made, so a
/// wrong entry (an error that came from the probe day, not the kind) slows the search but does
/// not shut any roster out.
struct SlotFit: Sendable {
    /// Per kind, per person.
    private(set) var suits: [[Bool]]

    /// Everyone suits everything.
    init(kinds: Int, people: Int) {
        suits = [[Bool]](repeating: [Bool](repeating: true, count: people), count: kinds)
    }

    /// Probes every kind and person on `state` (person phases only).
    init(probing state: SearchState, _ evaluator: Evaluator, kinds slotKind: [Int], slotDay: [Int]) throws {
        let people = evaluator.problem.people.count
        let kindCount = (slotKind.max() ?? -1) + 1
        self.init(kinds: kindCount, people: people)
        let days = evaluator.problem.days.count
        // Each kind's slots, those nearest the middle of the window first.
        var slotsOfKind = [[Int]](repeating: [], count: kindCount)
        for slot in slotKind.indices { slotsOfKind[slotKind[slot]].append(slot) }
        for kind in slotsOfKind.indices {
            slotsOfKind[kind].sort { (abs(2 * slotDay[$0] - days), $0) < (abs(2 * slotDay[$1] - days), $1) }
        }
        let first = evaluator.problem.window.lowerBound
        for person in 0..<people {
            // The days the person works as things are (slots and pinned shifts alike).
            var worked: Set<Int> = []
            for shift in state.schedule.timeline(of: evaluator.problem.people[person]) { worked.insert(first.days(to: shift.date)) }
            func free(_ day: Int) -> Bool { !worked.contains(day) }
            for kind in slotsOfKind.indices {
                // Two days at least four apart where they can be (something of that day alone, a
                // few days off, say, should not speak for the kind).
                var probes: [Int] = []
                for spread in [4, 1] where probes.count < 2 {
                    for slot in slotsOfKind[kind] where probes.count < 2 {
                        let day = slotDay[slot]
                        guard probes.allSatisfy({ abs(slotDay[$0] - day) >= spread }), free(day - 1), free(day), free(day + 1) else { continue }
                        probes.append(slot)
                    }
                }
                var refused = 0
                for slot in probes {
                    let candidate = try evaluator.evaluate(state, [(slot, person)], peopleOnly: true)
                    if let index = candidate.people.firstIndex(of: person),
                       candidate.personParts[index].hard > state.personParts[person].hard {
                        refused += 1
                    }
                }
                if !probes.isEmpty, refused == probes.count { suits[kind][person] = false }
            }
        }
    }

    func suits(_ person: Int, kind: Int) -> Bool { suits[kind][person] }

    /// Per kind, the people who suit it (everyone, when nobody does).
    var suitedPeople: [[Int]] {
        suits.map { row in
            let people = row.indices.filter { row[$0] }
            return people.isEmpty ? Array(row.indices) : people
        }
    }

    /// Whether every person `changes` gives a slot to suits its kind.
    func suitsAll(_ changes: [(slot: Int, person: Int)], kinds slotKind: [Int]) -> Bool {
        changes.allSatisfy { $0.person < 0 || suits[slotKind[$0.slot]][$0.person] }
    }
}
