import Foundation

/// The UTC offsets of an IANA time zone as a table of transitions, so turning a local date and
/// time into an instant is a binary search instead of a call into ICU.
///
/// The table covers 1900…2200; outside it the nearest known offset is used.
/// Local times that do not exist (the hour skipped in spring) are read with the offset before the
/// change (02:30 becomes 03:30); local times that happen twice (autumn) mean the first one.
public struct ZoneRules: Sendable, Hashable {
    public let identifier: String
    /// UTC seconds at which the offset changes, ascending.
    private let transitions: [Int64]
    /// `offsets[i]` applies before `transitions[i]`; the last applies after the last transition.
    private let offsets: [Int32]
    /// For each stretch of 2^22 seconds (about 48 days) from 1900, the number of transitions at or
    /// before its start: an instant's offset is then a step or two from there, not a binary
    /// search over the century's transitions (a rule's check places dozens of shifts).
    private let buckets: [UInt16]

    private static let bucketBits = 22
    private static let bucketBase: Int64 = -2_208_988_800

    private static let tableStart = Date(timeIntervalSince1970: -2_208_988_800) // 1900-01-01
    private static let tableEnd: Double = 7_258_118_400 // 2200-01-01

    /// `nil` when the identifier is not a known IANA time zone.
    public init?(identifier: String) {
        guard !identifier.isEmpty, let zone = TimeZone(identifier: identifier) else { return nil }
        self.identifier = identifier
        var transitions: [Int64] = []
        var offsets: [Int32] = [Int32(zone.secondsFromGMT(for: ZoneRules.tableStart))]
        var cursor = ZoneRules.tableStart
        while let next = zone.nextDaylightSavingTimeTransition(after: cursor),
              next.timeIntervalSince1970 < ZoneRules.tableEnd, next > cursor {
            let offset = Int32(zone.secondsFromGMT(for: next))
            if offset != offsets.last {
                transitions.append(Int64(next.timeIntervalSince1970.rounded()))
                offsets.append(offset)
            }
            cursor = next
        }
        self.transitions = transitions
        self.offsets = offsets
        let count = Int((Int64(ZoneRules.tableEnd) - ZoneRules.bucketBase) >> ZoneRules.bucketBits) + 1
        var buckets: [UInt16] = []
        buckets.reserveCapacity(count)
        var passed = 0
        for bucket in 0..<count {
            let start = ZoneRules.bucketBase + Int64(bucket) << ZoneRules.bucketBits
            while passed < transitions.count && transitions[passed] <= start { passed += 1 }
            buckets.append(UInt16(clamping: passed))
        }
        self.buckets = buckets
    }

    /// The number of transitions at or before `seconds`: the index of the offset in force then.
    @inline(__always)
    private func passed(_ seconds: Int64) -> Int {
        let bucket = (seconds - ZoneRules.bucketBase) >> ZoneRules.bucketBits
        guard bucket >= 0, transitions.count <= Int(UInt16.max) else {
            // Before the table (or a table too long for the buckets): a binary search.
            var low = 0
            var high = transitions.count
            while low < high {
                let mid = (low + high) / 2
                if transitions[mid] <= seconds { low = mid + 1 } else { high = mid }
            }
            return low
        }
        var index = Int(buckets[Swift.min(Int(bucket), buckets.count - 1)])
        while index < transitions.count && transitions[index] <= seconds { index += 1 }
        return index
    }

    public static let utc = ZoneRules(identifier: "UTC")!

    /// Seconds east of UTC at an instant.
    public func offset(atUTC seconds: Int64) -> Int {
        Int(offsets[passed(seconds)])
    }

    /// The offset in force at an instant, with the instants `[from, to)` that share it (from one
    /// transition to the next): a caller asking about many instants keeps the span and looks
    /// again only outside it.
    public func offsetSpan(atUTC seconds: Int64) -> (from: Int64, to: Int64, offset: Int64) {
        let index = passed(seconds)
        return (index > 0 ? transitions[index - 1] : .min, index < transitions.count ? transitions[index] : .max, Int64(offsets[index]))
    }

    /// The instants where the offset changes in `(from, to]`, in order.
    public func transitions(from: Int64, to: Int64) -> ArraySlice<Int64> {
        let low = passed(from)
        var end = low
        while end < transitions.count && transitions[end] <= to { end += 1 }
        return transitions[low..<end]
    }

    /// The instant (UTC seconds since 1970) of a local wall-clock time `minutes` after the start of
    /// `date` (`minutes` may pass 1440 for the next day).
    public func instant(of date: LocalDate, minutes: Int) -> Int64 {
        let local = Int64(date.dayNumber) * 86_400 + Int64(minutes) * 60
        let first = passed(local - 86_400)
        // No change within a day either side (the usual case): one offset.
        if first == transitions.count || transitions[first] > local + 86_400 { return local - Int64(offsets[first]) }
        let before = Int(offsets[first])
        let after = offset(atUTC: local + 86_400)
        if before == after { return local - Int64(before) }
        let early = local - Int64(before)
        let late = local - Int64(after)
        let earlyValid = offset(atUTC: early) == before
        let lateValid = offset(atUTC: late) == after
        switch (earlyValid, lateValid) {
        case (true, true): return min(early, late)
        case (true, false): return early
        case (false, true): return late
        case (false, false): return early
        }
    }

    /// The instants a shift of this duration dated `date` occupies.
    public func interval(of duration: ShiftDuration, on date: LocalDate) -> InstantInterval {
        let (start, end) = duration.minuteRange
        return InstantInterval(start: instant(of: date, minutes: start), end: instant(of: date, minutes: end))
    }

    /// The stretch of UTC seconds `[lower, upper)` around `seconds` in which the offset does not
    /// change, and that offset.
    func stretch(containing seconds: Int64) -> (lower: Int64, upper: Int64, offset: Int) {
        let low = passed(seconds)
        return (low == 0 ? .min : transitions[low - 1], low == transitions.count ? .max : transitions[low], Int(offsets[low]))
    }

    /// `instant(of:minutes:)` for dates visited in order (a roster's walk): it remembers the
    /// stretch between two offset changes the last date fell in, so a date well inside the same
    /// stretch costs no search. The answers are the zone's own, whatever the order.
    public struct Cursor {
        let zone: ZoneRules
        private var lower: Int64 = .max
        private var upper: Int64 = .min
        private var offset = 0

        public init(_ zone: ZoneRules) { self.zone = zone }

        public mutating func instant(of date: LocalDate, minutes: Int) -> Int64 {
            let local = Int64(date.dayNumber) * 86_400 + Int64(minutes) * 60
            // The zone's answer is `local - offset` when the offsets a day either side agree,
            // which they do when both lie in one stretch.
            if local - 86_400 >= lower, local + 86_400 < upper { return local - Int64(offset) }
            (lower, upper, offset) = zone.stretch(containing: local - 86_400)
            if local + 86_400 < upper { return local - Int64(offset) }
            return zone.instant(of: date, minutes: minutes)
        }
    }

    /// The local date and minute of the day of an instant (whole seconds, rounded down).
    public func localDateTime(at instant: Date) -> (date: LocalDate, minute: Int) {
        localDateTime(atUTC: Int64(instant.timeIntervalSince1970.rounded(.down)))
    }

    /// The local date and minute of the day of an instant.
    public func localDateTime(atUTC seconds: Int64) -> (date: LocalDate, minute: Int) {
        let local = seconds + Int64(offset(atUTC: seconds))
        let day = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        return (LocalDate(dayNumber: Int32(day)), Int((local - day * 86_400) / 60))
    }

    public static func == (lhs: ZoneRules, rhs: ZoneRules) -> Bool { lhs.identifier == rhs.identifier }
    public func hash(into hasher: inout Hasher) { hasher.combine(identifier) }
}

/// A half-open span of time `[start, end)` in UTC seconds since 1970.
public struct InstantInterval: Hashable, Sendable, Codable {
    public var start: Int64
    public var end: Int64

    public init(start: Int64, end: Int64) {
        self.start = start
        self.end = end
    }

    /// Half-open: a shift ending at 14:00 and one starting at 14:00 do not overlap.
    public func overlaps(_ other: InstantInterval) -> Bool { start < other.end && other.start < end }

    public var minutes: Int { Int((end - start) / 60) }
}
