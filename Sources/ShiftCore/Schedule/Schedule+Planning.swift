import Foundation

extension Schedule {
    /// Settings keys of the planning period (`schedule:horizon()` in Lua).
    public static let horizonFirstKey = "horizon.first"
    public static let horizonLastKey = "horizon.last"

    /// The period a roster is planned for: the settings `horizon.first` and `horizon.last`, else
    /// the span of the shifts' dates, else nil.
    /// - Throws: `ScheduleError.invalidValue` when the settings are not two dates in order.
    public func planningPeriod() throws(ScheduleError) -> ClosedRange<LocalDate>? {
        if let period = try settingsHorizon() { return period }
        return shiftDateRange
    }

    /// The period set by `horizon.first` and `horizon.last`, or nil when either is absent.
    public func settingsHorizon() throws(ScheduleError) -> ClosedRange<LocalDate>? {
        let extra = settings.extra
        guard let first = extra[Self.horizonFirstKey], let last = extra[Self.horizonLastKey] else { return nil }
        guard let from = first.stringValue.flatMap(LocalDate.init), let to = last.stringValue.flatMap(LocalDate.init), from <= to else {
            throw .invalidValue(
                field: "settings.extra.\(Self.horizonFirstKey)",
                reason: "\(Self.horizonFirstKey) and \(Self.horizonLastKey) must be dates (YYYY-MM-DD), first <= last")
        }
        return from...to
    }

    /// The days a rule's day phase (`validate_day`) runs for in a whole-schedule check: every day
    /// of the planning period and every date a dated demand entry names, in order.
    public func planningDays() throws(ScheduleError) -> [LocalDate] {
        var days: Set<LocalDate> = []
        if let period = try planningPeriod() {
            var day = period.lowerBound
            while day <= period.upperBound {
                days.insert(day)
                day = day.adding(days: 1)
            }
        }
        for item in demandStore.values {
            if case let .date(date) = item.day { days.insert(date) }
        }
        return days.sorted()
    }
}
