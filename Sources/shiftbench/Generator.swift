import Foundation
import ShiftCore

/// Synthetic schedules for benchmarks: people on a rotation of early, late and night shifts.
enum Generator {
    static let early = ShiftType(id: ShiftTypeID(id(1)), symbol: "E", title: "Early", duration: ShiftDuration("06:00-14:00")!)
    static let late = ShiftType(id: ShiftTypeID(id(2)), symbol: "L", title: "Late", duration: ShiftDuration("14:00-22:00")!)
    static let night = ShiftType(id: ShiftTypeID(id(3)), symbol: "N", title: "Night", duration: ShiftDuration("22:00-06:00")!)
    static let types = [early, late, night]
    static let firstDay = LocalDate("2026-01-01")!

    static func id(_ n: Int) -> UUID {
        UUID(uuidString: String(format: "B0000000-0000-4000-8000-%012x", n))!
    }

    /// About `shifts` shifts: one per person per day, five days on, two off, over as many days as needed.
    /// The shift type turns each calendar week, mid-run, so a night is followed by an early the
    /// next morning now and then (rest rules report it); `valid` turns it at each person's own
    /// week instead, after two days off, and the stock rules find nothing.
    /// `people` fixes the head count (the days then run as long as needed); without it the
    /// roster is about 1.5 √shifts days long.
    static func schedule(shifts count: Int, people fixedPeople: Int? = nil, zone: String = "Europe/Berlin", valid: Bool = false) throws -> Schedule {
        let days: Int
        let people: Int
        if let fixedPeople {
            people = fixedPeople
            days = Swift.max(7, Int((Double(count) / (Double(people) * 5 / 7)).rounded(.up)) + 7)
        } else {
            days = Swift.max(7, Swift.min(3650, Int(Double(count).squareRoot() * 1.5)))
            people = Swift.max(1, Int((Double(count) / (Double(days) * 5 / 7)).rounded(.up)))
        }
        var personList: [Person] = []
        for p in 0..<people {
            personList.append(Person(id: PersonID(id(1000 + p)), displayName: "Person \(p)", attributes: ["team": .number(Double(p % 4))]))
        }
        var shifts: [ScheduledShift] = []
        shifts.reserveCapacity(count)
        var rng = SplitMix(seed: 42)
        outer: for d in 0..<days {
            for p in 0..<people where (d + p) % 7 < 5 {
                let type = types[((valid ? d + p : d) / 7 + p) % 3]
                shifts.append(ScheduledShift(
                    id: ShiftID(rng.uuid()), shiftTypeID: type.id, date: firstDay.adding(days: d), personID: personList[p].id))
                if shifts.count == count { break outer }
            }
        }
        return try Schedule(settings: StoreSettings(timeZoneIdentifier: zone), shiftTypes: types, people: personList, shifts: shifts)
    }

    /// `shifts` shifts for `people` people where every second shift breaks the 11 h rest: each
    /// person works a late, then an early the next morning (8 h between them), then a day off.
    static func messySchedule(shifts count: Int, people: Int, zone: String = "Europe/Berlin") throws -> Schedule {
        let personList = (0..<people).map { Person(id: PersonID(id(1000 + $0)), displayName: "Person \($0)") }
        var shifts: [ScheduledShift] = []
        shifts.reserveCapacity(count)
        var rng = SplitMix(seed: 43)
        var day = 0
        outer: while true {
            for p in 0..<people {
                // Each person starts the pattern at the first day: late, early, off.
                let type: ShiftType? = switch day % 3 { case 0: late; case 1: early; default: nil }
                guard let type else { continue }
                shifts.append(ScheduledShift(id: ShiftID(rng.uuid()), shiftTypeID: type.id, date: firstDay.adding(days: day), personID: personList[p].id))
                if shifts.count == count { break outer }
            }
            day += 1
        }
        return try Schedule(settings: StoreSettings(timeZoneIdentifier: zone), shiftTypes: types, people: personList, shifts: shifts)
    }
}

/// A small deterministic random source (SplitMix64).
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func uuid() -> UUID {
        let a = next()
        let b = next()
        return withUnsafeBytes(of: (a, b)) { bytes in
            var raw = bytes.load(as: uuid_t.self)
            raw.6 = (raw.6 & 0x0F) | 0x40
            raw.8 = (raw.8 & 0x3F) | 0x80
            return UUID(uuid: raw)
        }
    }
}
