import Foundation
import ShiftCore

/// A roster exported as one row per shift with its local start and end times, the format of the
/// roster generator in benchmarks/peers:
///
/// ```
/// shift_id,person,date,start_iso,end_iso
/// 1,P0001,2025-01-01,2025-01-01T06:00:00,2025-01-01T14:00:00
/// ```
///
/// Read into a new schedule: one shift type per distinct time range (symbol `06-14`, or `T1`, `T2`…
/// when a time is not on the hour; the title is the range), people
/// in order of first appearance, shift ids made from `shift_id` so that id order is `shift_id`
/// order (the tie-break of that benchmark's counting). Times are local wall-clock times without a
/// zone, so the schedule's zone is UTC: durations are then exactly the wall-clock differences.
public enum TimedRosterCSV {
    public static let header = "shift_id,person,date,start_iso,end_iso"

    /// The id a `shift_id` becomes (its number in the last 8 bytes).
    public static func shiftID(_ number: UInt64) -> ShiftID {
        var bytes: [UInt8] = [0x5E, 0xED, 0x00, 0x00, 0x00, 0x00, 0x40, 0x00]
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: number >> UInt64(shift))) }
        let uuid = bytes.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }
        return ShiftID(UUID(uuid: uuid))
    }

    /// Reads the file; a problem names the line and the field.
    public static func schedule(from data: Data) throws(ImportFailure) -> Schedule {
        var types: [ShiftType] = []
        var typeByRange: [String: ShiftTypeID] = [:]
        var people: [Person] = []
        var personByName: [String: PersonID] = [:]
        var shifts: [ScheduledShift] = []
        var failure: ImportFailure?
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let bytes = raw.bindMemory(to: UInt8.self)
            var line = 0
            var position = 0
            while position < bytes.count {
                var end = position
                while end < bytes.count, bytes[end] != 0x0A { end += 1 }
                line += 1
                var stop = end
                if stop > position, bytes[stop - 1] == 0x0D { stop -= 1 }
                defer { position = end + 1 }
                guard stop > position else { continue }
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[position..<stop]), as: UTF8.self)
                if line == 1 {
                    guard text == header else {
                        failure = ImportFailure(line: 1, "the header must be \(header), not '\(text)'")
                        return
                    }
                    continue
                }
                let fields = text.split(separator: ",", omittingEmptySubsequences: false)
                guard fields.count == 5 else {
                    failure = ImportFailure(line: line, "\(fields.count) fields, the header has 5")
                    return
                }
                guard let number = UInt64(fields[0]), number > 0 else {
                    failure = ImportFailure(line: line, "shift_id: '\(fields[0])' is not a positive whole number")
                    return
                }
                let name = String(fields[1])
                guard !name.isEmpty else {
                    failure = ImportFailure(line: line, "person: empty")
                    return
                }
                guard let date = LocalDate(fields[2]) else {
                    failure = ImportFailure(line: line, "date: '\(fields[2])' is not a date (YYYY-MM-DD)")
                    return
                }
                guard let start = localTime(fields[3]), start.date == date else {
                    failure = ImportFailure(line: line, "start_iso: '\(fields[3])' is not a local time (YYYY-MM-DDTHH:MM:SS) on \(date)")
                    return
                }
                guard let end = localTime(fields[4]), end.minutes > start.minutes, end.minutes - start.minutes <= 1440 else {
                    failure = ImportFailure(line: line, "end_iso: '\(fields[4])' is not a local time after the start and within 24 hours of it")
                    return
                }
                let from = start.minutes - Int(date.dayNumber) * 1440
                let to = end.minutes - Int(date.dayNumber) * 1440
                let range = "\(from)-\(to)"
                let typeID: ShiftTypeID
                if let known = typeByRange[range] {
                    typeID = known
                } else {
                    let duration = ShiftDuration.scheduled(
                        from: HourMinuteTime(hour: from / 60, minute: from % 60)!, to: HourMinuteTime(hour: (to / 60) % 24, minute: to % 60)!)
                    typeID = ShiftTypeID(serial(0x7E, types.count + 1))
                    // Symbols have at most 8 characters: hours alone when the times are on the hour.
                    let symbol = from % 60 == 0 && to % 60 == 0
                        ? String(format: "%02d-%02d", from / 60, (to / 60) % 24) : "T\(types.count + 1)"
                    types.append(ShiftType(id: typeID, symbol: symbol, title: duration.description, duration: duration))
                    typeByRange[range] = typeID
                }
                let personID: PersonID
                if let known = personByName[name] {
                    personID = known
                } else {
                    personID = PersonID(serial(0x9E, people.count + 1))
                    people.append(Person(id: personID, displayName: name))
                    personByName[name] = personID
                }
                shifts.append(ScheduledShift(id: shiftID(number), shiftTypeID: typeID, date: date, personID: personID))
            }
        }
        if let failure { throw failure }
        do {
            return try Schedule(settings: StoreSettings(timeZoneIdentifier: "UTC"), shiftTypes: types, people: people, shifts: shifts)
        } catch {
            throw ImportFailure(line: nil, "\(error)")
        }
    }

    /// `YYYY-MM-DDTHH:MM[:SS]` as (date, minutes since 1970-01-01 00:00); seconds must be 0.
    private static func localTime(_ text: Substring) -> (date: LocalDate, minutes: Int)? {
        let parts = text.split(separator: "T", maxSplits: 1)
        guard parts.count == 2, let date = LocalDate(parts[0]) else { return nil }
        let clock = parts[1].split(separator: ":")
        guard clock.count == 2 || (clock.count == 3 && clock[2] == "00"), let hour = Int(clock[0]), let minute = Int(clock[1]),
              HourMinuteTime(hour: hour, minute: minute) != nil, clock[0].count == 2, clock[1].count == 2 else { return nil }
        return (date, Int(date.dayNumber) * 1440 + hour * 60 + minute)
    }

    private static func serial(_ tag: UInt8, _ number: Int) -> UUID {
        UUID(uuidString: String(format: "%02X000000-0000-4000-8000-%012X", tag, number))!
    }
}
