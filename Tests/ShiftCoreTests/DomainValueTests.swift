import Foundation
import TestSupport
import Testing
@testable import ShiftCore

@Suite struct LocalDateTests {
    @Test func parsesRealDatesAndRejectsImpossibleOnes() {
        #expect(LocalDate("2026-03-29")!.components == (2026, 3, 29))
        #expect(LocalDate("2024-02-29") != nil)
        #expect(LocalDate("2026-02-29") == nil)
        #expect(LocalDate("2026-02-30") == nil)
        #expect(LocalDate("2026-13-01") == nil)
        #expect(LocalDate("2026-00-10") == nil)
        #expect(LocalDate("1900-02-29") == nil)
        #expect(LocalDate("2000-02-29") != nil)
        #expect(LocalDate("2026-3-29") == nil)
        #expect(LocalDate("26-03-29") == nil)
        #expect(LocalDate("2026-03-29T00:00") == nil)
        #expect(LocalDate("") == nil)
    }

    @Test func dayNumbersRoundTripOverFourCenturies() {
        var current = LocalDate(year: 1800, month: 1, day: 1)!
        let end = LocalDate(year: 2200, month: 12, day: 31)!
        while current <= end {
            let (y, m, d) = current.components
            #expect(LocalDate(year: y, month: m, day: d) == current)
            current = current.adding(days: 1)
        }
        #expect(LocalDate("1970-01-01")!.dayNumber == 0)
    }

    @Test func weekdaysAndIsoWeeks() {
        #expect(date("1970-01-01").weekday == .thursday)
        #expect(date("2026-11-21").weekday == .saturday)
        #expect(date("1969-12-29").weekday == .monday)
        #expect(date("2026-01-01").isoWeek == (2026, 1))
        #expect(date("2027-01-01").isoWeek == (2026, 53))
        #expect(date("2026-11-21").startOfWeek(weekStart: .monday) == date("2026-11-16"))
        #expect(date("2026-11-21").startOfWeek(weekStart: .sunday) == date("2026-11-15"))
        #expect(date("2026-03-01").days(to: date("2026-03-31")) == 30)
    }

    @Test func encodesAsIsoText() throws {
        let data = try JSONEncoder().encode([date("2026-03-09")])
        #expect(String(decoding: data, as: UTF8.self) == #"["2026-03-09"]"#)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([LocalDate].self, from: Data(#"["2026-02-30"]"#.utf8)) }
    }
}

/// Ids are parsed from their bytes (`UUID(asciiBytes:)`); Foundation's parser is the reference.
@Suite struct IdentifierParsingTests {
    @Test func anIdReadsAsFoundationReadsIt() {
        var random = SystemRandomNumberGenerator()
        var texts: [String] = []
        for _ in 0..<500 {
            let text = UUID().uuidString
            texts += [text, text.lowercased(), String(text.enumerated().map { Bool.random(using: &random) ? Character($0.element.lowercased()) : $0.element })]
        }
        // Near misses: a dash moved, a byte that is no hex digit, a wrong length.
        let base = "0a1B2c3D-4e5F-6789-aBcD-eF0123456789"
        texts += [base, base.replacingOccurrences(of: "-", with: "_"), String(base.dropLast()), base + "0", "0a1B2c3D4-e5F-6789-aBcD-eF012345678"]
        for (index, character) in base.enumerated() {
            for bad in ["g", "G", "/", ":", "@", "`", " ", "-", "\u{7F}"] where String(character) != bad {
                var chars = Array(base)
                chars[index] = Character(bad)
                texts.append(String(chars))
            }
        }
        for text in texts {
            let ours = Array(text.utf8).withUnsafeBufferPointer { UUID(asciiBytes: $0) }
            #expect(ours == Self.reference(text), "\(text)")
            // Foundation agrees on every id it reads right (on Linux it also takes a space or a
            // dash for a digit, which we refuse).
            if let ours { #expect(ours == UUID(uuidString: text), "\(text)") }
        }
    }

    /// The plain reading: 36 bytes, dashes at 8, 13, 18 and 23, hex digit pairs elsewhere.
    static func reference(_ text: String) -> UUID? {
        let chars = Array(text.utf8)
        guard chars.count == 36 else { return nil }
        func hex(_ c: UInt8) -> UInt8? { UInt8(String(UnicodeScalar(c)), radix: 16) }
        var bytes: [UInt8] = []
        var i = 0
        while i < 36 {
            if [8, 13, 18, 23].contains(i) {
                guard chars[i] == UInt8(ascii: "-") else { return nil }
                i += 1
                continue
            }
            guard let high = hex(chars[i]), let low = hex(chars[i + 1]) else { return nil }
            bytes.append(high << 4 | low)
            i += 2
        }
        return bytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
    }
}

@Suite struct ShiftDurationTests {
    /// The fast path for the stored form (`HH:MM-HH:MM`, `all-day`) gives what the general parse
    /// gives, for every time of day at both ends and for near misses it must leave to it.
    @Test func theStoredFormReadsAsTheGeneralParseReadsIt() {
        var texts = ["all-day", "All-day", "all day", "allday", " all-day", "24:00-06:00", "06:60-07:00", "6:00-14:00", "06:00–14:00",
                     "06:00 - 14:00", "06:00-14:0", "06:00-14:000", "0a:00-14:00", "06:00+14:00", "06-00-14-00", "", "06:00-14:00 "]
        for hour in 0..<25 { for minute in stride(from: 0, to: 61, by: 7) {
            let time = String(format: "%02d:%02d", hour, minute)
            texts += ["\(time)-06:30", "22:15-\(time)"]
        } }
        for text in texts {
            #expect(ShiftDuration(text) == ShiftDuration(parsing: text), "\(text)")
            if let fast = ShiftDuration.canonical(text.utf8) { #expect(fast == ShiftDuration(parsing: text), "\(text)") }
        }
        #expect(ShiftDuration.canonical("07:00-19:00".utf8) != nil && ShiftDuration.canonical("all-day".utf8) == .allDay)
    }

    @Test func timesAreZeroToTwentyThree() {
        #expect(HourMinuteTime("07:30")?.minutesSinceMidnight == 450)
        #expect(HourMinuteTime("7:30") != nil)
        #expect(HourMinuteTime("24:00") == nil)
        #expect(HourMinuteTime("23:60") == nil)
        #expect(HourMinuteTime("-1:00") == nil)
        #expect(HourMinuteTime("12") == nil)
    }

    @Test func rangesParseAndDetectOvernight() {
        let night = ShiftDuration("22:00-06:00")!
        #expect(night.isOvernight)
        #expect(night.nominalMinutes == 480)
        #expect(ShiftDuration("06:00–14:00") == .scheduled(from: time("06:00"), to: time("14:00")))
        #expect(ShiftDuration("all-day") == .allDay)
        #expect(ShiftDuration("08:00-08:00")?.nominalMinutes == 1440)
        #expect(ShiftDuration("08:00") == nil)
        #expect(ShiftDuration("08:00-24:00") == nil)
        #expect(night.description == "22:00-06:00")
    }
}

@Suite struct ZoneRulesTests {
    let berlin = ZoneRules(identifier: "Europe/Berlin")!

    @Test func nightShiftAcrossSpringChangeLastsSevenHours() throws {
        let schedule = try Schedule(settings: StoreSettings(timeZoneIdentifier: "Europe/Berlin"))
        let interval = schedule.interval(of: ShiftDuration("22:00-06:00")!, on: date("2026-03-28"))
        #expect(interval.minutes == 7 * 60)
        let autumn = schedule.interval(of: ShiftDuration("22:00-06:00")!, on: date("2026-10-24"))
        #expect(autumn.minutes == 9 * 60)
        let ordinary = schedule.interval(of: ShiftDuration("22:00-06:00")!, on: date("2026-05-01"))
        #expect(ordinary.minutes == 8 * 60)
    }

    @Test func instantsMatchFoundation() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Berlin")!
        for (day, hour) in [("2026-01-15", 9), ("2026-07-01", 23), ("2026-03-29", 3), ("2026-10-25", 1), ("1985-06-01", 12)] {
            let d = date(day)
            let expected = calendar.date(from: DateComponents(year: d.year, month: d.month, day: d.day, hour: hour))!
            #expect(berlin.instant(of: d, minutes: hour * 60) == Int64(expected.timeIntervalSince1970), "\(day) \(hour):00")
        }
    }

    @Test func skippedAndRepeatedHours() {
        // 02:30 does not exist on 2026-03-29: read with the winter offset, it is 01:30 UTC.
        #expect(berlin.instant(of: date("2026-03-29"), minutes: 150) == 1_774_747_800)
        // 02:30 happens twice on 2026-10-25: the first (summer time, 00:30 UTC) is meant.
        #expect(berlin.instant(of: date("2026-10-25"), minutes: 150) == 1_792_888_200)
        #expect(ZoneRules(identifier: "Mars/Olympus") == nil)
        #expect(ZoneRules(identifier: "") == nil)
    }

    /// The cursor a roster's walk uses gives the zone's own answers, in any order of dates:
    /// every day of six years around changes of offset, at times from -1 day to +2 days.
    @Test(arguments: ["Europe/Berlin", "Australia/Sydney", "America/St_Johns", "UTC"])
    func aCursorAnswersLikeTheZone(identifier: String) throws {
        let zone = try #require(ZoneRules(identifier: identifier))
        let days = Array(stride(from: date("2024-01-01"), through: date("2029-12-31"), by: 1))
        let minutes = [-1440, -30, 0, 90, 150, 179, 181, 1380, 1439, 1500, 2880]
        var generator = SplitMix64(seed: 7)
        for order in [days, days.reversed(), days.shuffled(using: &generator)] {
            var cursor = ZoneRules.Cursor(zone)
            for day in order {
                for minute in minutes {
                    #expect(cursor.instant(of: day, minutes: minute) == zone.instant(of: day, minutes: minute), "\(day) \(minute)")
                }
            }
        }
    }

    /// The offset at an instant is Foundation's, from before the table (1900) to after it (2200),
    /// on every day of the busy years and at random instants between: the table finds its place
    /// by 48-day stretches, so instants at both sides of each change are tried too.
    @Test(arguments: ["Europe/Berlin", "Australia/Lord_Howe", "America/St_Johns", "Asia/Kolkata", "UTC"])
    func offsetsMatchFoundation(identifier: String) throws {
        let zone = try #require(ZoneRules(identifier: identifier))
        let foundation = try #require(TimeZone(identifier: identifier))
        var instants: [Int64] = [-3_000_000_000, -2_208_988_801, -2_208_988_800, 7_258_118_400, 7_300_000_000, 9_000_000_000]
        var generator = SplitMix64(seed: 11)
        for _ in 0..<3000 { instants.append(Int64.random(in: -2_208_988_800...7_258_118_400, using: &generator)) }
        for day in stride(from: Int64(19_700), to: 20_800, by: 1) { instants.append(day * 86_400 + 3_600) }
        var cursor = Date(timeIntervalSince1970: -2_208_988_800)
        while let next = foundation.nextDaylightSavingTimeTransition(after: cursor), next.timeIntervalSince1970 < 7_258_118_400 {
            let at = Int64(next.timeIntervalSince1970.rounded())
            instants += [at - 1, at, at + 1]
            cursor = next
        }
        for instant in instants {
            let expected = foundation.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant)))
            // Outside the table the nearest known offset holds (Foundation may know other history).
            guard instant >= -2_208_988_800, instant < 7_258_118_400 else { continue }
            #expect(zone.offset(atUTC: instant) == expected, "\(identifier) at \(instant)")
        }
        #expect(zone.offset(atUTC: 9_000_000_000) == zone.offset(atUTC: 7_258_118_399))
        #expect(zone.offset(atUTC: -3_000_000_000) == zone.offset(atUTC: -2_208_988_800))
    }

    @Test func halfOpenIntervalsTouchWithoutOverlapping() {
        let a = InstantInterval(start: 0, end: 100)
        #expect(!a.overlaps(InstantInterval(start: 100, end: 200)))
        #expect(a.overlaps(InstantInterval(start: 99, end: 200)))
        #expect(!InstantInterval(start: 100, end: 200).overlaps(a))
    }
}

@Suite struct CodableTests {
    @Test func domainValuesRoundTripThroughJSONCoders() throws {
        let fixture = Fixture()
        var shift = fixture.shift(1, fixture.night, "2026-03-28", fixture.bob)
        shift.notes = "swap with \"Carol\"\n?"
        shift.attributes = ["skill": .string("nurse"), "weight": .number(1.5)]
        shift.eventIdentifier = "foreign-uid@example.com"
        let demand = Demand(id: DemandID(uuid(50)), day: .weekday(.monday), shiftTypeID: fixture.day.id, skill: "nurse", minimum: 1, optimal: 2)
        let availability = Availability(id: AvailabilityID(uuid(60)), personID: fixture.bob.id, from: date("2026-04-01"),
                                        to: date("2026-04-03"), kind: .undesired, weight: 10)
        let entry = ChangeLogEntry(
            id: ChangeLogEntryID(uuid(70)), timestamp: Timestamp.truncated(fixedNow), userId: "u", userDisplayName: "U",
            changeType: .switched, scheduledShiftDate: shift.date,
            oldShiftSnapshot: ShiftSnapshot(shiftID: shift.id, shiftTypeID: fixture.day.id, symbol: "D", title: "Day",
                                            duration: fixture.day.duration, date: shift.date), reason: "sick")
        try roundTrip(fixture.ward)
        try roundTrip(fixture.day)
        try roundTrip(fixture.office)
        try roundTrip(fixture.bob)
        try roundTrip(shift)
        try roundTrip(demand)
        try roundTrip(availability)
        try roundTrip(entry)
        try roundTrip(StoreSettings(timeZoneIdentifier: "Europe/Berlin", weekStart: .sunday, changeLogRetention: .days(90)))
        try roundTrip(alice)
    }

    private func roundTrip<T: Codable & Equatable>(_ value: T) throws {
        let data = try JSONEncoder().encode(value)
        #expect(try JSONDecoder().decode(T.self, from: data) == value, "\(String(decoding: data, as: UTF8.self))")
    }

    @Test func timestampsKeepMilliseconds() {
        let stamp = Timestamp.truncated(Date(timeIntervalSince1970: 1_234_567_890.1239))
        #expect(Timestamp.format(stamp) == "2009-02-13T23:31:30.123Z")
        #expect(Timestamp.parse(Timestamp.format(stamp)) == stamp)
        #expect(Timestamp.parse("2009-02-13T23:31:30Z") == Date(timeIntervalSince1970: 1_234_567_890))
        #expect(Timestamp.parse("2009-02-13 23:31:30Z") == nil)
        // Found by fuzzing the store decoder: a long fraction overflowed (a crash, not an error).
        let long = "2009-02-13T23:31:30.12" + String(repeating: "8", count: 90) + "Z"
        #expect(Timestamp.parse(long) == Date(timeIntervalSince1970: 1_234_567_890.128))
        #expect(Timestamp.parse("2009-02-13T23:31:30." + String(repeating: "9", count: 30) + "xZ") == nil)
        #expect(Timestamp.parse("2009-02-13T23:31:30.Z") == nil)
        #expect(Timestamp.format(Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59.500Z")
    }

    @Test func retentionPolicyText() {
        #expect(ChangeLogRetentionPolicy("90d") == .days(90))
        #expect(ChangeLogRetentionPolicy("forever") == .forever)
        #expect(ChangeLogRetentionPolicy("0d") == nil)
        #expect(ChangeLogRetentionPolicy("soon") == nil)
        #expect(ChangeLogRetentionPolicy.days(30).cutoff(now: Date(timeIntervalSince1970: 86_400 * 31)) == Date(timeIntervalSince1970: 86_400))
    }

    @Test func identifiersPrintLowercaseAndSortLikeTheirText() {
        let a = ShiftID(UUID(uuidString: "A0000000-0000-4000-8000-000000000000")!)
        let b = ShiftID(UUID(uuidString: "0B000000-0000-4000-8000-000000000000")!)
        #expect(a.description == "a0000000-0000-4000-8000-000000000000")
        #expect(b < a)
        #expect(ShiftID("a0000000-0000-4000-8000-000000000000") == a)
        #expect(ShiftID("nope") == nil)
    }
}
