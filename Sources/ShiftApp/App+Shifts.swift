import Foundation
import ShiftCore

// schedule add|list|remove|assign|unassign, switch; demand and availability.

extension App {
    // MARK: Scheduled shifts

    public func scheduleShift(type: String, date: String, person: String?, notes: String?) async throws -> CommandResult {
        let schedule = try load()
        let resolver = ReferenceResolver(schedule)
        let shiftType = try resolver.shiftType(type, option: "--type")
        let day = try self.date(date, option: "--date", in: schedule)
        let personID = try person.map { try resolver.person($0, option: "--person").id }
        let shift = ScheduledShift(id: ShiftID(UUID.random()), shiftTypeID: shiftType.id, date: day, personID: personID, notes: notes)
        let label = "\(shiftType.symbol) on \(day)" + (person == nil ? " (open)" : " for \(schedule.person(personID!)!.displayName)")
        return try await commit(.scheduleShift(shift), action: "scheduled", kind: "shift", id: shift.id.description, label: label) { schedule in
            schedule.shift(shift.id).map { ShiftOutput($0, in: schedule) }
        }
    }

    public func listShifts(from: String?, to: String?, person: String?, type: String?, limit: Int?) throws -> CommandResult {
        let schedule = try load()
        let resolver = ReferenceResolver(schedule)
        var query = ShiftQuery(from: try optionalDate(from, option: "--from", in: schedule), to: try optionalDate(to, option: "--to", in: schedule))
        try InputParsing.range(from: query.from, to: query.to)
        query.personID = try person.map { try resolver.person($0, option: "--person").id }
        if let type { query.shiftTypeIDs = [try resolver.shiftType(type, option: "--type").id] }
        query.limit = try limit.map { try InputParsing.count($0, option: "--limit") }
        let items = schedule.shifts(query).map { ShiftOutput($0, in: schedule) }
        var table = TextTable("DATE", "TYPE", "TIME", "PERSON", "LOCATION", "ID", "NOTES")
        for item in items {
            table.add(item.date, item.type, item.time, item.person ?? "(open)", item.location ?? "", shortID(item.id), item.notes ?? "")
        }
        return CommandResult(text: items.isEmpty ? "no shifts\n" : table.rendered, json: ListOutput(key: "shifts", items: items))
    }

    public func unscheduleShift(_ reference: String, reason: String?) async throws -> CommandResult {
        let schedule = try load()
        let shift = try ReferenceResolver(schedule).shift(reference)
        return try await commit(.unscheduleShift(shift.id, reason: reason), action: "removed", kind: "shift", id: shift.id.description,
                                label: ReferenceResolver(schedule).describe(shift)) { _ in ShiftOutput?.none }
    }

    /// Changes a shift's type; the change log keeps the old and new snapshot and the reason.
    public func switchShift(_ reference: String, to type: String, reason: String?) async throws -> CommandResult {
        let schedule = try load()
        let resolver = ReferenceResolver(schedule)
        let shift = try resolver.shift(reference)
        let newType = try resolver.shiftType(type, option: "--to")
        let oldSymbol = schedule.shiftType(shift.shiftTypeID)?.symbol ?? "?"
        guard newType.id != shift.shiftTypeID else {
            throw AppError.invalidValue(option: "--to", message: "the shift is already \(newType.symbol); name another shift type")
        }
        var switched = shift
        switched.shiftTypeID = newType.id
        return try await commit(.switchShift(shift.id, to: newType.id, reason: reason), action: "switched", kind: "shift", id: shift.id.description,
                                label: "on \(shift.date) from \(oldSymbol) to \(newType.symbol)") { schedule in
            schedule.shift(shift.id).map { ShiftOutput($0, in: schedule) }
        }
    }

    /// Gives a shift to a person (`schedule assign`), or to nobody (`schedule unassign`, `person`
    /// nil). The rules check it; the change log keeps the shift before and after and the reason.
    /// `switch` changes the type; this changes who works it.
    public func assignShift(_ reference: String, to person: String?, reason: String?) async throws -> CommandResult {
        let schedule = try load()
        let resolver = ReferenceResolver(schedule)
        let shift = try resolver.shift(reference)
        let who = try person.map { try resolver.person($0, option: "--to") }
        let current = shift.personID.flatMap { schedule.person($0)?.displayName }
        switch (who, current) {
        case let (who?, _) where who.id == shift.personID:
            throw AppError.invalidValue(option: "--to", message: "\(who.displayName) already works this shift; name someone else")
        case (nil, nil):
            throw AppError.invalidValue(option: "SHIFT", message: "\(resolver.describe(shift)) is already open (nobody works it)")
        default: break
        }
        let symbol = schedule.shiftType(shift.shiftTypeID)?.symbol ?? "?"
        let label = "\(symbol) on \(shift.date) " + (who.map { "to \($0.displayName)" + (current.map { ", was \($0)" } ?? "") } ?? "from \(current ?? "?")")
        return try await commit(.reassignShift(shift.id, to: who?.id, reason: reason), action: who == nil ? "unassigned" : "assigned",
                                kind: "shift", id: shift.id.description, label: label) { schedule in
            schedule.shift(shift.id).map { ShiftOutput($0, in: schedule) }
        }
    }

    // MARK: Demand

    public func addDemand(type: String, date: String?, weekday: String?, minimum: Int, optimal: Int?, skill: String?) async throws -> CommandResult {
        let schedule = try load()
        let shiftType = try ReferenceResolver(schedule).shiftType(type, option: "--type")
        let day: DemandDay
        switch (date, weekday) {
        case let (date?, nil): day = .date(try self.date(date, option: "--date", in: schedule))
        case let (nil, weekday?): day = .weekday(try InputParsing.weekday(weekday, option: "--weekday"))
        case (nil, nil): throw AppError.invalidValue(option: "--date", message: "demand needs --date YYYY-MM-DD or --weekday DAY")
        case (_?, _?): throw AppError.invalidValue(option: "--date", message: "give either --date or --weekday, not both")
        }
        let minimum = try InputParsing.count(minimum, option: "--min", allowZero: true)
        let optimal = optimal ?? minimum
        guard optimal >= minimum else {
            throw AppError.invalidValue(option: "--optimal", message: "\(optimal) is below --min \(minimum)")
        }
        let demand = Demand(id: DemandID(UUID.random()), day: day, shiftTypeID: shiftType.id, skill: skill, minimum: minimum, optimal: optimal)
        return try await commit(.addDemand(demand), action: "added", kind: "demand", id: demand.id.description,
                                label: "\(shiftType.symbol) on \(day): \(minimum)–\(optimal)" + (skill.map { " \($0)" } ?? "")) { schedule in
            schedule.demand(demand.id).map { DemandOutput($0, in: schedule) }
        }
    }

    public func listDemand(type: String?) throws -> CommandResult {
        let schedule = try load()
        let typeID = try type.map { try ReferenceResolver(schedule).shiftType($0, option: "--type").id }
        let items = schedule.demand.filter { typeID == nil || $0.shiftTypeID == typeID }.map { DemandOutput($0, in: schedule) }
        var table = TextTable("DAY", "TYPE", "SKILL", "MIN", "OPTIMAL", "ID")
        for item in items {
            table.add(item.date ?? item.weekday ?? "", item.type, item.skill ?? "", String(item.minimum), String(item.optimal), shortID(item.id))
        }
        return CommandResult(text: items.isEmpty ? "no demand\n" : table.rendered, json: ListOutput(key: "demand", items: items))
    }

    public func removeDemand(_ reference: String) async throws -> CommandResult {
        let demand = try ReferenceResolver(try load()).demand(reference)
        return try await commit(.removeDemand(demand.id), action: "removed", kind: "demand", id: demand.id.description, label: "on \(demand.day)") { _ in
            DemandOutput?.none
        }
    }

    // MARK: Availability

    public func addAvailability(person: String, from: String, to: String?, type: String?, kind: AvailabilityKind, weight: Double?) async throws -> CommandResult {
        let schedule = try load()
        let resolver = ReferenceResolver(schedule)
        let who = try resolver.person(person, option: "--person")
        let start = try date(from, option: "--from", in: schedule)
        let end = try optionalDate(to, option: "--to", in: schedule) ?? start
        try InputParsing.range(from: start, to: end)
        let typeID = try type.map { try resolver.shiftType($0, option: "--type").id }
        if let weight, !(weight.isFinite && weight >= 0) {
            throw AppError.invalidValue(option: "--weight", message: "\(weight) must be a number of 0 or more")
        }
        let item = Availability(id: AvailabilityID(UUID.random()), personID: who.id, from: start, to: end, shiftTypeID: typeID, kind: kind, weight: weight)
        let span = start == end ? "on \(start)" : "from \(start) to \(end)"
        return try await commit(.addAvailability(item), action: "added", kind: "availability", id: item.id.description,
                                label: "\(who.displayName) \(kind.rawValue) \(span)") { schedule in
            schedule.availability(item.id).map { AvailabilityOutput($0, in: schedule) }
        }
    }

    public func listAvailability(person: String?, from: String?, to: String?) throws -> CommandResult {
        let schedule = try load()
        let personID = try person.map { try ReferenceResolver(schedule).person($0, option: "--person").id }
        let start = try optionalDate(from, option: "--from", in: schedule)
        let end = try optionalDate(to, option: "--to", in: schedule)
        let items = schedule.availability.filter { item in
            (personID == nil || item.personID == personID) && (start.map { item.to >= $0 } ?? true) && (end.map { item.from <= $0 } ?? true)
        }.map { AvailabilityOutput($0, in: schedule) }
        var table = TextTable("PERSON", "FROM", "TO", "KIND", "TYPE", "WEIGHT", "ID")
        for item in items {
            table.add(item.person, item.from, item.to, item.kind, item.type ?? "any", item.weight.map { ViolationReport.number($0) } ?? "", shortID(item.id))
        }
        return CommandResult(text: items.isEmpty ? "no availability entries\n" : table.rendered, json: ListOutput(key: "availability", items: items))
    }

    public func removeAvailability(_ reference: String) async throws -> CommandResult {
        let schedule = try load()
        let item = try ReferenceResolver(schedule).availability(reference)
        return try await commit(.removeAvailability(item.id), action: "removed", kind: "availability", id: item.id.description,
                                label: "of \(schedule.person(item.personID)?.displayName ?? "?") from \(item.from)") { _ in AvailabilityOutput?.none }
    }
}
