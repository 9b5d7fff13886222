import Foundation
import TestSupport
import ShiftCore
import ShiftRules
import Testing
@testable import ShiftSolve

@Suite struct SolverTests {
    /// The score the search ends with is the one `validate --score` gives the roster it made.
    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func finalScoreIsValidatesScore(seed: UInt64) throws {
        let ward = try RandomWard(seed: seed)
        let rules = try engine()
        let result = try solve(ward.schedule, window: ward.window, engine: rules, seed: seed, moves: 1_500)
        let summary = ScoreSummary(try rules.validate(result.schedule), rules: rules.rules)
        #expect(result.score.hard == summary.hardViolations)
        #expect(result.score.warnings == summary.warnings)
        #expect(abs(result.score.penalty - summary.softPenalty) < 1e-6)
        let before = ScoreSummary(try rules.validate(result.problem.schedule), rules: rules.rules)
        #expect(result.initialScore.hard == before.hardViolations)
        #expect(result.initialScore.warnings == before.warnings)
        #expect(abs(result.initialScore.penalty - before.softPenalty) < 1e-6)
        #expect(result.score <= result.initialScore)
    }

    /// Scoped evaluation (person phases of the people touched, day phases of the days touched)
    /// against a whole validation after every move of a search.
    @Test func everyMoveIsScoredAsAWholeValidationWouldScoreIt() throws {
        let ward = try RandomWard(seed: 11)
        let rules = try engine()
        let problem = try SolveProblem(schedule: ward.schedule, window: ward.window, replan: true, seed: 3)
        let evaluator = try Evaluator(engine: rules, problem: problem, changePenalty: 0)
        var (state, _) = try evaluator.initialState()
        let generator = MoveGenerator(problem: problem)
        var random = SeededGenerator(seed: 9)
        var checked = 0
        while checked < 60 {
            guard let changes = generator.next(state, &random, occupancy: evaluator.holdings(of: state)) else { continue }
            let candidate = try evaluator.evaluate(state, changes)
            evaluator.commit(candidate, to: &state)
            let whole = ScoreSummary(try rules.validate(state.schedule))
            #expect(state.score.hard == whole.hardViolations)
            #expect(state.score.warnings == whole.warnings)
            #expect(abs(state.score.penalty - whole.softPenalty) < 1e-6)
            checked += 1
        }
    }

    /// The evaluation that stops at the first new error is a fast path of the whole one: it gives
    /// up exactly when the whole evaluation finds a touched day or person with more errors than
    /// before, and otherwise scores the move as it does.
    @Test(arguments: [11, 12] as [UInt64]) func refusingNewErrorsStopsExactlyWhenAScopeGainsOne(seed: UInt64) throws {
        let ward = try RandomWard(seed: seed)
        let rules = try engine()
        let problem = try SolveProblem(schedule: ward.schedule, window: ward.window, replan: true, seed: seed)
        let evaluator = try Evaluator(engine: rules, problem: problem, changePenalty: 0)
        var (state, _) = try evaluator.initialState()
        let generator = MoveGenerator(problem: problem)
        var random = SeededGenerator(seed: seed)
        var (refused, scored) = (0, 0)
        for _ in 0..<400 where refused + scored < 150 {
            guard let changes = generator.next(state, &random, occupancy: evaluator.holdings(of: state)) else { continue }
            let whole = try evaluator.evaluate(state, changes)
            let gains = zip(whole.people, whole.personParts).contains { $1.hard > state.personParts[$0].hard }
                || zip(whole.days, whole.dayParts).contains { $1.hard > state.dayParts[$0].hard }
            if let fast = try evaluator.evaluateRefusingNewErrors(state, changes) {
                #expect(!gains)
                #expect(fast.score == whole.score)
                scored += 1
            } else {
                #expect(gains)
                refused += 1
            }
            // Keep the moves that add no error, so that both kinds keep coming.
            if !gains { evaluator.commit(whole, to: &state) }
        }
        #expect(refused > 0 && scored > 0)
    }

    /// A random ward of nine people re-planned whole: its first state, its move generator, and
    /// the slots each person holds on each day of it.
    private func replannedWard() throws -> (SearchState, MoveGenerator, (Int, Int) -> [Int]) {
        let ward = try RandomWard(seed: 5, people: 9)
        let problem = try SolveProblem(schedule: ward.schedule, window: ward.window, replan: true, seed: 3)
        let evaluator = try Evaluator(engine: try engine(), problem: problem, changePenalty: 0)
        let (state, _) = try evaluator.initialState()
        return (state, MoveGenerator(problem: problem), evaluator.holdings(of: state))
    }

    /// A retype moves one person, on each day of a run it changes, from the slot they hold to a
    /// slot of one other kind on the same day; whoever held that slot takes theirs.
    @Test func retypeMovesOnePersonToAnotherKindOnTheSameDays() throws {
        let (state, generator, holds) = try replannedWard()
        var random = SeededGenerator(seed: 4)
        var made = 0
        for _ in 0..<400 {
            guard let changes = generator.retype(state, &random, holds) else { continue }
            made += 1
            #expect(changes.count % 2 == 0)
            let mover = changes[0].person
            var kinds: Set<Int> = []
            for pair in stride(from: 0, to: changes.count, by: 2) {
                let (to, from) = (changes[pair], changes[pair + 1])
                #expect(to.person == mover)
                #expect(state.assignment[from.slot] == mover)
                #expect(from.person == state.assignment[to.slot])
                #expect(generator.slotDay[to.slot] == generator.slotDay[from.slot])
                #expect(generator.slotKind[to.slot] != generator.slotKind[from.slot])
                kinds.insert(generator.slotKind[to.slot])
            }
            #expect(kinds.count == 1)
        }
        #expect(made > 20)
    }

    /// A block move that takes slots takes free ones of one shift type, on days the person is
    /// free; one that gives slots up gives up what the person holds.
    @Test func blockMovesTakeOneShiftTypeOnFreeDays() throws {
        let (state, generator, holds) = try replannedWard()
        var random = SeededGenerator(seed: 6)
        var taking = 0, leaving = 0
        for _ in 0..<400 {
            guard let changes = generator.block(state, &random, holds) else { continue }
            if changes[0].person < 0 {
                leaving += 1
                let holder = state.assignment[changes[0].slot]
                #expect(changes.allSatisfy { $0.person < 0 && state.assignment[$0.slot] == holder })
            } else {
                taking += 1
                let person = changes[0].person
                #expect(Set(changes.map { generator.slotType[$0.slot] }).count == 1)
                #expect(Set(changes.map { generator.slotDay[$0.slot] }).count == changes.count)
                for change in changes {
                    #expect(change.person == person)
                    #expect(state.assignment[change.slot] < 0)
                    #expect(holds(person, generator.slotDay[change.slot]).isEmpty)
                }
            }
        }
        #expect(taking > 20 && leaving > 20)
    }

    /// Moves about a person go, half the time, where their findings are dated (`Spot`): with
    /// one spot per person, block and retype moves touch that day about twice as often as the
    /// same moves drawn without spots (the ward's window is short, so random runs often hold it).
    @Test func movesAboutAPersonGoWhereTheirFindingsAre() throws {
        let (initial, generator, holds) = try replannedWard()
        let day = generator.dayCount / 2
        var plain = initial
        plain.personSpots = plain.personSpots.map { _ in [] }
        var spotted = plain
        spotted.personSpots = plain.personSpots.map { _ in [Spot(day: day, weight: 1)] }
        func touching(_ state: SearchState) -> Double {
            var random = SeededGenerator(seed: 12)
            var (made, touched) = (0, 0)
            for _ in 0..<2_000 {
                for move in [generator.block(state, &random, holds), generator.retype(state, &random, holds)] {
                    guard let changes = move else { continue }
                    made += 1
                    if changes.contains(where: { generator.slotDay[$0.slot] == day }) { touched += 1 }
                }
            }
            return Double(touched) / Double(max(1, made))
        }
        let (without, with) = (touching(plain), touching(spotted))
        #expect(without > 0 && with > 1.6 * without, "\(with) against \(without)")
    }

    /// A person's partner (the other side of a swap of days, the one a held slot goes to) is
    /// never that person; half the time it is drawn by what person phases find, so one person
    /// with findings among nine is drawn about 0.5 + 0.5 / 8 of the time instead of 1 / 8.
    @Test func partnersAreMostlyPeopleWhoseFindingsShow() throws {
        var (state, generator, holds) = try replannedWard()
        state.personParts = state.personParts.map { _ in ScorePart() }
        state.personSpots = state.personSpots.map { _ in [] }
        var random = SeededGenerator(seed: 21)
        func share(of wanted: Int, partnering person: Int, _ state: SearchState) -> Double {
            var drawn = 0
            for _ in 0..<4_000 {
                let other = generator.partner(of: person, state, &random)
                #expect(other != person && other >= 0 && other < generator.peopleCount)
                if other == wanted { drawn += 1 }
            }
            return Double(drawn) / 4_000
        }
        let plain = share(of: 4, partnering: 0, state)
        #expect(abs(plain - 1.0 / 8) < 0.03, "\(plain)")
        var found = state
        found.personParts[4].penalty = 50
        let weighted = share(of: 4, partnering: 0, found)
        #expect(abs(weighted - (0.5 + 0.5 / 8)) < 0.04, "\(weighted)")
        // Only the person's own findings: anyone else, evenly.
        var own = state
        own.personParts[0].penalty = 50
        let alone = share(of: 4, partnering: 0, own)
        #expect(abs(alone - 1.0 / 8) < 0.03, "\(alone)")
        // A swap of days never pairs a person with themself: each slot changes hands.
        for _ in 0..<500 {
            guard let changes = generator.swapDays(found, &random, holds) else { continue }
            for change in changes { #expect(change.person != found.assignment[change.slot]) }
        }
    }

    /// A slide moves one slot of a person to a free slot on a day up to three days away that
    /// they do not work, of the same shift type when that day has a free one.
    @Test func slideMovesOneSlotToANearbyFreeDay() throws {
        let (state, generator, holds) = try replannedWard()
        var random = SeededGenerator(seed: 8)
        var made = 0
        for _ in 0..<2_000 {
            guard let changes = generator.slide(state, &random, holds) else { continue }
            made += 1
            #expect(changes.count == 2)
            let (to, from) = (changes[0], changes[1])
            #expect(from.person == -1 && state.assignment[from.slot] == to.person)
            #expect(state.assignment[to.slot] < 0)
            let (toDay, fromDay) = (generator.slotDay[to.slot], generator.slotDay[from.slot])
            #expect(toDay != fromDay && abs(toDay - fromDay) <= 3)
            #expect(holds(to.person, toDay).isEmpty)
            let sameType = generator.slotsByDay[toDay].contains { state.assignment[$0] < 0 && generator.slotType[$0] == generator.slotType[from.slot] }
            #expect(!sameType || generator.slotType[to.slot] == generator.slotType[from.slot])
        }
        #expect(made > 20)
    }

    /// An edge move grows a person's run of one shift type by a slot of that type on the day
    /// next to it (its holder taking what the person held that day), or hands the run's end
    /// day to someone who holds nothing that day (mostly one whose own run it lengthens), or
    /// to nobody.
    @Test func edgeMovesGrowOrShrinkARunOfOneType() throws {
        // The ward's slots filled day by day in the same order, so that people hold runs.
        let ward = try RandomWard(seed: 5, people: 9)
        let problem = try SolveProblem(schedule: ward.schedule, window: ward.window, replan: true, seed: 3)
        let evaluator = try Evaluator(engine: try engine(), problem: problem, changePenalty: 0)
        var (state, _) = try evaluator.initialState()
        let generator = MoveGenerator(problem: problem)
        var fill: [(slot: Int, person: Int)] = []
        for slots in generator.slotsByDay {
            for (index, slot) in slots.enumerated() where state.assignment[slot] < 0 { fill.append((slot, index % problem.people.count)) }
        }
        evaluator.commit(try evaluator.evaluate(state, fill), to: &state)
        let holds = evaluator.holdings(of: state)
        var random = SeededGenerator(seed: 9)
        var (grown, shrunk, handedOn, couldHandOn) = (0, 0, 0, 0)
        func holdsType(_ person: Int, _ day: Int, _ type: Int) -> Bool {
            day >= 0 && day < generator.dayCount && holds(person, day).contains { generator.slotType[$0] == type }
        }
        for _ in 0..<2_000 {
            guard let changes = generator.edge(state, &random, holds) else { continue }
            let first = changes[0]
            let day = generator.slotDay[first.slot], type = generator.slotType[first.slot]
            let holder = state.assignment[first.slot]
            let freeOfType = generator.slotsByDay[day].contains { state.assignment[$0] < 0 && generator.slotType[$0] == type }
            // Grown: the person takes a slot next to their run of its type (a free one when there
            // is one) and hands what they held that day to the slot's holder.
            let grows = first.person >= 0 && !holdsType(first.person, day, type)
                && (holdsType(first.person, day - 1, type) || holdsType(first.person, day + 1, type))
                && (!freeOfType || holder < 0)
                && changes.dropFirst().allSatisfy {
                    state.assignment[$0.slot] == first.person && generator.slotDay[$0.slot] == day && $0.person == holder
                }
                && changes.count == 1 + holds(first.person, day).count
            // Shrunk: an end of the holder's run of that type goes to someone off that day.
            let shrinks = changes.count == 1 && holder >= 0
                && (!holdsType(holder, day - 1, type) || !holdsType(holder, day + 1, type))
                && (first.person < 0 || holds(first.person, day).isEmpty)
            #expect(grows || shrinks)
            if grows { grown += 1 } else if shrinks { shrunk += 1 }
            // A shrink mostly hands the day on to someone whose own run of that type it lengthens
            // (which is also a valid growth of theirs), where there is such a person.
            let continuing = (0..<generator.peopleCount).filter {
                $0 != holder && holds($0, day).isEmpty && (holdsType($0, day - 1, type) || holdsType($0, day + 1, type))
            }
            if shrinks, !continuing.isEmpty {
                couldHandOn += 1
                if continuing.contains(first.person) { handedOn += 1 }
            }
        }
        #expect(grown > 20 && shrunk > 20)
        #expect(couldHandOn > 10 && handedOn * 2 > couldHandOn)
    }

    @Test func assignedShiftsStayAsTheyAreWithoutReplan() throws {
        let ward = try RandomWard(seed: 7)
        let result = try solve(ward.schedule, window: ward.window, engine: try engine())
        let assigned = ward.schedule.shifts().filter { $0.personID != nil }
        #expect(!assigned.isEmpty)
        for shift in assigned {
            #expect(result.schedule.shift(shift.id) == shift)
        }
        #expect(!result.problem.slots.contains { $0.origin == .assigned })
    }

    /// Re-planning after a sick call: with a change penalty above what a change saves, nothing
    /// moves; without one, the search gives the shift that costs a penalty to someone else.
    @Test func changePenaltyKeepsTheScheduleAsItWas() throws {
        let day = ShiftType(id: ShiftTypeID(uuid(1)), symbol: "D", title: "Day", duration: ShiftDuration("07:00-19:00")!)
        let ann = Person(id: PersonID(uuid(2)), displayName: "Ann")
        let ben = Person(id: PersonID(uuid(3)), displayName: "Ben")
        let shift = ScheduledShift(id: ShiftID(uuid(4)), shiftTypeID: day.id, date: date("2026-03-03"), personID: ann.id)
        let undesired = Availability(id: AvailabilityID(uuid(5)), personID: ann.id, from: date("2026-03-03"), kind: .undesired, weight: 3)
        let schedule = try Schedule(settings: StoreSettings(timeZoneIdentifier: "UTC"), shiftTypes: [day], people: [ann, ben],
                                    shifts: [shift], availability: [undesired])
        let window = date("2026-03-02")...date("2026-03-08")
        let rules = try engine()

        let costly = try solve(schedule, window: window, engine: rules, replan: true, changePenalty: 5)
        #expect(costly.schedule.shift(shift.id)?.personID == ann.id)
        #expect(costly.score.penalty == 3)
        #expect(costly.score.changePenalty == 0)

        let cheap = try solve(schedule, window: window, engine: rules, replan: true, changePenalty: 1)
        // Ben takes it: leaving it to nobody would save as much, but leave an open shift.
        #expect(cheap.schedule.shift(shift.id)?.personID == ben.id)
        #expect(cheap.score.openShifts == 0)
        #expect(cheap.score.penalty == 0)
        #expect(cheap.score.changePenalty == 1)
    }

    /// Re-planning when nobody can take a shift: it is left without a person, counts as an open
    /// shift, and is listed as unfilled with the rule that refuses its only candidate.
    @Test func aReplannedShiftNobodyCanTakeIsOpenAndListed() throws {
        let day = ShiftType(id: ShiftTypeID(uuid(1)), symbol: "D", title: "Day", duration: ShiftDuration("07:00-19:00")!)
        let ann = Person(id: PersonID(uuid(2)), displayName: "Ann")
        let shift = ScheduledShift(id: ShiftID(uuid(4)), shiftTypeID: day.id, date: date("2026-03-03"), personID: ann.id)
        let away = Availability(id: AvailabilityID(uuid(5)), personID: ann.id, from: date("2026-03-03"), kind: .unavailable)
        let schedule = try Schedule(settings: StoreSettings(timeZoneIdentifier: "UTC"), shiftTypes: [day], people: [ann],
                                    shifts: [shift], availability: [away])
        let result = try solve(schedule, window: date("2026-03-02")...date("2026-03-08"), engine: try engine(), replan: true)
        #expect(result.schedule.shift(shift.id)?.personID == nil)
        #expect(result.score.hard == 0)
        #expect(result.score.openShifts == 1)
        #expect(result.unfilled.count == 1)
        #expect(result.unfilled.first?.slot.shift.id == shift.id)
        #expect(result.unfilled.first?.candidates.first?.rules == ["respects_availability"])
    }

    @Test func theSameSeedGivesTheSameRoster() throws {
        let ward = try RandomWard(seed: 21, people: 9)
        let rules = try engine()
        let first = try solve(ward.schedule, window: ward.window, engine: rules, seed: 42, workers: 2, moves: 2_000)
        let second = try solve(ward.schedule, window: ward.window, engine: rules, seed: 42, workers: 2, moves: 2_000)
        #expect(first.assignment == second.assignment)
        #expect(first.score == second.score)
        #expect(first.problem.slots.map(\.shift.id) == second.problem.slots.map(\.shift.id))
    }

    /// Three people for a demand of four a day with one shift each a day: one slot a day stays
    /// empty, and the reason names the rule that refuses the candidates.
    @Test func unfilledDemandIsListedWithTheRulesThatRefuseItsCandidates() throws {
        let day = ShiftType(id: ShiftTypeID(uuid(1)), symbol: "D", title: "Day", duration: ShiftDuration("07:00-19:00")!)
        let people = (0..<3).map { Person(id: PersonID(uuid(10 + $0)), displayName: ["Ann", "Ben", "Cleo"][$0]) }
        let demand = Demand(id: DemandID(uuid(20)), day: .date(date("2026-03-03")), shiftTypeID: day.id, minimum: 4, optimal: 4)
        let schedule = try Schedule(settings: StoreSettings(timeZoneIdentifier: "UTC"), shiftTypes: [day], people: people, demand: [demand])
        let result = try solve(schedule, window: date("2026-03-03")...date("2026-03-03"), engine: try engine())
        #expect(result.problem.slots.count == 4)
        #expect(result.assignment.compactMap { $0 }.count == 3)
        #expect(result.unfilled.count == 1)
        let refusing = Set(result.unfilled[0].candidates.flatMap(\.rules))
        #expect(refusing.contains("no_double_booking") || refusing.contains("one_shift_per_day"))
        #expect(result.unfilled[0].candidates.count == 3)
    }

    @Test func aProblemWithoutSlotsSaysSo() throws {
        let day = ShiftType(id: ShiftTypeID(uuid(1)), symbol: "D", title: "Day", duration: ShiftDuration("07:00-19:00")!)
        let schedule = try Schedule(settings: StoreSettings(timeZoneIdentifier: "UTC"), shiftTypes: [day],
                                    people: [Person(id: PersonID(uuid(2)), displayName: "Ann")])
        let result = try solve(schedule, window: date("2026-03-02")...date("2026-03-08"), engine: try engine())
        #expect(result.stop == .nothingToSolve)
        #expect(result.problem.slots.isEmpty)
    }

    /// Open shifts are filled before anything else is weighed; new shifts carry the demand's skill.
    @Test func openShiftsGetPeopleAndNewShiftsCarryTheSkill() throws {
        let day = ShiftType(id: ShiftTypeID(uuid(1)), symbol: "D", title: "Day", duration: ShiftDuration("07:00-19:00")!)
        let ann = Person(id: PersonID(uuid(2)), displayName: "Ann", attributes: ["skills": .list([.string("nurse")])])
        let ben = Person(id: PersonID(uuid(3)), displayName: "Ben")
        let open = ScheduledShift(id: ShiftID(uuid(4)), shiftTypeID: day.id, date: date("2026-03-02"))
        let demand = Demand(id: DemandID(uuid(5)), day: .date(date("2026-03-03")), shiftTypeID: day.id, skill: "nurse", minimum: 1, optimal: 1)
        let schedule = try Schedule(settings: StoreSettings(timeZoneIdentifier: "UTC"), shiftTypes: [day], people: [ann, ben],
                                    shifts: [open], demand: [demand])
        let result = try solve(schedule, window: date("2026-03-02")...date("2026-03-03"), engine: try engine())
        #expect(result.schedule.shift(open.id)?.personID != nil)
        let made = result.schedule.shifts(.on(date("2026-03-03")))
        #expect(made.count == 1)
        #expect(made.first?.attributes["skill"] == .string("nurse"))
        #expect(result.score.isPerfect)
        #expect(result.stop == .optimal)
    }

    /// `overstaff` slots come after the ones the demand wants, for entries of nobody too, and
    /// less what already stands there.
    @Test func overstaffMakesRoomBeyondTheOptimal() throws {
        let day = ShiftType(id: ShiftTypeID(uuid(1)), symbol: "D", title: "Day", duration: ShiftDuration("07:00-19:00")!)
        let ann = Person(id: PersonID(uuid(2)), displayName: "Ann")
        let standing = ScheduledShift(id: ShiftID(uuid(3)), shiftTypeID: day.id, date: date("2026-03-02"), personID: ann.id)
        let demand = [
            Demand(id: DemandID(uuid(4)), day: .date(date("2026-03-02")), shiftTypeID: day.id, minimum: 1, optimal: 2),
            Demand(id: DemandID(uuid(5)), day: .date(date("2026-03-03")), shiftTypeID: day.id, minimum: 0, optimal: 0),
            Demand(id: DemandID(uuid(6)), day: .date(date("2026-03-04")), shiftTypeID: day.id, skill: "nurse", minimum: 1, optimal: 1),
        ]
        let schedule = try Schedule(settings: StoreSettings(timeZoneIdentifier: "UTC"), shiftTypes: [day], people: [ann],
                                    shifts: [standing], demand: demand)
        let window = date("2026-03-02")...date("2026-03-04")
        func slots(_ overstaff: Int) throws -> [String] {
            try SolveProblem(schedule: schedule, window: window, replan: false, seed: 1, overstaff: overstaff).slots.map {
                "\($0.date) \($0.skill ?? "-") \($0.beyondOptimal ? "beyond" : "wanted")"
            }
        }
        #expect(try slots(0) == ["2026-03-02 - wanted", "2026-03-04 nurse wanted"])
        #expect(try slots(2) == [
            "2026-03-02 - wanted", "2026-03-02 - beyond", "2026-03-02 - beyond", "2026-03-03 - beyond", "2026-03-03 - beyond",
            "2026-03-04 nurse wanted", "2026-03-04 nurse beyond", "2026-03-04 nurse beyond",
        ])
    }

    /// A rule that wants more shifts than the demand: without overstaffing the roster cannot give
    /// them; with it the search staffs beyond the optimal, and only as far as the rule gains.
    @Test func overstaffingFillsWhatTheRulesWant() throws {
        let folder = try RuleFolder(["four_days.lua": SampleRules.fourDays])
        let day = ShiftType(id: ShiftTypeID(uuid(1)), symbol: "D", title: "Day", duration: ShiftDuration("07:00-19:00")!)
        let people = (0..<3).map { Person(id: PersonID(uuid(10 + $0)), displayName: ["Ann", "Ben", "Cleo"][$0]) }
        let demand = Weekday.allCases.enumerated().map { index, weekday in
            Demand(id: DemandID(uuid(20 + index)), day: .weekday(weekday), shiftTypeID: day.id, minimum: 1, optimal: 1)
        }
        let schedule = try Schedule(settings: StoreSettings(timeZoneIdentifier: "UTC"), shiftTypes: [day], people: people, demand: demand)
        let window = date("2026-03-02")...date("2026-03-08")
        let rules = try engine([folder.path])
        let plain = try solve(schedule, window: window, engine: rules, moves: 3_000)
        let staffed = try solve(schedule, window: window, engine: rules, moves: 3_000, overstaff: 2)
        // Seven shifts for three people who want four days each: 12 - 7 days short at least.
        #expect(plain.problem.slots.count == 7)
        #expect(plain.score.penalty >= 50)
        #expect(staffed.problem.slots.count == 21)
        #expect(staffed.score.penalty == 0)
        let shifts = staffed.schedule.shifts(ShiftQuery(from: window.lowerBound, to: window.upperBound))
        #expect(shifts.count == 12)
        for person in people { #expect(Set(shifts.filter { $0.personID == person.id }.map(\.date)).count == 4) }
        let summary = ScoreSummary(try rules.validate(staffed.schedule), rules: rules.rules)
        #expect(summary.softPenalty == 0)
    }

    /// A rule that fails in the middle of the search stops it with the rule's file and line.
    @Test func aRuleThatFailsMidSearchStopsTheSolveNamingItsLine() throws {
        let folder = try RuleFolder(["bad.lua": """
            return rule {
              id = "bad",
              summary = "Fails once Ann works a Tuesday.",
              validate_person = function(person, shifts, schedule, report)
                for i = 1, shifts.n do
                  if person.name == "Ann" and cal.weekday(shifts.dates[i]) == 2 then
                    error("no Tuesdays for Ann")
                  end
                end
              end,
            }
            """])
        let day = ShiftType(id: ShiftTypeID(uuid(1)), symbol: "D", title: "Day", duration: ShiftDuration("07:00-19:00")!)
        let ann = Person(id: PersonID(uuid(2)), displayName: "Ann")
        let open = ScheduledShift(id: ShiftID(uuid(4)), shiftTypeID: day.id, date: date("2026-03-03"))
        let schedule = try Schedule(settings: StoreSettings(timeZoneIdentifier: "UTC"), shiftTypes: [day], people: [ann], shifts: [open])
        #expect {
            try solve(schedule, window: date("2026-03-02")...date("2026-03-08"), engine: try engine([folder.path]))
        } throws: { error in
            "\(error)".contains("bad.lua:7") && "\(error)".contains("no Tuesdays for Ann")
        }
    }
}
