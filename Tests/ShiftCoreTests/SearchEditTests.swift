import Foundation
import TestSupport
import Testing
@testable import ShiftCore

/// `Schedule.edit(_:)` is the solver's fast path for candidate rosters: shifts put and taken out
/// in place, and taken back with `undo(_:)`. Whatever it does must show as what the funnel makes
/// of the same changes, and a copy taken before the edits must not see them.
@Suite struct SearchEditTests {
    let fixture = Fixture()

    /// Random edits, one to four at a time, on twelve shift ids (some with notes and their own
    /// calendar UID) across three types, three people and nobody, over ten days: after each
    /// batch the edited schedule shows what the funnel's schedule shows, a copy taken before the
    /// batch still shows the schedule before it, and undoing the batch gives that back.
    @Test func editsShowAsTheFunnelsMutationsAndUndoRestores() throws {
        var funnel = try Schedule(settings: StoreSettings()).applying(fixture.setup).schedule
        let dana = Person(id: PersonID(uuid(12)), displayName: "Dana")
        funnel = try funnel.applying(.addPerson(dana)).schedule
        var edited = funnel
        let people: [PersonID?] = [fixture.bob.id, fixture.carol.id, dana.id, nil]
        let types = [fixture.day.id, fixture.night.id, fixture.office.id]
        var random = SplitMix64(seed: 7)
        func pick(_ count: Int) -> Int { Int.random(in: 0..<count, using: &random) }
        var undone = 0
        for step in 0..<400 {
            // Every other batch a copy shares the storage (the edits copy what they change);
            // otherwise the edited schedule is its only holder (the edits change it in place).
            let before: Schedule? = step.isMultiple(of: 2) ? edited : nil
            let beforeFunnel = funnel
            var edits: [Schedule.SearchEdit] = []
            for _ in 0..<(1 + pick(4)) {
                let n = pick(12)
                let id = ShiftID(uuid(100 + n))
                if funnel.shift(id) != nil, pick(3) == 0 {
                    edits.append(.remove(id))
                    funnel = try funnel.applying(.unscheduleShift(id, reason: nil)).schedule
                    continue
                }
                let first = date("2026-03-01")
                var shift = funnel.shift(id) ?? ScheduledShift(id: id, shiftTypeID: types[pick(3)], date: first.adding(days: pick(10)))
                switch pick(4) {
                case 0: shift.shiftTypeID = types[pick(3)]
                case 1: shift.date = first.adding(days: pick(10))
                case 2:
                    shift.notes = pick(2) == 0 ? "bring keys \(step)" : nil
                    let own = "shift-\(n)@example.org"
                    shift.eventIdentifier = pick(2) == 0 ? own : ScheduledShift.defaultEventIdentifier(for: id)
                default: break
                }
                shift.personID = people[pick(people.count)]
                edits.append(.put(shift))
                let mutation: Mutation = funnel.shift(id) == nil ? .scheduleShift(shift) : .updateShift(shift, reason: nil)
                funnel = try funnel.applying(mutation).schedule
            }
            let undo = edited.edit(edits)
            try expectSame(edited, funnel, people: people.compactMap { $0 }, types: types)
            if let before { try expectSame(before, beforeFunnel, people: people.compactMap { $0 }, types: types) }
            if pick(4) == 0 {
                edited.undo(undo)
                funnel = beforeFunnel
                try expectSame(edited, funnel, people: people.compactMap { $0 }, types: types)
                undone += 1
            }
        }
        #expect(undone > 50)
        #expect(!funnel.shifts().isEmpty)
    }

    /// Everything a rule or a query can see of the shifts: every shift, each person's shifts and
    /// timeline, each type's, the span of dates, and the shifts found by their own UIDs.
    private func expectSame(_ a: Schedule, _ b: Schedule, people: [PersonID], types: [ShiftTypeID]) throws {
        #expect(a.shifts().sorted { $0.id < $1.id } == b.shifts().sorted { $0.id < $1.id })
        for person in people {
            #expect(a.shifts(ShiftQuery(personID: person)) == b.shifts(ShiftQuery(personID: person)))
            #expect(a.timeline(of: person) == b.timeline(of: person))
        }
        for type in types {
            #expect(a.shifts(ShiftQuery(shiftTypeIDs: [type])) == b.shifts(ShiftQuery(shiftTypeIDs: [type])))
        }
        #expect(a.shifts(ShiftQuery(unassignedOnly: true)) == b.shifts(ShiftQuery(unassignedOnly: true)))
        #expect(a.shiftDateRange == b.shiftDateRange)
        for n in 0..<12 {
            let uid = "shift-\(n)@example.org"
            #expect(a.shift(customEventIdentifier: uid)?.id == b.shift(customEventIdentifier: uid)?.id)
        }
    }
}
