import ShiftCore

/// The moves of the local search. Each picks slots and people at random and returns the slots to
/// change with their new person (-1: nobody), or nil when the pick changes nothing.
struct MoveGenerator {
    let slotsByDay: [[Int]]
    let slotDay: [Int]
    /// Per slot, its kind: slots of one kind have the same shift type and skill.
    let slotKind: [Int]
    /// Per slot, its shift type (an index, one per shift type among the slots).
    let slotType: [Int]
    let peopleCount: Int
    let dayCount: Int
    /// Who suits which kind of slot (everyone, until `SlotFit(probing:)` says otherwise).
    var fit: SlotFit

    init(problem: SolveProblem) {
        var byDay = [[Int]](repeating: [], count: problem.days.count)
        var slotDay: [Int] = []
        var kinds: [String: Int] = [:]
        var slotKind: [Int] = []
        var types: [ShiftTypeID: Int] = [:]
        var slotType: [Int] = []
        for (index, slot) in problem.slots.enumerated() {
            let day = problem.window.lowerBound.days(to: slot.date)
            byDay[day].append(index)
            slotDay.append(day)
            let kind = "\(slot.shift.shiftTypeID)|\(slot.skill ?? "")"
            if kinds[kind] == nil { kinds[kind] = kinds.count }
            slotKind.append(kinds[kind]!)
            let type = slot.shift.shiftTypeID
            if types[type] == nil { types[type] = types.count }
            slotType.append(types[type]!)
        }
        slotsByDay = byDay
        self.slotDay = slotDay
        self.slotKind = slotKind
        self.slotType = slotType
        peopleCount = problem.people.count
        dayCount = problem.days.count
        fit = SlotFit(kinds: kinds.count, people: problem.people.count)
    }

    enum Kind: String, CaseIterable, Sendable {
        /// One slot to another person, or to nobody. Four times in five, a person who already
        /// holds a slot that day gives it to the slot's holder (or leaves it empty) instead of
        /// holding two. Three times in ten, when day phases find something, the slot is a free
        /// one of a day drawn in proportion to what they find there. A held slot goes to a
        /// `partner` of its holder.
        case reassign
        /// Two slots of a day exchange their people: a swap, or a change of shift type when one
        /// of them is empty.
        case exchange
        /// Two people exchange everything they hold on a run of 1 to 7 consecutive days: a
        /// person and their `partner`.
        case swapDays
        /// One person takes a free slot of one shift type on each day of a run of 2 to 7 days
        /// (mostly the type they work the day before or after it), or gives up all they hold
        /// on such a run.
        case block
        /// One person moves, on each day of a run of 1 to 7 days, to a slot of one other kind
        /// (shift type and skill): a free one, or one whose holder takes theirs in exchange.
        case retype
        /// One person moves a slot they hold to a free day up to three days away, in the same
        /// shift type where there is a free slot of it: as many shifts, on other days.
        case slide
        /// One person's run of days in one shift type grows or shrinks by a day at one of its
        /// ends: the person takes a slot of the run's type on the day next to it, from whoever
        /// holds it (who takes what the person held that day, or nothing), or hands the run's
        /// end day to someone off that day (mostly one whose own run of that type it lengthens),
        /// or to nobody.
        case edge
    }

    /// A move, drawn again (up to eight times) while it gives a slot to someone who does not
    /// suit its kind, except one time in ten (`SlotFit`).
    func next(_ state: SearchState, _ random: inout SeededGenerator, occupancy: (Int, Int) -> [Int]) -> [(slot: Int, person: Int)]? {
        for _ in 0..<8 {
            guard let move = draw(state, &random, occupancy: occupancy) else { return nil }
            if fit.suitsAll(move, kinds: slotKind) || random.chance(0.1) { return move }
        }
        return nil
    }

    private func draw(_ state: SearchState, _ random: inout SeededGenerator, occupancy: (Int, Int) -> [Int]) -> [(slot: Int, person: Int)]? {
        // Half the time while the rules still find errors, the move starts where they find them.
        if state.total.hard > 0, random.chance(0.5), let move = repair(state, &random, occupancy) { return move }
        let roll = random.below(100)
        let kind: Kind = roll < 8 ? .slide : roll < 18 ? .reassign : roll < 29 ? .exchange : roll < 47 ? .swapDays : roll < 64 ? .block
            : roll < 78 ? .retype : .edge
        switch kind {
        case .reassign: return reassign(state, &random, occupancy)
        case .exchange: return exchange(state, &random)
        case .swapDays: return swapDays(state, &random, occupancy)
        case .block: return block(state, &random, occupancy)
        case .retype: return retype(state, &random, occupancy)
        case .slide: return slide(state, &random, occupancy)
        case .edge: return edge(state, &random, occupancy)
        }
    }

    /// A move around an error: on a day whose day phases find one, a free slot of that day gets
    /// someone (or a held one changes hands); for a person whose person phases find one, one of
    /// their slots goes to someone else or to nobody, or a run of their days is swapped.
    private func repair(
        _ state: SearchState, _ random: inout SeededGenerator, _ occupancy: (Int, Int) -> [Int]
    ) -> [(slot: Int, person: Int)]? {
        let days = state.dayParts.indices.filter { state.dayParts[$0].hard > 0 }
        let people = state.personParts.indices.filter { state.personParts[$0].hard > 0 }
        guard !days.isEmpty || !people.isEmpty else { return nil }
        if !days.isEmpty, people.isEmpty || random.chance(0.5) {
            let day = days[random.below(days.count)]
            let slots = slotsByDay[day]
            guard !slots.isEmpty else { return nil }
            let free = slots.filter { state.assignment[$0] < 0 }
            let slot = free.isEmpty ? slots[random.below(slots.count)] : free[random.below(free.count)]
            let person = random.below(peopleCount)
            guard person != state.assignment[slot] else { return nil }
            // Someone who already works that day moves over, and another takes what they leave
            // (a chain of two: the one who fits the needed slot is often busy in another).
            if let held = occupancy(person, day).first(where: { $0 != slot }), random.chance(0.7) {
                var other = random.below(peopleCount)
                if other == person { other = -1 }
                return [(slot, person), (held, other)]
            }
            return [(slot, person)]
        }
        let person = people[random.below(people.count)]
        let held = (0..<dayCount).flatMap { occupancy(person, $0) }
        if !held.isEmpty, random.chance(0.6) {
            let slot = held[random.below(held.count)]
            let other = random.chance(0.2) ? -1 : random.below(peopleCount)
            return other == person ? nil : [(slot, other)]
        }
        guard peopleCount > 1, let run = run(&random, shortest: 1) else { return nil }
        return exchange(person, anyone(but: person, &random), over: run, occupancy)
    }

    /// One person moves a slot they hold to a free slot of the same shift type (any type when
    /// there is none) on a free day up to three days away: the same number of shifts, on other days.
    func slide(_ state: SearchState, _ random: inout SeededGenerator, _ occupancy: (Int, Int) -> [Int]) -> [(slot: Int, person: Int)]? {
        let person = focus(state, &random)
        let day = anchor(state, person, &random)
        guard let from = occupancy(person, day).first else { return nil }
        var to = day + 1 + random.below(3)
        if random.chance(0.5) { to = 2 * day - to }
        guard to >= 0, to < dayCount, occupancy(person, to).isEmpty else { return nil }
        let free = slotsByDay[to].filter { state.assignment[$0] < 0 }
        guard !free.isEmpty else { return nil }
        let typed = free.filter { slotType[$0] == slotType[from] }
        let pool = typed.isEmpty ? free : typed
        return [(pool[random.below(pool.count)], person), (from, -1)]
    }

    /// A person for a move: half the time one whose person phases find something, drawn in
    /// proportion to what they find (errors and warnings count as much as the largest
    /// penalty), else anyone.
    private func focus(_ state: SearchState, _ random: inout SeededGenerator) -> Int {
        guard random.chance(0.5), let drawn = drawFinding(state, &random, besides: -1) else { return random.below(peopleCount) }
        return drawn
    }

    /// Someone other than `person` for a move with them (the other side of a swap of days, the
    /// one a held slot goes to): `partnerChance` of the time drawn as `focus` draws, else
    /// anyone else. Where one person has too much (shifts, weekends) another often has too
    /// little, and both show in their findings.
    func partner(of person: Int, _ state: SearchState, _ random: inout SeededGenerator) -> Int {
        if random.chance(Self.partnerChance), let drawn = drawFinding(state, &random, besides: person) { return drawn }
        return anyone(but: person, &random)
    }

    /// Anyone other than `person` (there must be someone), evenly.
    private func anyone(but person: Int, _ random: inout SeededGenerator) -> Int {
        let other = random.below(peopleCount - 1)
        return other >= person ? other + 1 : other
    }

    /// How often `partner` draws by findings. Measured on INRC-II (60 s, one worker, seeds 1–2,
    /// `--overstaff 2`, n030w4_1_6-2-9-1, n060w4_1_6-1-1-5, n100w4_0_1-1-0-8, n120w4_1_4-6-2-6;
    /// docs/solve.md): half the time costs 5.3 % less in all than never (lower on 7 of 8 runs);
    /// eight times in ten is about even with half.
    static let partnerChance = 0.5

    /// Someone other than `besides` drawn in proportion to what their person phases find, or
    /// nil when nobody else's find anything.
    private func drawFinding(_ state: SearchState, _ random: inout SeededGenerator, besides: Int) -> Int? {
        let parts = state.personParts
        var largest = 1.0
        for part in parts where part.penalty > largest { largest = part.penalty }
        return drawWeighted(parts.count, &random) { $0 == besides ? 0 : weight(parts[$0], largest) }
    }

    /// An index below `count` drawn in proportion to `weight(index)`, or nil (drawing nothing)
    /// when the weights add up to nothing.
    private func drawWeighted(_ count: Int, _ random: inout SeededGenerator, weight: (Int) -> Double) -> Int? {
        var total = 0.0
        for index in 0..<count { total += weight(index) }
        guard total > 0 else { return nil }
        var pick = random.unit() * total
        for index in 0..<count {
            pick -= weight(index)
            if pick < 0 { return index }
        }
        return count - 1
    }

    private func weight(_ part: ScorePart, _ largest: Double) -> Double {
        max(0, part.penalty) + Double(part.hard + part.warnings) * largest
    }

    /// Everything `a` holds on `days` goes to `b` and the other way round; nil when neither
    /// holds anything there.
    private func exchange(_ a: Int, _ b: Int, over days: Range<Int>, _ occupancy: (Int, Int) -> [Int]) -> [(slot: Int, person: Int)]? {
        var changes: [(slot: Int, person: Int)] = []
        for day in days {
            for slot in occupancy(a, day) { changes.append((slot, b)) }
            for slot in occupancy(b, day) { changes.append((slot, a)) }
        }
        return changes.isEmpty ? nil : changes
    }

    private func reassign(
        _ state: SearchState, _ random: inout SeededGenerator, _ occupancy: (Int, Int) -> [Int]
    ) -> [(slot: Int, person: Int)]? {
        let slot = anchoredSlot(state, &random) ?? random.below(slotDay.count)
        let holder = state.assignment[slot]
        let person: Int
        if random.chance(0.15) {
            person = -1
        } else if holder >= 0, peopleCount > 1 {
            person = partner(of: holder, state, &random)
        } else {
            person = random.below(peopleCount)
        }
        guard person != holder else { return nil }
        // Someone who already holds a slot that day hands it to the slot's holder (or leaves it
        // empty): the two exchange their days' slots instead of one holding two.
        if person >= 0, let held = occupancy(person, slotDay[slot]).first, held != slot, random.chance(0.8) {
            return [(slot, person), (held, state.assignment[slot])]
        }
        return [(slot, person)]
    }

    private func exchange(_ state: SearchState, _ random: inout SeededGenerator) -> [(slot: Int, person: Int)]? {
        let a = random.below(slotDay.count)
        let day = slotsByDay[slotDay[a]]
        guard day.count > 1 else { return nil }
        let b = day[random.below(day.count)]
        let (pa, pb) = (state.assignment[a], state.assignment[b])
        guard a != b, pa != pb else { return nil }
        return [(a, pb), (b, pa)]
    }

    private func run(_ random: inout SeededGenerator, shortest: Int) -> Range<Int>? {
        guard dayCount >= shortest else { return nil }
        let length = shortest + random.below(min(7, dayCount) - shortest + 1)
        let first = random.below(dayCount - length + 1)
        return first..<first + length
    }

    /// A run of 1 (or `shortest`) to 7 consecutive days that holds `day`.
    private func run(around day: Int, _ random: inout SeededGenerator, shortest: Int) -> Range<Int>? {
        guard dayCount >= shortest else { return nil }
        let length = shortest + random.below(min(7, dayCount) - shortest + 1)
        let first = min(max(0, day - random.below(length)), dayCount - length)
        return first..<first + length
    }

    /// A day for a move about `person`: `anchorChance` of the time, when their person phases
    /// find something dated in the window, one of those days drawn in proportion to what it
    /// costs (the solver knows no rule, but a finding's date says where the person's roster
    /// breaks it); else any day.
    private func anchor(_ state: SearchState, _ person: Int, _ random: inout SeededGenerator) -> Int {
        let spots = state.personSpots[person]
        guard !spots.isEmpty, random.chance(Self.anchorChance) else { return random.below(dayCount) }
        let index = drawWeighted(spots.count, &random) { spots[$0].weight } ?? random.below(spots.count)
        return spots[index].day
    }

    /// `dayAnchorChance` of the time, when day phases find something, a free slot (any slot when
    /// none is free) of a day drawn in proportion to what they find there; else nil.
    private func anchoredSlot(_ state: SearchState, _ random: inout SeededGenerator) -> Int? {
        guard random.chance(Self.dayAnchorChance),
              let day = drawWeighted(state.dayParts.count, &random, weight: { dayWeight(state.dayParts[$0]) }) else { return nil }
        let slots = slotsByDay[day]
        guard !slots.isEmpty else { return nil }
        let free = slots.filter { state.assignment[$0] < 0 }
        return free.isEmpty ? slots[random.below(slots.count)] : free[random.below(free.count)]
    }

    private func dayWeight(_ part: ScorePart) -> Double {
        max(0, part.penalty) + Double(part.hard + part.warnings) * Spot.errorWeight
    }

    /// How often a move about a person goes to one of their spots, and a reassignment to a day
    /// with findings. Measured on INRC-II (four four-week problems, 60 s, seeds 1–3,
    /// docs/solve.md): the first at a half cost 3.6 % less in all, the second at a third a
    /// further 3.6 %.
    static let anchorChance = 0.5
    static let dayAnchorChance = 0.3

    func swapDays(
        _ state: SearchState, _ random: inout SeededGenerator, _ occupancy: (Int, Int) -> [Int]
    ) -> [(slot: Int, person: Int)]? {
        guard peopleCount > 1 else { return nil }
        let a = focus(state, &random)
        guard let days = run(around: anchor(state, a, &random), &random, shortest: 1) else { return nil }
        let b = partner(of: a, state, &random)
        return exchange(a, b, over: days, occupancy)
    }

    func block(
        _ state: SearchState, _ random: inout SeededGenerator, _ occupancy: (Int, Int) -> [Int]
    ) -> [(slot: Int, person: Int)]? {
        let person = focus(state, &random)
        guard let days = run(around: anchor(state, person, &random), &random, shortest: 2) else { return nil }
        var changes: [(slot: Int, person: Int)] = []
        if random.chance(0.5) {
            for day in days {
                for slot in occupancy(person, day) { changes.append((slot, -1)) }
            }
            return changes.isEmpty ? nil : changes
        }
        // The run's days are taken in one shift type, as rules on runs of one type want it: the
        // type the person works on the day before the run or after it (the run grows), else
        // that of a free slot of the run's first free day. Each day takes a free slot of that
        // type, one of a kind the person suits where there is one.
        let type: Int
        if let before = days.lowerBound > 0 ? occupancy(person, days.lowerBound - 1).first : nil, random.chance(0.7) {
            type = slotType[before]
        } else if let after = days.upperBound < dayCount ? occupancy(person, days.upperBound).first : nil, random.chance(0.7) {
            type = slotType[after]
        } else {
            guard let day = days.first(where: { occupancy(person, $0).isEmpty }) else { return nil }
            let free = slotsByDay[day].filter { state.assignment[$0] < 0 }
            guard !free.isEmpty else { return nil }
            type = slotType[free[random.below(free.count)]]
        }
        for day in days where occupancy(person, day).isEmpty {
            let free = slotsByDay[day].filter { state.assignment[$0] < 0 && slotType[$0] == type }
            guard !free.isEmpty else { continue }
            changes.append((drawSuited(from: free, for: person, &random), person))
        }
        return changes.isEmpty ? nil : changes
    }

    func retype(
        _ state: SearchState, _ random: inout SeededGenerator, _ occupancy: (Int, Int) -> [Int]
    ) -> [(slot: Int, person: Int)]? {
        let person = focus(state, &random)
        guard let days = run(around: anchor(state, person, &random), &random, shortest: 1) else { return nil }
        // The kind to move to: that of a random slot of the run's first day the person works
        // on, other than the one they hold.
        guard let first = days.first(where: { !occupancy(person, $0).isEmpty }),
              let held = occupancy(person, first).first else { return nil }
        let others = slotsByDay[first].filter { slotKind[$0] != slotKind[held] }
        guard !others.isEmpty else { return nil }
        let target = slotKind[others[random.below(others.count)]]
        var changes: [(slot: Int, person: Int)] = []
        for day in days {
            guard let from = occupancy(person, day).first, slotKind[from] != target else { continue }
            let candidates = slotsByDay[day].filter { slotKind[$0] == target }
            guard !candidates.isEmpty else { continue }
            let free = candidates.filter { state.assignment[$0] < 0 }
            let to = free.isEmpty ? candidates[random.below(candidates.count)] : free[random.below(free.count)]
            changes.append((to, person))
            changes.append((from, state.assignment[to]))
        }
        return changes.isEmpty ? nil : changes
    }

    /// A run's edge moves by a day. The run is the days around a slot the person holds on which
    /// they hold a slot of its shift type. Growing, the person takes a slot of that type on the
    /// day after the run (or before it): a free one, else one whose holder takes in exchange
    /// what the person held that day (or nothing). Shrinking, the run's last (or first) day goes
    /// to someone who holds nothing that day and suits its kind (seven times in ten one who works
    /// that type the day before or after, where there is one: a run passes from one person to
    /// another), or to nobody.
    func edge(_ state: SearchState, _ random: inout SeededGenerator, _ occupancy: (Int, Int) -> [Int]) -> [(slot: Int, person: Int)]? {
        let person = focus(state, &random)
        let day = anchor(state, person, &random)
        guard let held = occupancy(person, day).first else { return nil }
        let type = slotType[held]
        func worksType(_ someone: Int, _ other: Int) -> Bool {
            other >= 0 && other < dayCount && occupancy(someone, other).contains { slotType[$0] == type }
        }
        var (first, last) = (day, day)
        while worksType(person, first - 1) { first -= 1 }
        while worksType(person, last + 1) { last += 1 }
        let atEnd = random.chance(0.5)
        if random.chance(0.5) {
            let next = atEnd ? last + 1 : first - 1
            guard next >= 0, next < dayCount else { return nil }
            let typed = slotsByDay[next].filter { slotType[$0] == type }
            guard !typed.isEmpty else { return nil }
            let free = typed.filter { state.assignment[$0] < 0 }
            let slot = drawSuited(from: free.isEmpty ? typed : free, for: person, &random)
            var changes = [(slot: slot, person: person)]
            let holder = state.assignment[slot]
            for mine in occupancy(person, next) { changes.append((mine, holder)) }
            return changes
        }
        let end = atEnd ? last : first
        guard let slot = occupancy(person, end).first(where: { slotType[$0] == type }) else { return nil }
        let off = (0..<peopleCount).filter { $0 != person && occupancy($0, end).isEmpty && fit.suits($0, kind: slotKind[slot]) }
        if off.isEmpty || random.chance(0.2) { return [(slot, -1)] }
        // Mostly someone whose own run of that type the day lengthens, where there is one.
        let next = off.filter { worksType($0, end - 1) || worksType($0, end + 1) }
        if !next.isEmpty, random.chance(0.7) { return [(slot, next[random.below(next.count)])] }
        return [(slot, off[random.below(off.count)])]
    }

    /// One of `slots` (not empty) drawn at random, among those of a kind `person` suits where
    /// there are some.
    private func drawSuited(from slots: [Int], for person: Int, _ random: inout SeededGenerator) -> Int {
        let suited = slots.filter { fit.suits(person, kind: slotKind[$0]) }
        let pool = suited.isEmpty ? slots : suited
        return pool[random.below(pool.count)]
    }
}
