import Foundation
import ShiftCore

/// The JSON store format: reads every supported version, writes the current one.
///
/// Layout (see docs/store-format.md): a header (`format`, `version`), `settings`, then one array
/// per entity kind with one entity per line, sorted by a stable key, so a one-shift change is a
/// one-line diff.
public enum StoreFileCodec {
    /// The version this build writes.
    public static let currentVersion = 4
    /// The oldest version this build still reads (and migrates on the next save).
    public static let oldestVersion = 1
    static let formatName = "shiftscheduler"

    // MARK: Encoding

    /// The file's bytes for a schedule. Call `schedule.changeLog.prepare()` first when the
    /// schedule came from a JSON store: its log is read then, and a damaged one throws there.
    public static func encode(_ schedule: Schedule) -> [UInt8] {
        encode(schedule, shifts: schedule.shifts()).bytes
    }

    /// The file's bytes for a schedule whose shifts are `shifts`, written in that order, and
    /// where the change-log array lies in them. Without `changeLog`, the section is written
    /// empty (an index keeps the small parts of a store as a store file of their own).
    static func encode(_ schedule: Schedule, shifts: [ScheduledShift], changeLog: Bool = true) -> (bytes: [UInt8], changeLog: Range<Int>) {
        let entries = changeLog ? schedule.changeLog.count : 0
        var w = JSONWriter(capacity: 256 + shifts.count * 150 + entries * 600 + schedule.personCount * 100)
        w.raw("{\n  \"format\": \"shiftscheduler\",\n  \"version\": ")
        w.int(currentVersion)
        w.raw(",\n  \"settings\": ")
        writeSettings(schedule.settings, &w)
        w.raw(",")
        w.section("locations", schedule.locations) { w, location in
            w.beginObject()
            w.key("id"); w.uuid(location.id.rawValue)
            w.key("name"); w.string(location.name)
            if !location.address.isEmpty { w.key("address"); w.string(location.address) }
            if !location.attributes.isEmpty { w.key("attributes"); w.attributes(location.attributes) }
            w.endObject()
        }
        w.section("shiftTypes", schedule.shiftTypes) { w, type in
            w.beginObject()
            w.key("id"); w.uuid(type.id.rawValue)
            w.key("symbol"); w.string(type.symbol)
            w.key("title"); w.string(type.title)
            if !type.description.isEmpty { w.key("description"); w.string(type.description) }
            w.key("duration"); w.string(type.duration.description)
            if let location = type.locationID { w.key("locationID"); w.uuid(location.rawValue) }
            if !type.attributes.isEmpty { w.key("attributes"); w.attributes(type.attributes) }
            w.endObject()
        }
        w.section("people", schedule.people) { w, person in
            w.beginObject()
            w.key("id"); w.uuid(person.id.rawValue)
            w.key("displayName"); w.string(person.displayName)
            if !person.attributes.isEmpty { w.key("attributes"); w.attributes(person.attributes) }
            w.endObject()
        }
        w.section("shifts", shifts) { w, shift in writeShift(shift, &w) }
        w.section("demand", schedule.demand) { w, item in
            w.beginObject()
            w.key("id"); w.uuid(item.id.rawValue)
            switch item.day {
            case let .date(date): w.key("date"); w.date(date)
            case let .weekday(day): w.key("weekday"); w.string(day.name)
            }
            w.key("shiftTypeID"); w.uuid(item.shiftTypeID.rawValue)
            if let skill = item.skill { w.key("skill"); w.string(skill) }
            w.key("minimum"); w.int(item.minimum)
            w.key("optimal"); w.int(item.optimal)
            w.endObject()
        }
        w.section("availability", schedule.availability) { w, item in
            w.beginObject()
            w.key("id"); w.uuid(item.id.rawValue)
            w.key("personID"); w.uuid(item.personID.rawValue)
            w.key("from"); w.date(item.from)
            w.key("to"); w.date(item.to)
            if let type = item.shiftTypeID { w.key("shiftTypeID"); w.uuid(type.rawValue) }
            w.key("kind"); w.string(item.kind.rawValue)
            if let weight = item.weight { w.key("weight"); w.number(weight) }
            w.endObject()
        }
        w.section("requests", schedule.requests) { w, request in writeRequest(request, &w) }
        let log = w.section("changeLog", changeLog ? schedule.changeLog : ChangeLog(), last: true) { w, entry in writeLogEntry(entry, &w) }
        w.raw("\n}\n")
        return (w.bytes, log)
    }

    private static func writeSettings(_ settings: StoreSettings, _ w: inout JSONWriter) {
        w.beginObject()
        w.key("timeZone"); w.string(settings.timeZoneIdentifier)
        w.key("weekStart"); w.string(settings.weekStart.name)
        w.key("changeLogRetention"); w.string(settings.changeLogRetention.description)
        if !settings.extra.isEmpty { w.key("extra"); w.attributes(settings.extra) }
        w.endObject()
    }

    static func writeShift(_ shift: ScheduledShift, _ w: inout JSONWriter) {
        w.beginObject()
        w.key("id"); w.uuid(shift.id.rawValue)
        w.key("shiftTypeID"); w.uuid(shift.shiftTypeID.rawValue)
        w.key("date"); w.date(shift.date)
        if let person = shift.personID { w.key("personID"); w.uuid(person.rawValue) }
        if let notes = shift.notes { w.key("notes"); w.string(notes) }
        if !shift.attributes.isEmpty { w.key("attributes"); w.attributes(shift.attributes) }
        if shift.hasCustomEventIdentifier { w.key("eventIdentifier"); w.string(shift.eventIdentifier) }
        w.endObject()
    }

    private static func writeSnapshot(_ s: ShiftSnapshot, _ w: inout JSONWriter) {
        w.beginObject()
        w.key("shiftID"); w.uuid(s.shiftID.rawValue)
        w.key("shiftTypeID"); w.uuid(s.shiftTypeID.rawValue)
        w.key("symbol"); w.string(s.symbol)
        w.key("title"); w.string(s.title)
        w.key("duration"); w.string(s.duration.description)
        w.key("date"); w.date(s.date)
        if let id = s.locationID { w.key("locationID"); w.uuid(id.rawValue) }
        if let name = s.locationName { w.key("locationName"); w.string(name) }
        if let id = s.personID { w.key("personID"); w.uuid(id.rawValue) }
        if let name = s.personName { w.key("personName"); w.string(name) }
        if let notes = s.notes { w.key("notes"); w.string(notes) }
        w.endObject()
    }

    private static func writeLogEntry(_ entry: ChangeLogEntry, _ w: inout JSONWriter) {
        w.beginObject()
        w.key("id"); w.uuid(entry.id.rawValue)
        w.key("timestamp"); w.string(Timestamp.format(entry.timestamp))
        w.key("userId"); w.string(entry.userId)
        w.key("userDisplayName"); w.string(entry.userDisplayName)
        w.key("changeType"); w.string(entry.changeType.rawValue)
        w.key("scheduledShiftDate"); w.date(entry.scheduledShiftDate)
        if let old = entry.oldShiftSnapshot { w.key("oldShiftSnapshot"); writeSnapshot(old, &w) }
        if let new = entry.newShiftSnapshot { w.key("newShiftSnapshot"); writeSnapshot(new, &w) }
        if let reason = entry.reason { w.key("reason"); w.string(reason) }
        if let created = entry.createdShifts {
            w.key("createdShifts")
            w.beginObject()
            w.key("lastDate"); w.date(created.lastDate)
            w.key("shiftIDs")
            w.beginArray()
            for id in created.shiftIDs { w.element(); w.uuid(id.rawValue) }
            w.endArray()
            w.endObject()
        }
        w.endObject()
    }
}
