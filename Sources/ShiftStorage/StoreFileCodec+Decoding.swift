import Foundation
import ShiftCore

extension StoreFileCodec {
    /// Reads a store file of any supported version.
    ///
    /// - Returns: the schedule and the version the file was written in.
    /// - Throws: `StorageError.corrupt` (with line and column) for bad JSON or bad values,
    ///   `.unsupportedVersion` for a newer file, `.invalidContent` for broken invariants.
    ///
    /// The file's bytes are released before the schedule is built from the decoded entities, so
    /// the peak memory holds the file or the schedule, not both (callers hand the bytes over).
    public static func decode(_ bytes: consuming [UInt8], path: String) throws(StorageError) -> (schedule: Schedule, version: Int) {
        let content = try decodeContent(bytes, path: path)
        return (try content.schedule(path: path), content.version)
    }

    /// Reads a store file's entities without putting them together: each value is checked as it
    /// is read (`StorageError.corrupt` with line and column), but not the file as a whole
    /// (references, unique ids), which `StoreFileContent.schedule(path:)` does.
    public static func decodeContent(_ bytes: consuming [UInt8], path: String) throws(StorageError) -> StoreFileContent {
        let sections = try bytes.withUnsafeBufferPointer { buffer throws(StorageError) -> Sections in
            try readSections(buffer, path: path, deferringLog: false)
        }
        _ = consume bytes
        return sections.content
    }

    /// Reads a store file's entities but leaves its change log unread: the section is only
    /// stepped over (strings and brackets followed, nothing decoded), and its byte range returned
    /// for `JSONChangeLogSource`, which decodes it when a command asks for an entry.
    static func decodeContentDeferringLog(
        _ buffer: UnsafeBufferPointer<UInt8>, path: String
    ) throws(StorageError) -> (content: StoreFileContent, changeLog: Range<Int>?) {
        let sections = try readSections(buffer, path: path, deferringLog: true)
        return (sections.content, sections.changeLogRange)
    }

    private static func readSections(_ buffer: UnsafeBufferPointer<UInt8>, path: String, deferringLog: Bool) throws(StorageError) -> Sections {
        var reader = JSONReader(bytes: buffer, path: path)
        guard !reader.atEnd() else { throw reader.error("the file is empty") }
        guard reader.peek() == UInt8(ascii: "{") else { throw reader.error("a store is a JSON object; found \(reader.describeNext())") }
        var sections = Sections()
        sections.defersLog = deferringLog
        // One pass: sections after "version" (as we write them) are decoded where they stand;
        // any that come before it are skipped and decoded once the version is known.
        var pending: [(key: String, offset: Int)] = []
        var seen: Set<String> = []
        try reader.readObject { r, key throws(StorageError) in
            let offset = r.valueStart()
            guard Sections.keys.contains(key) else { throw r.error("unknown top-level field \"\(key)\"", at: r.lastKeyPosition) }
            guard seen.insert(key).inserted else { throw r.error("\"\(key)\" appears twice", at: r.lastKeyPosition) }
            if key == "version" {
                try sections.readVersion(&r)
            } else if sections.version != nil {
                try sections.read(key, &r)
            } else {
                pending.append((key, offset))
                try r.skipValue()
            }
        }
        guard reader.atEnd() else { throw reader.error("unexpected \(reader.describeNext()) after the end of the store") }
        guard sections.version != nil else { throw reader.error("not a ShiftScheduler store: no \"version\" field", at: 0) }
        for (key, offset) in pending {
            var sectionReader = JSONReader(rebasing: reader, at: offset)
            try sections.read(key, &sectionReader)
        }
        if sections.settings == nil, sections.version != 1 { throw reader.error("missing \"settings\"", at: 0) }
        return sections
    }

    /// Decodes a change-log section read apart from its file: `bytes` hold the array only.
    static func decodeChangeLog(
        _ bytes: UnsafeBufferPointer<UInt8>, version: Int, path: String, linesBefore: Int, columnsBefore: Int
    ) throws(StorageError) -> [ChangeLogEntry] {
        var reader = JSONReader(bytes: bytes, path: path)
        reader.linesBefore = linesBefore
        reader.columnsBefore = columnsBefore
        let decoder = EntityDecoder(version: version)
        var entries: [ChangeLogEntry] = []
        try reader.readArray { r, index throws(StorageError) in entries.append(try decoder.logEntry(&r, "changeLog[\(index)]")) }
        guard reader.atEnd() else { throw reader.error("unexpected \(reader.describeNext()) after the change log") }
        return entries
    }

    /// The top-level sections of a store file as they are read.
    private struct Sections {
        static let keys: Set<String> = [
            "format", "version", "settings", "locations", "shiftTypes", "people", "shifts", "demand", "availability", "changeLog",
            "requests",
        ]
        var version: Int?
        var settings: StoreSettings?
        var locations: [Location] = []
        var shiftTypes: [ShiftType] = []
        var people: [Person] = []
        var shifts: [ScheduledShift] = []
        var demand: [Demand] = []
        var availability: [Availability] = []
        var changeLog: [ChangeLogEntry] = []
        /// Whether the change log is stepped over instead of decoded, and where it lies then.
        var defersLog = false
        var changeLogRange: Range<Int>?

        var content: StoreFileContent {
            StoreFileContent(
                version: version!, settings: settings ?? StoreSettings(timeZoneIdentifier: "UTC"),
                locations: locations, shiftTypes: shiftTypes, people: people, shifts: shifts,
                demand: demand, availability: availability, changeLog: changeLog, requests: requests)
        }
        var requests: [Request] = []

        mutating func readVersion(_ r: inout JSONReader) throws(StorageError) {
            let at = r.valueStart()
            let value = try r.readInt("version")
            guard value <= currentVersion else { throw .unsupportedVersion(path: r.path, version: value, newest: currentVersion) }
            guard value >= oldestVersion else {
                throw r.error("store format version \(value) is not supported (oldest: \(oldestVersion))", at: at)
            }
            version = value
        }

        mutating func read(_ key: String, _ r: inout JSONReader) throws(StorageError) {
            let decoder = EntityDecoder(version: version!)
            func array<T>(_ decode: (inout JSONReader, @autoclosure () -> String) throws(StorageError) -> T) throws(StorageError) -> [T] {
                var items: [T] = []
                try r.readArray { r, index throws(StorageError) in items.append(try decode(&r, "\(key)[\(index)]")) }
                return items
            }
            switch key {
            case "format":
                let at = r.valueStart()
                let format = try r.readString()
                guard format == formatName else { throw r.error("not a ShiftScheduler store: format is '\(format)'", at: at) }
            case "settings": settings = try decoder.settings(&r)
            case "locations": locations = try array(decoder.location)
            case "shiftTypes": shiftTypes = try array(decoder.shiftType)
            case "people": people = try array(decoder.person)
            case "shifts": shifts = try array(decoder.shift)
            case "demand": demand = try array(decoder.demand)
            case "availability": availability = try array(decoder.availability)
            case "changeLog" where defersLog:
                let start = r.valueStart()
                guard r.peek() == UInt8(ascii: "[") else { throw r.error("changeLog: expected an array ('['), found \(r.describeNext())") }
                changeLogRange = start..<(try r.skipContainer())
            case "changeLog": changeLog = try array(decoder.logEntry)
            case "requests" where version! >= 4: requests = try array(decoder.request)
            case "requests": throw r.error("\"requests\" is new in version 4; this file says version \(version!)", at: r.lastKeyPosition)
            default: break
            }
        }

    }
}

/// A store file's entities as read, in file order (`StoreFileCodec.decodeContent`).
public struct StoreFileContent: Sendable {
    /// The version the file was written in.
    public var version: Int
    /// The file's settings (UTC for a version-1 file, which had none).
    public var settings: StoreSettings
    public var locations: [Location]
    public var shiftTypes: [ShiftType]
    public var people: [Person]
    public var shifts: [ScheduledShift]
    public var demand: [Demand]
    public var availability: [Availability]
    public var changeLog: [ChangeLogEntry]
    /// Requests (version 4 on; none in older files).
    public var requests: [Request] = []

    /// The schedule these entities make, with every invariant checked; its change log is
    /// `changeLogSource`'s entries (when given) followed by `changeLog`.
    /// - Throws: `StorageError.invalidContent` naming the file and the first broken invariant.
    public func schedule(path: String, changeLogSource: (any ChangeLogSource)? = nil) throws(StorageError) -> Schedule {
        do {
            return try Schedule(
                settings: settings, locations: locations, shiftTypes: shiftTypes, people: people, shifts: shifts,
                demand: demand, availability: availability, changeLog: changeLog, changeLogSource: changeLogSource,
                requests: requests)
        } catch {
            throw .invalidContent(path: path, reason: "\(error)")
        }
    }
}

/// Decodes entities, accepting the older field names of the version being read.
struct EntityDecoder {
    let version: Int

    private func missing(_ field: String, _ path: String, _ r: borrowing JSONReader, _ start: Int) -> StorageError {
        r.error("\(path): missing \"\(field)\"", at: start)
    }

    private func unknown(_ key: String, _ path: String, _ r: borrowing JSONReader) -> StorageError {
        r.error("\(path): unknown field \"\(key)\"", at: r.lastKeyPosition)
    }

    func settings(_ r: inout JSONReader) throws(StorageError) -> StoreSettings {
        var settings = StoreSettings(timeZoneIdentifier: "UTC")
        let start = r.position
        var sawZone = false
        try r.readObject { r, key throws(StorageError) in
            switch key {
            case "timeZone":
                settings.timeZoneIdentifier = try r.readString()
                sawZone = true
            case "weekStart":
                let at = r.valueStart()
                let text = try r.readString()
                guard let day = Weekday(name: text) else { throw r.error("settings.weekStart: '\(text)' is not a weekday", at: at) }
                settings.weekStart = day
            case "changeLogRetention":
                let at = r.valueStart()
                let text = try r.readString()
                guard let policy = ChangeLogRetentionPolicy(text) else {
                    throw r.error("settings.changeLogRetention: '\(text)' is not forever or <days>d", at: at)
                }
                settings.changeLogRetention = policy
            case "extra": settings.extra = try attributes(&r, "settings.extra")
            default: throw unknown(key, "settings", r)
            }
        }
        if version >= 2, !sawZone { throw missing("timeZone", "settings", r, start) }
        return settings
    }

    func attributes(_ r: inout JSONReader, _ path: @autoclosure () -> String) throws(StorageError) -> Attributes {
        var result: Attributes = [:]
        try r.readObject { r, key throws(StorageError) in result[key] = try attribute(&r, "\(path()).\(key)") }
        return result
    }

    private func attribute(_ r: inout JSONReader, _ path: @autoclosure () -> String) throws(StorageError) -> AttributeValue {
        switch r.peek() {
        case UInt8(ascii: "\""): return .string(try r.readString())
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool(try r.readBool())
        case UInt8(ascii: "["):
            var items: [AttributeValue] = []
            try r.readArray { r, index throws(StorageError) in items.append(try attribute(&r, "\(path())[\(index)]")) }
            return .list(items)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try r.readNumber())
        default: throw r.error("\(path()): an attribute is a string, number, bool or list, not \(r.describeNext())")
        }
    }

    private func duration(_ r: inout JSONReader, _ path: @autoclosure () -> String) throws(StorageError) -> ShiftDuration {
        let at = r.valueStart()
        let text = try r.readString()
        guard let duration = ShiftDuration(text) else {
            throw r.error("\(path()): '\(text)' is not a duration (all-day or HH:MM-HH:MM)", at: at)
        }
        return duration
    }

    private func time(_ r: inout JSONReader, _ path: @autoclosure () -> String) throws(StorageError) -> HourMinuteTime {
        let at = r.valueStart()
        let text = try r.readString()
        guard let time = HourMinuteTime(text) else { throw r.error("\(path()): '\(text)' is not a time (HH:MM, 00:00…23:59)", at: at) }
        return time
    }

    func location(_ r: inout JSONReader, _ path: @autoclosure () -> String) throws(StorageError) -> Location {
        let start = r.position
        var id: UUID?
        var name: String?
        var address = ""
        var attrs: Attributes = [:]
        try r.readObject { r, key throws(StorageError) in
            switch key {
            case "id": id = try r.readUUID(path() + ".id")
            case "name": name = try r.readString()
            case "address": address = try r.readString()
            case "attributes": attrs = try attributes(&r, path() + ".attributes")
            default: throw unknown(key, path(), r)
            }
        }
        guard let id else { throw missing("id", path(), r, start) }
        guard let name else { throw missing("name", path(), r, start) }
        return Location(id: LocationID(id), name: name, address: address, attributes: attrs)
    }

    func shiftType(_ r: inout JSONReader, _ path: @autoclosure () -> String) throws(StorageError) -> ShiftType {
        let start = r.position
        var id: UUID?
        var symbol: String?
        var title = ""
        var description = ""
        var parsedDuration: ShiftDuration?
        var location: UUID?
        var attrs: Attributes = [:]
        // Version 1 stored the duration as separate fields.
        var startTime: HourMinuteTime?
        var endTime: HourMinuteTime?
        var allDay = false
        try r.readObject { r, key throws(StorageError) in
            switch key {
            case "id": id = try r.readUUID(path() + ".id")
            case "symbol": symbol = try r.readString()
            case "title": title = try r.readString()
            case "description": description = try r.readString()
            case "duration" where version >= 2: parsedDuration = try duration(&r, path() + ".duration")
            case "locationID": location = try r.readUUID(path() + ".locationID")
            case "attributes" where version >= 2: attrs = try attributes(&r, path() + ".attributes")
            case "startTime" where version == 1: startTime = try time(&r, path() + ".startTime")
            case "endTime" where version == 1: endTime = try time(&r, path() + ".endTime")
            case "allDay" where version == 1: allDay = try r.readBool()
            default: throw unknown(key, path(), r)
            }
        }
        guard let id else { throw missing("id", path(), r, start) }
        guard let symbol else { throw missing("symbol", path(), r, start) }
        if version == 1 {
            if allDay {
                parsedDuration = .allDay
            } else if let startTime, let endTime {
                parsedDuration = .scheduled(from: startTime, to: endTime)
            }
        }
        guard let parsedDuration else { throw missing(version == 1 ? "startTime/endTime" : "duration", path(), r, start) }
        return ShiftType(
            id: ShiftTypeID(id), symbol: symbol, title: title, description: description, duration: parsedDuration,
            locationID: location.map(LocationID.init), attributes: attrs)
    }

    func person(_ r: inout JSONReader, _ path: @autoclosure () -> String) throws(StorageError) -> Person {
        let start = r.position
        var id: UUID?
        var name: String?
        var attrs: Attributes = [:]
        try r.readObject { r, key throws(StorageError) in
            switch key {
            case "id": id = try r.readUUID(path() + ".id")
            case "displayName" where version >= 2, "name" where version == 1: name = try r.readString()
            case "attributes" where version >= 2: attrs = try attributes(&r, path() + ".attributes")
            default: throw unknown(key, path(), r)
            }
        }
        guard let id else { throw missing("id", path(), r, start) }
        guard let name else { throw missing(version == 1 ? "name" : "displayName", path(), r, start) }
        return Person(id: PersonID(id), displayName: name, attributes: attrs)
    }

    func shift(_ r: inout JSONReader, _ path: @autoclosure () -> String) throws(StorageError) -> ScheduledShift {
        let start = r.position
        var id: UUID?
        var type: UUID?
        var date: LocalDate?
        var person: UUID?
        var notes: String?
        var attrs: Attributes = [:]
        var uid: String?
        try r.readObject { r, key throws(StorageError) in
            switch key {
            case "id": id = try r.readUUID(path() + ".id")
            case "shiftTypeID" where version >= 2, "typeID" where version == 1: type = try r.readUUID(path() + ".shiftTypeID")
            case "date": date = try r.readDate(path() + ".date")
            case "personID": person = try r.readUUID(path() + ".personID")
            case "notes": notes = try r.readString()
            case "attributes" where version >= 2: attrs = try attributes(&r, path() + ".attributes")
            case "eventIdentifier": uid = try r.readString()
            default: throw unknown(key, path(), r)
            }
        }
        guard let id else { throw missing("id", path(), r, start) }
        guard let type else { throw missing("shiftTypeID", path(), r, start) }
        guard let date else { throw missing("date", path(), r, start) }
        return ScheduledShift(
            id: ShiftID(id), shiftTypeID: ShiftTypeID(type), date: date, personID: person.map(PersonID.init),
            notes: notes, attributes: attrs, eventIdentifier: uid)
    }

    func demand(_ r: inout JSONReader, _ path: @autoclosure () -> String) throws(StorageError) -> Demand {
        let start = r.position
        var id: UUID?
        var day: DemandDay?
        var type: UUID?
        var skill: String?
        var minimum: Int?
        var optimal: Int?
        try r.readObject { r, key throws(StorageError) in
            switch key {
            case "id": id = try r.readUUID(path() + ".id")
            case "date": day = .date(try r.readDate(path() + ".date"))
            case "weekday":
                let at = r.valueStart()
                let text = try r.readString()
                guard let weekday = Weekday(name: text) else { throw r.error("\(path()).weekday: '\(text)' is not a weekday", at: at) }
                day = .weekday(weekday)
            case "shiftTypeID": type = try r.readUUID(path() + ".shiftTypeID")
            case "skill": skill = try r.readString()
            case "minimum": minimum = try r.readInt(path() + ".minimum")
            case "optimal": optimal = try r.readInt(path() + ".optimal")
            default: throw unknown(key, path(), r)
            }
        }
        guard let id else { throw missing("id", path(), r, start) }
        guard let day else { throw missing("date\" or \"weekday", path(), r, start) }
        guard let type else { throw missing("shiftTypeID", path(), r, start) }
        guard let minimum else { throw missing("minimum", path(), r, start) }
        return Demand(id: DemandID(id), day: day, shiftTypeID: ShiftTypeID(type), skill: skill, minimum: minimum, optimal: optimal ?? minimum)
    }

    func availability(_ r: inout JSONReader, _ path: @autoclosure () -> String) throws(StorageError) -> Availability {
        let start = r.position
        var id: UUID?
        var person: UUID?
        var from: LocalDate?
        var to: LocalDate?
        var type: UUID?
        var kind: AvailabilityKind?
        var weight: Double?
        try r.readObject { r, key throws(StorageError) in
            switch key {
            case "id": id = try r.readUUID(path() + ".id")
            case "personID": person = try r.readUUID(path() + ".personID")
            case "from": from = try r.readDate(path() + ".from")
            case "to": to = try r.readDate(path() + ".to")
            case "shiftTypeID": type = try r.readUUID(path() + ".shiftTypeID")
            case "kind":
                let at = r.valueStart()
                let text = try r.readString()
                guard let parsed = AvailabilityKind(rawValue: text) else {
                    throw r.error("\(path()).kind: '\(text)' is not unavailable, undesired or desired", at: at)
                }
                kind = parsed
            case "weight": weight = try r.readNumber()
            default: throw unknown(key, path(), r)
            }
        }
        guard let id else { throw missing("id", path(), r, start) }
        guard let person else { throw missing("personID", path(), r, start) }
        guard let from else { throw missing("from", path(), r, start) }
        guard let kind else { throw missing("kind", path(), r, start) }
        return Availability(
            id: AvailabilityID(id), personID: PersonID(person), from: from, to: to ?? from,
            shiftTypeID: type.map(ShiftTypeID.init), kind: kind, weight: weight)
    }

    func snapshot(_ r: inout JSONReader, _ path: @autoclosure () -> String) throws(StorageError) -> ShiftSnapshot {
        let start = r.position
        var shiftID: UUID?
        var typeID: UUID?
        var symbol: String?
        var title = ""
        var parsedDuration: ShiftDuration?
        var date: LocalDate?
        var locationID: UUID?
        var locationName: String?
        var personID: UUID?
        var personName: String?
        var notes: String?
        try r.readObject { r, key throws(StorageError) in
            switch key {
            case "shiftID": shiftID = try r.readUUID(path() + ".shiftID")
            case "shiftTypeID": typeID = try r.readUUID(path() + ".shiftTypeID")
            case "symbol": symbol = try r.readString()
            case "title": title = try r.readString()
            case "duration": parsedDuration = try duration(&r, path() + ".duration")
            case "date": date = try r.readDate(path() + ".date")
            case "locationID": locationID = try r.readUUID(path() + ".locationID")
            case "locationName": locationName = try r.readString()
            case "personID": personID = try r.readUUID(path() + ".personID")
            case "personName": personName = try r.readString()
            case "notes": notes = try r.readString()
            default: throw unknown(key, path(), r)
            }
        }
        guard let shiftID else { throw missing("shiftID", path(), r, start) }
        guard let typeID else { throw missing("shiftTypeID", path(), r, start) }
        guard let symbol else { throw missing("symbol", path(), r, start) }
        guard let parsedDuration else { throw missing("duration", path(), r, start) }
        guard let date else { throw missing("date", path(), r, start) }
        return ShiftSnapshot(
            shiftID: ShiftID(shiftID), shiftTypeID: ShiftTypeID(typeID), symbol: symbol, title: title,
            duration: parsedDuration, date: date, locationID: locationID.map(LocationID.init), locationName: locationName,
            personID: personID.map(PersonID.init), personName: personName, notes: notes)
    }

    func logEntry(_ r: inout JSONReader, _ path: @autoclosure () -> String) throws(StorageError) -> ChangeLogEntry {
        let start = r.position
        var id: UUID?
        var timestamp: Date?
        var userId: String?
        var userName: String?
        var changeType: ChangeType?
        var date: LocalDate?
        var old: ShiftSnapshot?
        var new: ShiftSnapshot?
        var reason: String?
        var created: CreatedShifts?
        try r.readObject { r, key throws(StorageError) in
            switch key {
            case "id": id = try r.readUUID(path() + ".id")
            case "timestamp":
                let at = r.valueStart()
                let text = try r.readString()
                guard let parsed = Timestamp.parse(text) else {
                    throw r.error("\(path()).timestamp: '\(text)' is not a UTC timestamp (YYYY-MM-DDTHH:MM:SS.sssZ)", at: at)
                }
                timestamp = parsed
            case "userId": userId = try r.readString()
            case "userDisplayName": userName = try r.readString()
            case "changeType":
                let at = r.valueStart()
                let text = try r.readString()
                guard let parsed = ChangeType(rawValue: text) else { throw r.error("\(path()).changeType: '\(text)' is not a change type", at: at) }
                changeType = parsed
            case "scheduledShiftDate": date = try r.readDate(path() + ".scheduledShiftDate")
            case "oldShiftSnapshot": old = try snapshot(&r, path() + ".oldShiftSnapshot")
            case "newShiftSnapshot": new = try snapshot(&r, path() + ".newShiftSnapshot")
            case "reason": reason = try r.readString()
            case "createdShifts" where version >= 3: created = try createdShifts(&r, path() + ".createdShifts")
            default: throw unknown(key, path(), r)
            }
        }
        guard let id else { throw missing("id", path(), r, start) }
        guard let timestamp else { throw missing("timestamp", path(), r, start) }
        guard let userId else { throw missing("userId", path(), r, start) }
        guard let changeType else { throw missing("changeType", path(), r, start) }
        guard let date else { throw missing("scheduledShiftDate", path(), r, start) }
        return ChangeLogEntry(
            id: ChangeLogEntryID(id), timestamp: timestamp, userId: userId, userDisplayName: userName ?? userId,
            changeType: changeType, scheduledShiftDate: date, oldShiftSnapshot: old, newShiftSnapshot: new, reason: reason,
            createdShifts: created)
    }

    private func createdShifts(_ r: inout JSONReader, _ path: @autoclosure () -> String) throws(StorageError) -> CreatedShifts {
        let start = r.position
        var ids: [ShiftID]?
        var lastDate: LocalDate?
        try r.readObject { r, key throws(StorageError) in
            switch key {
            case "lastDate": lastDate = try r.readDate(path() + ".lastDate")
            case "shiftIDs":
                var read: [ShiftID] = []
                try r.readArray { r, index throws(StorageError) in read.append(ShiftID(try r.readUUID("\(path()).shiftIDs[\(index)]"))) }
                ids = read
            default: throw unknown(key, path(), r)
            }
        }
        guard let ids else { throw missing("shiftIDs", path(), r, start) }
        guard let lastDate else { throw missing("lastDate", path(), r, start) }
        return CreatedShifts(shiftIDs: ids, lastDate: lastDate)
    }
}
