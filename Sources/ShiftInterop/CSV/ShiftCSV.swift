import Foundation
import ShiftCore

/// Shifts as CSV, one row per shift, for spreadsheets and bulk edits.
///
/// Columns (the header row names them; `date,type,person` are required, the rest optional and
/// in any order), separated by commas, or by semicolons when the header has no comma:
///
/// | column | export | import |
/// |---|---|---|
/// | `date` | `YYYY-MM-DD`, the day the shift starts | required |
/// | `type` | the shift type's symbol | by symbol (exact, else ignoring case) |
/// | `person` | the person's name, empty for an open shift | by name (exact, else ignoring case); empty: open |
/// | `notes` | the shift's notes | the shift's notes |
/// | `location` | the shift type's location | ignored (it follows from the type) |
/// | `id` | the shift's id | a known id updates that shift; a new one adds it with that id; empty: a new id |
public enum ShiftCSV {
    public static let columns = ["date", "type", "person", "notes", "location", "id"]
    static let required = ["date", "type", "person"]

    /// The header and one row per selected shift, CRLF line ends.
    public static func export(_ schedule: Schedule, selection: ShiftSelection = ShiftSelection()) -> String {
        var out = CSV.record(columns)
        for shift in selection.shifts(in: schedule) {
            let type = schedule.shiftType(shift.shiftTypeID)
            let location = type?.locationID.flatMap { schedule.location($0) }
            out += CSV.record([
                shift.date.description, type?.symbol ?? "", shift.personID.flatMap { schedule.person($0)?.displayName } ?? "",
                shift.notes ?? "", location?.name ?? "", shift.id.description,
            ])
        }
        return out
    }

    /// What importing CSV text into a schedule would add and update.
    /// - Parameters:
    ///   - makeID: ids for rows without one.
    ///   - progress: hears (rows read, rows in all) at each whole percent.
    /// - Throws: `ImportFailure` listing every bad row with its line (unknown types or people,
    ///   bad dates, wrong field counts) or a bad header.
    public static func plan(
        _ text: String, into schedule: Schedule, makeID: @Sendable () -> ShiftID = { ShiftID(UUID.random()) },
        progress: ((Int, Int) -> Void)? = nil
    ) throws(ImportFailure) -> ShiftImportPlan {
        let body = text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
        var records = try CSV.parse(body, separator: CSV.separator(of: body))
        guard !records.isEmpty else { throw ImportFailure(line: 1, "empty file; the first line must be a header such as date,type,person") }
        let header = records.removeFirst()
        let names = header.fields.map { CSV.trimmed($0).lowercased() }
        var column: [String: Int] = [:]
        for (index, name) in names.enumerated() {
            guard columns.contains(name) else {
                let hint = name.contains("\t") ? "; separate the columns with commas or semicolons, not tabs" : ""
                throw ImportFailure(line: header.line, "unknown column '\(header.fields[index])' (columns: \(columns.joined(separator: ",")))\(hint)")
            }
            guard column[name] == nil else { throw ImportFailure(line: header.line, "column '\(name)' appears twice") }
            column[name] = index
        }
        let missing = required.filter { column[$0] == nil }
        guard missing.isEmpty else {
            throw ImportFailure(line: header.line, "missing column\(missing.count == 1 ? "" : "s") \(missing.joined(separator: ", ")) (the header needs at least date,type,person)")
        }

        let lookup = NameLookup(schedule: schedule)
        var shifts: [ScheduledShift] = []
        var problems: [ImportProblem] = []
        var seen: [ShiftID: Int] = [:]
        var made: Set<ShiftID> = []
        let step = max(1, records.count / 100)
        for (index, record) in records.enumerated() {
            if let progress, index % step == 0 { progress(index, records.count) }
            guard record.fields.count == names.count else {
                problems.append(ImportProblem(line: record.line, message: "\(record.fields.count) fields, the header has \(names.count)"))
                continue
            }
            let fields = record.fields.map(CSV.trimmed)
            func value(_ name: String) -> String { column[name].map { fields[$0] } ?? "" }
            var rowProblems: [String] = []
            let date = LocalDate(value("date"))
            if date == nil { rowProblems.append("date: '\(value("date"))' is not a date (YYYY-MM-DD)") }
            let type = lookup.shiftType(symbol: value("type"))
            if type == nil { rowProblems.append("type: no shift type '\(value("type"))' (have: \(lookup.symbolList))") }
            var person: Person?
            if !value("person").isEmpty {
                do throws(NameProblem) { person = try lookup.person(value("person")) } catch { rowProblems.append("person: " + error.message) }
            }
            var id: ShiftID?
            if !value("id").isEmpty {
                id = ShiftID(value("id"))
                if id == nil { rowProblems.append("id: '\(value("id"))' is not a shift id (a UUID, or leave it empty)") }
            }
            guard rowProblems.isEmpty, let date, let type else {
                problems += rowProblems.map { ImportProblem(line: record.line, message: $0) }
                continue
            }
            let shiftID = id ?? makeID()
            if id == nil { made.insert(shiftID) }
            if let previous = seen[shiftID] {
                problems.append(ImportProblem(line: record.line, message: "id \(shiftID) is also used on line \(previous)"))
                continue
            }
            seen[shiftID] = record.line
            let notes = column["notes"].map { record.fields[$0] }.flatMap { $0.isEmpty ? nil : $0 }
            var shift = (id == nil ? nil : schedule.shift(shiftID)) ?? ScheduledShift(id: shiftID, shiftTypeID: type.id, date: date)
            shift.shiftTypeID = type.id
            shift.date = date
            shift.personID = person?.id
            if column["notes"] != nil { shift.notes = notes }
            shifts.append(shift)
        }
        guard problems.isEmpty else { throw ImportFailure(problems) }
        return ShiftImportPlan(merging: shifts, into: schedule, new: made)
    }
}
