import Foundation
import ShiftCore

/// What `shiftctl solve` may change, read from a schedule: the window's open shifts, the shifts
/// its demand asks for (and, with `overstaff`, a few more), and (when re-planning) its assigned
/// shifts. Each is a *slot* the search gives a person or leaves empty; everything else in the
/// schedule stays as it is.
public struct SolveProblem: Sendable {
    /// One shift the search decides the person of.
    public struct Slot: Sendable {
        public enum Origin: Sendable, Equatable {
            /// An open shift of the schedule: it stays, with a person or without.
            case open
            /// An assigned shift that `--replan` may give to someone else, or to nobody: then it
            /// stays as an open shift, and counts as one.
            case assigned
            /// A shift that demand asks for: made when it gets a person, not made otherwise.
            case demand(DemandID)

            /// Whether the slot is one a demand asks for (a shift made only if it gets a person).
            public var isDemand: Bool {
                if case .demand = self { return true }
                return false
            }
        }

        /// The shift as it is (open, assigned) or would be (demand) without a person.
        public let shift: ScheduledShift
        public let origin: Origin
        /// Its person before the solve.
        public let initial: PersonID?
        /// The skill the demand asks for, if any (also the new shift's `skill` attribute).
        public let skill: String?
        /// One of the `overstaff` slots a demand entry gets beyond its optimal number. Slots of a
        /// day's type and skill are alike: how many of them are held, not which, says whether
        /// the roster staffs beyond the optimal.
        public var beyondOptimal = false

        public var date: LocalDate { shift.date }
    }

    /// The schedule the search starts from (with the planning period recorded when needed).
    public let schedule: Schedule
    /// The settings change the plan makes (the planning period extended over the window), if any.
    public let settingsChange: StoreSettings?
    public let window: ClosedRange<LocalDate>
    public let slots: [Slot]
    /// Everyone who may be given a slot, by name.
    public let people: [PersonID]
    /// The window's days, first to last.
    public let days: [LocalDate]

    /// The problem of `schedule` over `window`. The store's planning period (`horizon.first`/
    /// `horizon.last`) is extended over the window when it does not cover it, and set when the
    /// store has none: without it the period is the span of the shifts, which a move that adds
    /// or removes a shift at either end would change for every rule that reads it (day phases,
    /// and person phases such as `desired_days`), and a move is scored only where it touched.
    /// Recorded, the period is the same during the search and for `validate` afterwards.
    /// - Parameters:
    ///   - replan: assigned shifts of the window become slots too (their person may change).
    ///   - seed: the new shifts' ids come from it (and the window), so a seed gives the same plan.
    ///   - overstaff: each demand entry makes this many slots beyond its optimal number (or its
    ///     minimum if higher), for when the rules gain by more people than the demand wants, as
    ///     INRC-II's nurses whose contracts ask for more shifts than the wards need.
    public init(schedule original: Schedule, window: ClosedRange<LocalDate>, replan: Bool, seed: UInt64, overstaff: Int = 0) throws {
        precondition(overstaff >= 0, "overstaff must be 0 or more")
        var schedule = original
        var settingsChange: StoreSettings?
        let recorded = try original.settingsHorizon()
        let period = recorded ?? original.shiftDateRange
        let first = min(period?.lowerBound ?? window.lowerBound, window.lowerBound)
        let last = max(period?.upperBound ?? window.upperBound, window.upperBound)
        if recorded != first...last {
            var settings = original.settings
            settings.extra[Schedule.horizonFirstKey] = .string(first.description)
            settings.extra[Schedule.horizonLastKey] = .string(last.description)
            schedule = try schedule.applying(.updateSettings(settings)).schedule
            settingsChange = settings
        }
        self.schedule = schedule
        self.settingsChange = settingsChange
        self.window = window
        people = schedule.people.map(\.id)
        var days: [LocalDate] = []
        var day = window.lowerBound
        while day <= window.upperBound {
            days.append(day)
            day = day.adding(days: 1)
        }
        self.days = days

        var slots: [Slot] = []
        var ids = ShiftIDSource(seed: seed, window: window, taken: schedule)
        for day in days {
            let existing = schedule.shifts(.on(day))
            // How many shifts already stand for each (type, skill) of the day: pinned assigned
            // shifts and the day's own slots.
            var standing: [SlotKey: Int] = [:]
            for shift in existing {
                let slot: Slot?
                if shift.personID == nil {
                    slot = Slot(shift: shift, origin: .open, initial: nil, skill: shift.attributes["skill"]?.stringValue)
                } else if replan {
                    slot = Slot(shift: shift, origin: .assigned, initial: shift.personID, skill: shift.attributes["skill"]?.stringValue)
                } else {
                    slot = nil
                }
                if let slot { slots.append(slot) }
                standing[SlotKey(type: shift.shiftTypeID, skill: shift.attributes["skill"]?.stringValue), default: 0] += 1
                if shift.attributes["skill"] != nil {
                    standing[SlotKey(type: shift.shiftTypeID, skill: nil), default: 0] += 1
                }
            }
            // Demand: per (type, skill), the most that any entry of the day asks for (and the
            // overstaffing allowed beyond it).
            var wanted: [SlotKey: (count: Int, demand: DemandID)] = [:]
            var order: [SlotKey] = []
            for item in schedule.demand(on: day) {
                let key = SlotKey(type: item.shiftTypeID, skill: item.skill)
                let count = max(item.minimum, item.optimal) + overstaff
                if wanted[key] == nil { order.append(key) }
                if count > wanted[key]?.count ?? -1 { wanted[key] = (count, item.id) }
            }
            for key in order {
                let (count, demand) = wanted[key]!
                let missing = count - (standing[key] ?? 0)
                guard missing > 0 else { continue }
                let attributes: Attributes = key.skill.map { ["skill": .string($0)] } ?? [:]
                for number in 0..<missing {
                    let shift = ScheduledShift(id: ids.next(), shiftTypeID: key.type, date: day, attributes: attributes)
                    slots.append(Slot(shift: shift, origin: .demand(demand), initial: nil, skill: key.skill,
                                      beyondOptimal: number >= missing - overstaff))
                }
            }
        }
        self.slots = slots
    }

    /// How many held demand slots staff beyond their entries' optimal when slot `i` is held by
    /// `assignment[i]` (nil: nobody): per day, type and skill, the held slots past those within.
    public func staffedBeyondOptimal(_ assignment: [PersonID?]) -> Int {
        var groups: [SlotKey: (held: Int, within: Int)] = [:]
        for (slot, person) in zip(slots, assignment) where slot.origin.isDemand {
            let key = SlotKey(type: slot.shift.shiftTypeID, skill: slot.skill, date: slot.date)
            groups[key, default: (0, 0)].held += person == nil ? 0 : 1
            groups[key, default: (0, 0)].within += slot.beyondOptimal ? 0 : 1
        }
        return groups.values.reduce(0) { $0 + max(0, $1.held - $1.within) }
    }

    struct SlotKey: Hashable {
        let type: ShiftTypeID
        let skill: String?
        var date: LocalDate? = nil
    }
}

/// New shift ids from a seed, the window and a counter, never one the schedule has.
private struct ShiftIDSource {
    var generator: SeededGenerator
    let taken: Schedule

    init(seed: UInt64, window: ClosedRange<LocalDate>, taken: Schedule) {
        let mixed = seed &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(bitPattern: Int64(window.lowerBound.dayNumber)) << 20
            ^ UInt64(bitPattern: Int64(window.upperBound.dayNumber))
        generator = SeededGenerator(seed: mixed)
        self.taken = taken
    }

    mutating func next() -> ShiftID {
        while true {
            var bytes = (0..<16).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            bytes[6] = (bytes[6] & 0x0F) | 0x40  // version 4
            bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 4122 variant
            let uuid = UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                                   bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
            let id = ShiftID(uuid)
            if taken.shift(id) == nil { return id }
        }
    }
}
