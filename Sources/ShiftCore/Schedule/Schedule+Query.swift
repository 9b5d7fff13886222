import Foundation
import HashTreeCollections

extension Schedule {
    /// The shifts a query selects, ordered by date, then start time, then id (or the reverse
    /// for `.newestFirst`), at most `query.limit` of them.
    ///
    /// Served by indexes: a person's shifts are a range of the person index (by person, date, id),
    /// anything else is read a day at a time from the type index (by type, date, id). Cost grows
    /// with the days in range and the shifts returned, and with the logarithm of the schedule's size.
    public func shifts(_ query: ShiftQuery = ShiftQuery()) -> [ScheduledShift] {
        var result: [ScheduledShift] = []
        forEachShift(query) { result.append($0); return true }
        return result
    }

    /// Calls `body` for each shift the query selects, in query order, until it returns false.
    public func forEachShift(_ query: ShiftQuery, _ body: (ScheduledShift) -> Bool) {
        if let source {
            forEachMergedShift(query, source, body)
            return
        }
        forEachHeldShift(query, ordered: true, body)
    }

    /// The shifts a query selects in no particular order within a day (dates still in order), for
    /// counting and adding up: a day's shifts are not sorted by start time (so with a `limit`,
    /// which of the last day's shifts are given is unspecified).
    public func forEachShiftUnordered(_ query: ShiftQuery, _ body: (ScheduledShift) -> Bool) {
        if let source {
            forEachMergedShift(query, source, body)
            return
        }
        forEachHeldShift(query, ordered: false, body)
    }

    /// The shifts held in memory (all of them, or a source's overlay) that a query selects.
    ///
    /// The closures below read the schedule through `parts`, a few references: a closure that
    /// reads `self` can copy the whole schedule (two dozen reference counts) on every query.
    private func forEachHeldShift(_ query: ShiftQuery, ordered: Bool, _ body: (ScheduledShift) -> Bool) {
        if let limit = query.limit, limit <= 0 { return }
        guard let (first, last) = dateBounds(of: query, within: index.dateRange), first <= last else { return }
        let types = typeFilter(of: query)
        if let types, types.isEmpty { return }
        let parts = QueryParts(shifts: shiftStore, types: shiftTypeStore, zone: zone, query: query)
        var emitted = 0
        var day: [ScheduledShift] = []
        let newestFirst = query.order == .newestFirst

        func flush() -> Bool {
            if ordered, day.count > 1 { day.sort(by: parts.startOrder) }
            if newestFirst { day.reverse() }
            for shift in day {
                guard body(shift) else { return false }
                emitted += 1
                if let limit = query.limit, emitted >= limit { return false }
            }
            day.removeAll(keepingCapacity: true)
            return true
        }

        if let person = query.personID {
            guard !query.unassignedOnly else { return }
            var currentDate: LocalDate?
            func visit(_ ref: ShiftReference) -> Bool {
                if ref.date != currentDate {
                    guard flush() else { return false }
                    currentDate = ref.date
                }
                if let types, !types.contains(ref.type) { return true }
                // Everything the query asks of a person's shift is known from the index entry:
                // the shift itself (a lookup in the biggest map) is read only when it is selected.
                guard parts.admits(ref.id, type: ref.type, date: ref.date) else { return true }
                if let shift = parts.shifts[ref.id] { day.append(shift) }
                return true
            }
            if newestFirst {
                guard let refs = index.shifts(of: person) else { return }
                let range = refs.lowerBound(first)..<refs.lowerBound(last.adding(days: 1))
                for position in range.reversed() { guard visit(refs[position]) else { return } }
            } else {
                var stopped = false
                index.forEachShift(of: person, from: first, to: last) { ref in
                    stopped = !visit(ref)
                    return !stopped
                }
                if stopped { return }
            }
            _ = flush()
            return
        }

        let bucketTypes = types ?? allTypeIDs
        let dates: [LocalDate]
        if first.days(to: last) + 1 > 4 * max(shiftStore.count, 256) {
            // A sparse range (a stray shift in year 5807): only the days that have shifts, so
            // the cost follows the shifts, not the calendar span.
            dates = index.dates(ofTypes: bucketTypes, from: first, to: last).sorted(by: newestFirst ? (>) : (<))
        } else {
            dates = newestFirst ? Array(stride(from: last, through: first, by: -1)) : Array(stride(from: first, through: last, by: 1))
        }
        for date in dates {
            for type in bucketTypes {
                index.forEachShift(ofType: type, on: date) { id in
                    if parts.admits(id, type: type, date: date), let shift = parts.shifts[id], query.admitsPerson(of: shift) {
                        day.append(shift)
                    }
                }
            }
            guard flush() else { return }
        }
    }

    /// What a query's closures read of the schedule.
    private struct QueryParts {
        let shifts: ShiftTable
        let types: TreeDictionary<ShiftTypeID, ShiftType>
        let zone: ZoneRules
        let query: ShiftQuery

        /// Same day: by start time, then id.
        func startOrder(_ a: ScheduledShift, _ b: ScheduledShift) -> Bool {
            let startA = types[a.shiftTypeID]?.duration.minuteRange.start ?? 0
            let startB = types[b.shiftTypeID]?.duration.minuteRange.start ?? 0
            return startA != startB ? startA < startB : a.id < b.id
        }

        /// The positions of `shifts` in query order: by date, start time and id (each reversed
        /// for `newestFirst`). Each shift's start is looked up once, not at every comparison
        /// (a million shifts in one sort would look types up forty million times).
        func startOrder(of shifts: [ScheduledShift], newestFirst: Bool) -> [Int] {
            struct Key {
                var date: Int32
                var start: Int
                var id: ShiftID
                var position: Int
            }
            var keys = shifts.enumerated().map { position, shift in
                Key(date: shift.date.dayNumber, start: types[shift.shiftTypeID]?.duration.minuteRange.start ?? 0, id: shift.id, position: position)
            }
            keys.sort { a, b in
                let (first, second) = newestFirst ? (b, a) : (a, b)
                if first.date != second.date { return first.date < second.date }
                return first.start != second.start ? first.start < second.start : first.id < second.id
            }
            return keys.map(\.position)
        }

        /// Whether a shift of this id, type and date passes the query's exclusion and overlap.
        func admits(_ id: ShiftID, type: ShiftTypeID, date: LocalDate) -> Bool {
            if id == query.excluding { return false }
            if let interval = query.overlapping {
                guard let duration = types[type]?.duration, zone.interval(of: duration, on: date).overlaps(interval) else { return false }
            }
            return true
        }
    }

    /// A query over a source: the source's shifts (less those this schedule hid) merged with the
    /// ones held in memory, in query order. The source is asked for enough to cover the hidden
    /// ones and the whole of the last day it returns, so the day can be put in start-time order.
    private func forEachMergedShift(_ query: ShiftQuery, _ source: any ScheduleSource, _ body: (ScheduledShift) -> Bool) {
        if let limit = query.limit, limit <= 0 { return }
        // The query's own bounds, not the stored shifts' span: asking the source for its earliest
        // and latest date inside a mutation's SERIALIZABLE transaction would make every writer
        // that adds a shift at either end conflict with every other (the two ends of the date
        // index are where they all read and write).
        guard let (first, last) = dateBounds(of: query, within: LocalDate.minimum...LocalDate.maximum), first <= last else { return }
        let types = typeFilter(of: query)
        if let types, types.isEmpty { return }
        if query.unassignedOnly, query.personID != nil { return }
        let newestFirst = query.order == .newestFirst
        var request = ShiftSourceRequest(
            from: first, to: last, shiftTypeIDs: types, personID: query.personID, unassignedOnly: query.unassignedOnly,
            newestFirst: newestFirst,
            // An overlap filter applies after the source's answer (its date range is already narrow).
            limit: query.overlapping == nil ? query.limit.map { $0 + hiddenShifts.count + (query.excluding == nil ? 0 : 1) } : nil)
        var selected = source.shifts(request)
        if let limit = request.limit, selected.count >= limit, let edge = selected.last?.date {
            request.from = edge
            request.to = edge
            request.limit = nil
            selected.removeAll { $0.date == edge }
            selected += source.shifts(request)
        }
        let parts = QueryParts(shifts: shiftStore, types: shiftTypeStore, zone: zone, query: query)
        if !hiddenShifts.isEmpty || query.overlapping != nil || query.excluding != nil {
            let hidden = hiddenShifts
            selected.removeAll { hidden.contains($0.id) || !(query.admitsPerson(of: $0) && parts.admits($0.id, type: $0.shiftTypeID, date: $0.date)) }
        }
        forEachHeldShift(query, ordered: false) { selected.append($0); return true }
        for (position, place) in parts.startOrder(of: selected, newestFirst: newestFirst).enumerated() {
            if let limit = query.limit, position >= limit { return }
            guard body(selected[place]) else { return }
        }
    }

    /// Shifts whose id, as lowercase text, starts with `prefix`, in id order, at most `limit`.
    /// For resolving a short id a user typed.
    public func shifts(idPrefix prefix: String, limit: Int = 50) -> [ScheduledShift] {
        let prefix = prefix.lowercased()
        var found = shiftStore.values.filter { $0.id.description.hasPrefix(prefix) }
        if let source {
            found += source.shifts(idPrefix: prefix, limit: limit + hiddenShifts.count).filter { !hiddenShifts.contains($0.id) }
        }
        return Array(found.sorted { $0.id < $1.id }.prefix(max(0, limit)))
    }

    /// Every shift type id, in id order (the type index is read a type at a time).
    private var allTypeIDs: [ShiftTypeID] { shiftTypeStore.keys.sorted() }

    /// The number of shifts a query selects that have every one of `attributes` (equal values),
    /// counting up to `stopAt` at most (`query.limit` is ignored).
    ///
    /// A fast path for the rules' `schedule:count{…}`: shifts held in memory are counted from
    /// their index entries and attribute boxes, without making a `ScheduledShift` for each (a
    /// test compares it with counting `forEachShiftUnordered`'s shifts). A source's shifts are
    /// counted the plain way.
    public func count(_ query: ShiftQuery, attributes: [(String, AttributeValue)], stopAt: Int? = nil) -> Int {
        var unlimited = query
        unlimited.limit = nil
        var total = 0
        if let stopAt, stopAt <= 0 { return 0 }
        func admitsAttributes(_ have: Attributes) -> Bool {
            for (name, value) in attributes where have[name] != value { return false }
            return true
        }
        if source != nil {
            forEachShiftUnordered(unlimited) { shift in
                if attributes.isEmpty || admitsAttributes(shift.attributes) { total += 1 }
                return stopAt.map { total < $0 } ?? true
            }
            return total
        }
        let table = shiftStore
        forEachHeldEntry(unlimited) { id, entry in
            if attributes.isEmpty || admitsAttributes(table.attributes(of: id, entry)) { total += 1 }
            return stopAt.map { total < $0 } ?? true
        }
        return total
    }

    /// How many people staff a demand entry on a day: the assigned shifts of its type that day
    /// that cover its skill. A shift covers a skill when its `skill` attribute names it, or when
    /// it has no `skill` attribute and its person's `skills` attribute (a list of names, or one
    /// name) holds it; without a skill, every assigned shift of the type counts. (The stock
    /// `meets_demand` and the INRC-II rules count this way; `validate_demand` is given it.)
    public func staffed(_ demand: Demand, on day: LocalDate) -> Int {
        let query = ShiftQuery(from: day, to: day, shiftTypeIDs: [demand.shiftTypeID])
        var total = 0
        func covers(_ person: PersonID, _ attributes: Attributes) -> Bool {
            guard let skill = demand.skill else { return true }
            return self.covers(skill, person: person, ownSkill: attributes["skill"])
        }
        if source != nil {
            forEachShiftUnordered(query) { shift in
                if let person = shift.personID, covers(person, shift.attributes) { total += 1 }
                return true
            }
            return total
        }
        let table = shiftStore
        forEachHeldEntry(query) { id, entry in
            if let person = entry.personID, covers(person, demand.skill == nil ? [:] : table.attributes(of: id, entry)) { total += 1 }
            return true
        }
        return total
    }

    /// `staffed(_:on:)` of each of `demands` on one day, in order, from one pass over the day's
    /// assigned shifts of their types (a day's demand entries, one per shift type and skill,
    /// each walked the day's shifts of its type on its own).
    /// `AttributeCountTests.staffedOfADaysDemandIsEachEntrysCount` compares the two.
    public func staffed(_ demands: [Demand], on day: LocalDate) -> [Int] {
        if demands.count < 2 { return demands.map { staffed($0, on: day) } }
        // The assigned shifts of each type that day: their person and own `skill` (nil: none).
        var skilledTypes: Set<ShiftTypeID> = []
        var types: Set<ShiftTypeID> = []
        for demand in demands {
            types.insert(demand.shiftTypeID)
            if demand.skill != nil { skilledTypes.insert(demand.shiftTypeID) }
        }
        var held: [ShiftTypeID: [(person: PersonID, skill: AttributeValue?)]] = [:]
        let query = ShiftQuery(from: day, to: day, shiftTypeIDs: types)
        if source != nil {
            forEachShiftUnordered(query) { shift in
                if let person = shift.personID { held[shift.shiftTypeID, default: []].append((person, shift.attributes["skill"])) }
                return true
            }
        } else {
            let table = shiftStore
            forEachHeldEntry(query) { id, entry in
                guard let person = entry.personID else { return true }
                let skill = skilledTypes.contains(entry.shiftTypeID) ? table.attributes(of: id, entry)["skill"] : nil
                held[entry.shiftTypeID, default: []].append((person, skill))
                return true
            }
        }
        return demands.map { demand in
            guard let shifts = held[demand.shiftTypeID] else { return 0 }
            guard let skill = demand.skill else { return shifts.count }
            return shifts.reduce(0) { $0 + (covers(skill, person: $1.person, ownSkill: $1.skill) ? 1 : 0) }
        }
    }

    /// Whether a shift covers a skill: its own `skill` attribute names it, or it has none and its
    /// person's `skills` (a list of names, or one name) holds it.
    package func covers(_ skill: String, person: PersonID, ownSkill: AttributeValue?) -> Bool {
        if let ownSkill { return ownSkill == .string(skill) }
        switch personStore[person]?.attributes["skills"] {
        case let .string(name)?: return name == skill
        case let .list(names)?: return names.contains(.string(skill))
        default: return false
        }
    }

    /// The held shifts a query selects as index entries, in no order within a day, until `body`
    /// returns false (`query.limit` is ignored): `forEachHeldShift` without making the shifts.
    private func forEachHeldEntry(_ query: ShiftQuery, _ body: (ShiftID, ShiftTable.Entry) -> Bool) {
        guard let (first, last) = dateBounds(of: query, within: index.dateRange), first <= last else { return }
        let types = typeFilter(of: query)
        if let types, types.isEmpty { return }
        let parts = QueryParts(shifts: shiftStore, types: shiftTypeStore, zone: zone, query: query)
        if let person = query.personID {
            guard !query.unassignedOnly else { return }
            index.forEachShift(of: person, from: first, to: last) { ref in
                if let types, !types.contains(ref.type) { return true }
                guard parts.admits(ref.id, type: ref.type, date: ref.date), let entry = parts.shifts.entry(ref.id) else { return true }
                return body(ref.id, entry)
            }
            return
        }
        let bucketTypes = types ?? allTypeIDs
        let dates: [LocalDate]
        if first.days(to: last) + 1 > 4 * max(shiftStore.count, 256) {
            dates = index.dates(ofTypes: bucketTypes, from: first, to: last).sorted()
        } else {
            dates = Array(stride(from: first, through: last, by: 1))
        }
        var going = true
        for date in dates {
            for type in bucketTypes {
                index.forEachShift(ofType: type, on: date) { id in
                    guard going, parts.admits(id, type: type, date: date), let entry = parts.shifts.entry(id) else { return }
                    if query.unassignedOnly, entry.personID != nil { return }
                    going = body(id, entry)
                }
                if !going { return }
            }
        }
    }

    /// The number of shifts a query selects (ignoring `limit`).
    public func count(_ query: ShiftQuery) -> Int {
        var unlimited = query
        unlimited.limit = nil
        var total = 0
        forEachShift(unlimited) { _ in total += 1; return true }
        return total
    }

    /// The dates a query can touch: its explicit bounds, narrowed by the overlap interval (a shift
    /// dated d runs within [d 00:00, d+2 00:00), plus slack for offset changes).
    private func dateBounds(of query: ShiftQuery, within range: ClosedRange<LocalDate>?) -> (LocalDate, LocalDate)? {
        guard let range else { return nil }
        var first = max(query.from ?? range.lowerBound, range.lowerBound)
        var last = min(query.to ?? range.upperBound, range.upperBound)
        if let interval = query.overlapping {
            let startDay = zone.localDateTime(atUTC: interval.start - 7200).date.adding(days: -1)
            let endDay = zone.localDateTime(atUTC: interval.end + 7200).date
            first = max(first, startDay)
            last = min(last, endDay)
        }
        return (first, last)
    }

    /// The shift types a query allows (nil: any), combining `shiftTypeIDs` and `locationID`.
    private func typeFilter(of query: ShiftQuery) -> [ShiftTypeID]? {
        var allowed: Set<ShiftTypeID>? = query.shiftTypeIDs
        if let location = query.locationID {
            let atLocation = Set(shiftTypeStore.values.lazy.filter { $0.locationID == location }.map(\.id))
            allowed = allowed.map { $0.intersection(atLocation) } ?? atLocation
        }
        return allowed.map { $0.sorted() }
    }
}

extension Schedule {
    /// Whether a person has a shift starting on a date (one search in the person index).
    public func works(_ person: PersonID, on date: LocalDate) -> Bool {
        if index.hasShift(of: person, on: date) { return true }
        guard let source else { return false }
        return source.shiftReferences(of: person, from: date, to: date).contains { !hiddenShifts.contains($0.id) }
    }

    /// A person's shifts dated `from`…`to`, as (date, id, type), by date then id: from memory,
    /// or merged from the source and this schedule's overlay.
    public func shiftReferences(of person: PersonID, from: LocalDate, to: LocalDate) -> [ShiftReference] {
        guard from <= to else { return [] }
        var held: [ShiftReference] = []
        index.forEachShift(of: person, from: from, to: to) { ref in
            held.append(ref)
            return true
        }
        guard let source else { return held }
        var stored = source.shiftReferences(of: person, from: from, to: to)
        if !hiddenShifts.isEmpty { stored.removeAll { hiddenShifts.contains($0.id) } }
        guard !held.isEmpty else { return stored }
        return (stored + held).sorted()
    }

    /// The run of consecutive days a person works that contains `date` (nil if they do not work
    /// on it). A shift counts for the date it starts on. The walk stops after `limit` days each
    /// way, so a caller that only cares about "more than n" pays for n.
    public func workRun(of person: PersonID, containing date: LocalDate, limit: Int = 3650) -> ClosedRange<LocalDate>? {
        guard source != nil else { return heldWorkRun(of: person, containing: date, limit: limit) }
        // Over a source: the worked days a window at a time, widened while the run reaches its edge.
        var window = 14
        while true {
            let lower = date.adding(days: -min(window, limit))
            let upper = date.adding(days: min(window, limit))
            let worked = Set(shiftReferences(of: person, from: lower.adding(days: -1), to: upper.adding(days: 1)).map(\.date))
            guard worked.contains(date) else { return nil }
            var first = date
            var last = date
            while first.days(to: date) < limit, first > lower, worked.contains(first.adding(days: -1)) { first = first.adding(days: -1) }
            while date.days(to: last) < limit, last < upper, worked.contains(last.adding(days: 1)) { last = last.adding(days: 1) }
            let open = (first == lower && worked.contains(first.adding(days: -1))) || (last == upper && worked.contains(last.adding(days: 1)))
            if !open || window >= limit { return first...last }
            window *= 4
        }
    }
}

extension Schedule {
    /// `workRun` in memory: the worked days of a window around `date` in one walk along the
    /// person's index (not a walk down it per day), the window widened while the run reaches
    /// its edge.
    private func heldWorkRun(of person: PersonID, containing date: LocalDate, limit: Int) -> ClosedRange<LocalDate>? {
        let center = Int(date.dayNumber)
        var window = Swift.min(Swift.max(limit, 0), 8)
        var days: [Int] = []
        while true {
            // The worked days from center - window - 1 to center + window + 1, in order.
            days.removeAll(keepingCapacity: true)
            index.forEachShift(of: person, from: date.adding(days: -window - 1), to: date.adding(days: window + 1)) { ref in
                let day = Int(ref.date.dayNumber)
                if days.last != day { days.append(day) }
                return true
            }
            guard let at = days.firstIndex(of: center) else { return nil }
            var first = at
            var last = at
            while first > 0, center - days[first] < limit, days[first - 1] == days[first] - 1 { first -= 1 }
            while last < days.count - 1, days[last] - center < limit, days[last + 1] == days[last] + 1 { last += 1 }
            // A run that reaches a day the window did not cover all around may go on past it.
            let open = days[first] == center - window - 1 || days[last] == center + window + 1
            if !open || window >= limit {
                return date.adding(days: days[first] - center)...date.adding(days: days[last] - center)
            }
            window = Swift.min(limit, window * 4)
        }
    }

    /// The real minutes a person works in shifts starting from `from` to `to` (inclusive):
    /// a walk over their date-sorted index with no lookup per shift, and time-zone arithmetic only
    /// for the shifts within a day or two of a daylight-saving change.
    public func minutesWorked(by person: PersonID, from: LocalDate, to: LocalDate) -> Int {
        guard from <= to else { return 0 }
        // The offset changes of the period (usually none, at most a few): a shift far from all
        // of them lasts its nominal length; only one near a change is placed in the zone.
        let changes = zone.transitions(from: zone.instant(of: from, minutes: -1440), to: zone.instant(of: to, minutes: 2 * 1440))
        var total = 0
        // `add` reads locals: reading `self` there can copy the whole schedule per call.
        let types = shiftTypeStore
        let zone = self.zone
        // The dates come in order, so the changes still ahead are a position in `changes`.
        var ahead = changes.startIndex
        func add(_ date: LocalDate, _ duration: ShiftDuration) {
            // A shift runs within two days of local time from its date's midnight; no offset is
            // a day or more, so its instants lie within (midnight - 2 days, midnight + 3 days].
            let midnight = Int64(date.dayNumber) * 86_400
            while ahead < changes.endIndex, changes[ahead] <= midnight - 2 * 86_400 { ahead += 1 }
            if ahead == changes.endIndex || changes[ahead] > midnight + 3 * 86_400 {
                total += duration.nominalMinutes
            } else {
                total += zone.interval(of: duration, on: date).minutes
            }
        }
        if source != nil {
            var lastType: ShiftTypeID?
            var lastDuration = ShiftDuration.allDay
            for ref in shiftReferences(of: person, from: from, to: to) {
                if ref.type != lastType, let type = types[ref.type] {
                    lastType = ref.type
                    lastDuration = type.duration
                }
                add(ref.date, lastDuration)
            }
        } else {
            // The index's entries as they are: a type number each, whose duration is looked up
            // once per number (a rotation's types take turns week by week).
            var known: (UInt32, ShiftDuration)?, other: (UInt32, ShiftDuration)?, third: (UInt32, ShiftDuration)?
            let index = self.index
            index.forEachEntry(of: person, from: from, to: to) { date, number in
                let duration: ShiftDuration
                if let known, known.0 == number {
                    duration = known.1
                } else if let hit = other, hit.0 == number {
                    duration = hit.1
                    other = known
                    known = hit
                } else if let hit = third, hit.0 == number {
                    duration = hit.1
                    third = other
                    other = known
                    known = hit
                } else {
                    // A type that is gone counts as the last one seen did before (as over a source).
                    duration = types[index.typeID(number: number)]?.duration ?? known?.1 ?? .allDay
                    third = other
                    other = known
                    known = (number, duration)
                }
                add(date, duration)
            }
        }
        return total
    }
}

extension ShiftQuery {
    /// Whether a shift's person passes the query (`personID`, `unassignedOnly`).
    func admitsPerson(of shift: ScheduledShift) -> Bool {
        if unassignedOnly, shift.personID != nil { return false }
        if let personID, shift.personID != personID { return false }
        return true
    }
}
