import Foundation
import LuaHost
import ShiftCore

/// Running a rule's `examples`: each builds a small schedule (`given`), makes one change (or
/// validates), and checks what the rule reported against `expect`.
extension EngineState {
    func runExamples(ruleIDs: Set<String>?) -> [RuleExampleResult] {
        var results: [RuleExampleResult] = []
        for index in rules.indices where ruleIDs?.contains(rules[index].id) ?? true {
            guard let examples = rules[index].examples else { continue }
            for (position, item) in examples.array.enumerated() {
                results.append(runExample(ruleIndex: index, item, position: position + 1))
            }
        }
        return results
    }

    private func runExample(ruleIndex: Int, _ item: LuaValue, position: Int) -> RuleExampleResult {
        let rule = rules[ruleIndex]
        let table = item.tableValue ?? LuaTable()
        let name = table["name"].stringValue ?? "example \(position)"
        func result(_ expects: Bool, _ passed: Bool, _ detail: String) -> RuleExampleResult {
            RuleExampleResult(ruleID: rule.id, file: rule.info.file, name: name, expectsViolation: expects, passed: passed, detail: detail)
        }
        do {
            guard item.tableValue != nil else { throw ExampleError("an example is a table") }
            let expectation = try Expectation(table)
            var fixture = try ExampleFixture(table["given"])
            let original = rules[ruleIndex].params
            if case let .table(overrides) = table["params"] {
                var merged = (try runtime.value(of: original)).tableValue ?? LuaTable()
                for (key, value) in overrides.hash { merged.hash[key] = value }
                let ref = try runtime.makeRef(.table(merged))
                try runtime.freeze(ref, name: "params")
                rules[ruleIndex].params = ref
            }
            defer { rules[ruleIndex].params = original }
            api.clockOverride = try table["today"].stringValue.map { text in
                guard let day = LocalDate(text) else { throw ExampleError("today: '\(text)' is not a date") }
                return Date(timeIntervalSince1970: Double(fixture.schedule.zone.instant(of: day, minutes: 12 * 60)))
            }
            defer { api.clockOverride = nil }

            let violations: [Violation]
            if table["validate"].isTruthy {
                violations = try validate(fixture.schedule, only: rule.id)
            } else {
                let mutation = try fixture.mutation(from: table, now: now())
                let (after, changes) = try fixture.schedule.applying(mutation)
                violations = try evaluate(Proposal(
                    mutation: mutation, changes: changes, before: fixture.schedule, after: after,
                    user: UserProfile(userId: "example", displayName: "Example"), timestamp: now()), only: rule.id)
                if let broken = try personPhaseMisses(violations, in: after, rule: rule) {
                    return result(expectation.expectsViolation, false, broken)
                }
            }
            let (passed, detail) = expectation.judge(violations)
            return result(expectation.expectsViolation, passed, detail)
        } catch {
            return result(table["expect"].stringValue.map { $0 != "pass" } ?? false, false, "\(error)")
        }
    }

    private func now() -> Date { api.now() }

    /// The promise big batches rely on (docs/rules.md, "Person phases in big batches"): where the
    /// rule's `check` reports on a person's shift, its `validate_person` reports something for that
    /// person too. Nil when it holds (or the rule has no person phase); else what went wrong.
    private func personPhaseMisses(_ violations: [Violation], in schedule: Schedule, rule: LoadedRule) throws -> String? {
        guard clearingRules(only: rule.id).contains(where: { $0.id == rule.id }) else { return nil }
        var reported: [PersonID: Violation] = [:]
        for violation in violations where violation.ruleID == rule.id {
            guard let id = violation.shiftID, let person = schedule.shift(id)?.personID else { continue }
            if reported[person] == nil { reported[person] = violation }
        }
        guard !reported.isEmpty else { return nil }
        let people = schedule.people.map(\.id).filter { reported[$0] != nil }
        let groups = Self.personGroups(people.map { ($0, schedule.shiftCount(of: $0)) })
        let cleared = try clearance(schedule, only: rule.id, groups: groups[...]).cleared[rule.id] ?? []
        guard let person = people.first(where: cleared.contains), let missed = reported[person] else { return nil }
        let name = schedule.person(person)?.displayName ?? person.description
        return "check reports \"\(missed.message)\" but validate_person reports nothing for \(name): a big batch adding "
            + "\(name)'s shifts would skip this check (docs/rules.md, \"Person phases in big batches\")"
    }
}

struct ExampleError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// `expect = "pass" | "error" | "warning" | "penalty"`, with optional `count` and `message`.
private struct Expectation {
    let severity: Violation.Severity?
    let count: Int?
    let message: String?
    let penalty: Double?
    var expectsViolation: Bool { severity != nil }

    init(_ table: LuaTable) throws {
        guard let text = table["expect"].stringValue else {
            throw ExampleError("expect is required: \"pass\", \"error\", \"warning\" or \"penalty\"")
        }
        if text == "pass" {
            severity = nil
        } else {
            guard let level = Violation.Severity(rawValue: text) else {
                throw ExampleError("expect: '\(text)' is not pass, error, warning or penalty")
            }
            severity = level
        }
        count = table["count"].integerValue.map(Int.init)
        message = table["message"].stringValue
        penalty = table["penalty"].numberValue
    }

    func judge(_ violations: [Violation]) -> (Bool, String) {
        let found = violations.map { "\($0.severity.rawValue): \($0.message)" + ($0.penalty.map { " (penalty \($0))" } ?? "") }
        let summary = found.isEmpty ? "no violations" : found.joined(separator: "; ")
        guard let severity else {
            return (violations.isEmpty, violations.isEmpty ? "passed with no violations" : "expected no violations, got \(summary)")
        }
        let matching = violations.filter { $0.severity == severity }
        if matching.isEmpty { return (false, "expected \(severity.rawValue), got \(summary)") }
        if let count, matching.count != count { return (false, "expected \(count) \(severity.rawValue)(s), got \(matching.count): \(summary)") }
        if let message, !matching.contains(where: { $0.message.contains(message) }) {
            return (false, "expected a message containing '\(message)', got \(summary)")
        }
        if let penalty {
            let total = matching.reduce(0) { $0 + ($1.penalty ?? 1) }
            if abs(total - penalty) > 1e-9 { return (false, "expected penalty \(penalty), got \(total): \(summary)") }
        }
        return (true, summary)
    }
}

/// The small schedule an example describes:
///
/// ```lua
/// given = {
///   zone = "Europe/Berlin", week_start = "monday",
///   settings = { ["horizon.first"] = "2026-03-02" },   -- the store's extra settings
///   locations = { "Ward 3" },
///   types = { D = "07:00-19:00", N = { time = "19:00-07:00", location = "Ward 3" } },
///   people = { "Bob", { name = "Carol", attributes = { max_hours = 30 } } },
///   shifts = { { "D", "2026-03-02", "Bob" }, { type = "N", date = "2026-03-03" } },
///   demand = { { type = "D", date = "2026-03-02", min = 2, optimal = 3 } },
///   availability = { { person = "Bob", from = "2026-03-02", kind = "unavailable" } },
/// }
/// ```
struct ExampleFixture {
    private(set) var schedule: Schedule
    private var locations: [String: LocationID] = [:]
    private var types: [String: ShiftTypeID] = [:]
    private var people: [String: PersonID] = [:]
    private var shiftIDs: [ShiftID] = []
    private var requestIDs: [RequestID] = []
    private var counter = 0

    init(_ given: LuaValue) throws {
        let table = given.tableValue ?? LuaTable()
        var settings = StoreSettings(timeZoneIdentifier: table["zone"].stringValue ?? "UTC")
        if let text = table["week_start"].stringValue {
            guard let day = Weekday(name: text) else { throw ExampleError("given.week_start: '\(text)' is not a weekday") }
            settings.weekStart = day
        }
        settings.extra = try Self.attributes(table["settings"])
        schedule = try Schedule(settings: settings)
        var mutations: [Mutation] = []
        for item in Self.list(table["locations"]) {
            let name = item.stringValue ?? item["name"].stringValue ?? ""
            let id = LocationID(nextID())
            locations[name] = id
            mutations.append(.addLocation(Location(id: id, name: name, attributes: try Self.attributes(item["attributes"]))))
        }
        let typeEntries = (table["types"].tableValue?.hash ?? [:]).sorted { ($0.key.stringValue ?? "") < ($1.key.stringValue ?? "") }
        for (key, spec) in typeEntries {
            guard let symbol = key.stringValue else { throw ExampleError("given.types: keys are shift type symbols") }
            let time = spec.stringValue ?? spec["time"].stringValue ?? ""
            guard let duration = ShiftDuration(time) else { throw ExampleError("given.types.\(symbol): '\(time)' is not a duration") }
            let id = ShiftTypeID(nextID())
            types[symbol] = id
            var locationID: LocationID?
            if let name = spec["location"].stringValue {
                guard let location = locations[name] else { throw ExampleError("given.types.\(symbol): no location '\(name)'") }
                locationID = location
            }
            mutations.append(.addShiftType(ShiftType(
                id: id, symbol: symbol, title: spec["title"].stringValue ?? symbol, duration: duration, locationID: locationID,
                attributes: try Self.attributes(spec["attributes"]))))
        }
        for item in Self.list(table["people"]) {
            let name = item.stringValue ?? item["name"].stringValue ?? ""
            let id = PersonID(nextID())
            people[name] = id
            mutations.append(.addPerson(Person(id: id, displayName: name, attributes: try Self.attributes(item["attributes"]))))
        }
        for item in Self.list(table["shifts"]) {
            let shift = try makeShift(item, "given.shifts")
            shiftIDs.append(shift.id)
            mutations.append(.scheduleShift(shift))
        }
        for item in Self.list(table["demand"]) {
            let day: DemandDay
            if let text = item["date"].stringValue {
                guard let date = LocalDate(text) else { throw ExampleError("given.demand: '\(text)' is not a date") }
                day = .date(date)
            } else if let text = item["weekday"].stringValue, let weekday = Weekday(name: text) {
                day = .weekday(weekday)
            } else {
                throw ExampleError("given.demand: each entry needs a date or a weekday")
            }
            let minimum = Int(item["min"].integerValue ?? 0)
            mutations.append(.addDemand(Demand(
                id: DemandID(nextID()), day: day, shiftTypeID: try type(item["type"], "given.demand"), skill: item["skill"].stringValue,
                minimum: minimum, optimal: Int(item["optimal"].integerValue ?? Int64(minimum)))))
        }
        for item in Self.list(table["availability"]) {
            let from = try Self.date(item["from"], "given.availability.from")
            let to = item["to"].isNil ? from : try Self.date(item["to"], "given.availability.to")
            guard let kind = AvailabilityKind(rawValue: item["kind"].stringValue ?? "") else {
                throw ExampleError("given.availability: kind is unavailable, undesired or desired")
            }
            mutations.append(.addAvailability(Availability(
                id: AvailabilityID(nextID()), personID: try person(item["person"], "given.availability"), from: from, to: to,
                shiftTypeID: item["type"].isNil ? nil : try type(item["type"], "given.availability"), kind: kind,
                weight: item["weight"].numberValue)))
        }
        schedule = try schedule.applying(.batch(mutations)).schedule
        var requests: [Mutation] = []
        for item in Self.list(table["requests"]) {
            var made = try request(item, "given.requests", at: Date(timeIntervalSince1970: 0))
            if !item["made"].isNil {
                let day = try Self.date(item["made"], "given.requests.made")
                made.history[0].timestamp = Date(timeIntervalSince1970: Double(schedule.zone.instant(of: day, minutes: 12 * 60)))
            }
            requests.append(.addRequest(made))
            if let text = item["state"].stringValue, text != "pending" {
                guard let state = RequestState(rawValue: text) else { throw ExampleError("given.requests.state: '\(text)' is not a request state") }
                if state == .approved, made.needsAcceptance { made = made.moved(Self.step(.accepted, made.history[0].timestamp)) }
                requests.append(.updateRequest(made.moved(Self.step(state, made.history[0].timestamp))))
            }
        }
        if !requests.isEmpty { schedule = try schedule.applying(.batch(requests)).schedule }
    }

    private static func step(_ state: RequestState, _ at: Date) -> RequestTransition {
        RequestTransition(state: state, timestamp: at, userId: "example", userDisplayName: "Example")
    }

    /// `{ kind = "swap", person = "Bob", shift = 1, with = "Carol", ["for"] = 2 }`,
    /// `{ kind = "time_off", person = "Bob", from = d, to = d, type = "N", reason = "…" }`: a new
    /// request, pending, made at `at`.
    private mutating func request(_ value: LuaValue, _ what: String, at: Date) throws -> Request {
        guard case .table = value else { throw ExampleError("\(what): a request is { kind = …, person = … }") }
        guard let kind = RequestKind(rawValue: value["kind"].stringValue ?? "") else {
            throw ExampleError("\(what).kind: swap, offer, claim or time_off")
        }
        let seen: (LuaValue) throws -> SeenShift? = { [self] index in
            guard let number = index.integerValue else { return nil }
            let id = try shift(number, what)
            guard let shift = schedule.shift(id) else { throw ExampleError("\(what): shift \(number) is gone") }
            return SeenShift(shift)
        }
        let id = RequestID(nextID())
        requestIDs.append(id)
        return Request(
            id: id, kind: kind, requesterID: try person(value["person"], what), shift: try seen(value["shift"]),
            colleagueID: value["with"].isNil ? nil : try person(value["with"], what), colleagueShift: try seen(value["for"]),
            from: value["from"].isNil ? nil : try Self.date(value["from"], "\(what).from"),
            to: value["to"].isNil ? (value["from"].isNil ? nil : try Self.date(value["from"], "\(what).from")) : try Self.date(value["to"], "\(what).to"),
            shiftTypeID: value["type"].isNil ? nil : try type(value["type"], what),
            history: [RequestTransition(state: .pending, timestamp: at, userId: "example", userDisplayName: "Example", reason: value["reason"].stringValue)])
    }

    /// The change an example makes: exactly one of `add`, `remove`, `switch`, `reassign`,
    /// `remove_location`, `remove_type`, `remove_person`.
    mutating func mutation(from table: LuaTable, now: Date) throws -> Mutation {
        if !table["request"].isNil { return .addRequest(try request(table["request"], "request", at: now)) }
        if case let .table(spec) = table["move_request"] {
            let index = Int(spec[1].integerValue ?? 0)
            guard index >= 1, index <= requestIDs.count, let request = schedule.request(requestIDs[index - 1]) else {
                throw ExampleError("move_request: request \(index) is not in given.requests (1…\(requestIDs.count))")
            }
            guard let state = RequestState(rawValue: spec[2].stringValue ?? "") else {
                throw ExampleError("move_request: { n, state } with a state such as \"approved\"")
            }
            return .updateRequest(request.moved(RequestTransition(
                state: state, timestamp: now, userId: "example", userDisplayName: "Example", reason: spec[3].stringValue)))
        }
        if case let .table(add) = table["add"] {
            if add.array.first?.tableValue != nil {
                return .batch(try add.array.map { .scheduleShift(try makeShift($0, "add")) })
            }
            return .scheduleShift(try makeShift(.table(add), "add"))
        }
        if let index = table["remove"].integerValue { return .unscheduleShift(try shift(index, "remove")) }
        if case let .table(spec) = table["switch"] {
            return .switchShift(try shift(spec[1].integerValue ?? 0, "switch"), to: try type(spec[2], "switch"), reason: spec[3].stringValue)
        }
        if case let .table(spec) = table["reassign"] {
            let to: PersonID? = spec[2].boolValue == false ? nil : try person(spec[2], "reassign")
            return .reassignShift(try shift(spec[1].integerValue ?? 0, "reassign"), to: to)
        }
        if let name = table["remove_location"].stringValue {
            guard let id = locations[name] else { throw ExampleError("remove_location: no location '\(name)'") }
            return .removeLocation(id)
        }
        if !table["remove_type"].isNil { return .removeShiftType(try type(table["remove_type"], "remove_type")) }
        if !table["remove_person"].isNil { return .removePerson(try person(table["remove_person"], "remove_person")) }
        throw ExampleError("an example needs a change (add, remove, switch, reassign, remove_location, remove_type, remove_person, request, move_request) or validate = true")
    }

    private mutating func nextID() -> UUID {
        counter += 1
        return UUID(uuidString: String(format: "E0000000-0000-4000-8000-%012x", counter))!
    }

    /// `{ "D", "2026-03-02", "Bob" }` or `{ type = "D", date = "2026-03-02", person = "Bob", attributes = {…} }`.
    private mutating func makeShift(_ value: LuaValue, _ what: String) throws -> ScheduledShift {
        guard case let .table(spec) = value else { throw ExampleError("\(what): a shift is { type, date, person }") }
        let typeValue = spec["type"].isNil ? spec[1] : spec["type"]
        let dateValue = spec["date"].isNil ? spec[2] : spec["date"]
        let personValue = spec["person"].isNil ? spec[3] : spec["person"]
        return ScheduledShift(
            id: ShiftID(nextID()), shiftTypeID: try type(typeValue, what), date: try Self.date(dateValue, "\(what).date"),
            personID: personValue.isNil ? nil : try person(personValue, what), notes: spec["notes"].stringValue,
            attributes: try Self.attributes(spec["attributes"]))
    }

    private func type(_ value: LuaValue, _ what: String) throws -> ShiftTypeID {
        guard let symbol = value.stringValue, let id = types[symbol] else {
            throw ExampleError("\(what): no shift type '\(value.stringValue ?? value.typeName)' in given.types")
        }
        return id
    }

    private func person(_ value: LuaValue, _ what: String) throws -> PersonID {
        guard let name = value.stringValue, let id = people[name] else {
            throw ExampleError("\(what): no person '\(value.stringValue ?? value.typeName)' in given.people")
        }
        return id
    }

    private func shift(_ index: Int64, _ what: String) throws -> ShiftID {
        guard index >= 1, Int(index) <= shiftIDs.count else {
            throw ExampleError("\(what): shift \(index) is not in given.shifts (1…\(shiftIDs.count))")
        }
        return shiftIDs[Int(index) - 1]
    }

    private static func date(_ value: LuaValue, _ what: String) throws -> LocalDate {
        guard let text = value.stringValue, let date = LocalDate(text) else {
            throw ExampleError("\(what): '\(value.stringValue ?? value.typeName)' is not a date (YYYY-MM-DD)")
        }
        return date
    }

    private static func list(_ value: LuaValue) -> [LuaValue] { value.tableValue?.array ?? [] }

    private static func attributes(_ value: LuaValue) throws -> Attributes {
        guard case let .table(table) = value else { return [:] }
        var result: Attributes = [:]
        for (key, item) in table.hash {
            guard let name = key.stringValue, let attribute = RuleSpec.attributeValue(item) else {
                throw ExampleError("attributes: '\(key.stringValue ?? "?")' must be a string, number, bool or list")
            }
            result[name] = attribute
        }
        return result
    }
}
