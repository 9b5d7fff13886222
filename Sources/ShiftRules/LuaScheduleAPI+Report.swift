import Foundation
import LuaHost
import ShiftCore

// `report{…}`: how a rule's finding reaches the engine.

extension LuaScheduleAPI {
    /// A `report{…}` call as the engine receives it.
    struct Report {
        var message: String
        var severity: Violation.Severity?
        var penalty: Double?
        var shiftID: ShiftID?
        var personID: PersonID?
        var shiftTypeID: ShiftTypeID?
        var date: LocalDate?
        var related: [ShiftID]
        /// The message is known to be one printable line (`EngineState.isOneLine`).
        var isOneLine = false
        /// The file and line of the `report` call (nil when it was not made from a file's code).
        var file: String?
        var line: Int32 = 0
    }

    /// The fields `report{…}` reads, in the order `report` takes them.
    private static let reportFields = LuaFieldNames(["message", "severity", "penalty", "shift", "person", "date", "related", "type"])

    /// `report`: a record function (`LuaRuntime.makeRecordFunction`), so that `report{…}` with a
    /// plain table, the one call a whole-schedule check makes per finding, has its fields read in
    /// C and handed over without a host call's arguments; a message alone, or a table with a
    /// metatable, comes through `report(_:)`.
    func makeReportFunction() throws -> LuaValue {
        .function(try runtime.makeRecordFunction(name: "report", fields: Self.reportFields, record: { [unowned self] fields in
            try report(fields)
        }, otherwise: { [unowned self] args in
            try report(args)
            return []
        }))
    }

    private func report(_ args: LuaArguments) throws {
        guard let sink = reportSink else { throw LuaScriptError("report can only be called while a rule runs") }
        guard args.isTable(0) else {
            guard case let .string(message) = try args.value(0) else {
                throw LuaScriptError("report expects a table: report{ message = \"…\", shift = s }")
            }
            var result = Report(message: message, related: [])
            cite(args.caller(), in: &result)
            try sink(result)
            return
        }
        try args.withFields(0, Self.reportFields) { try report($0) }
    }

    /// `report{…}`'s fields (other keys are ignored).
    private func report(_ table: LuaFields) throws {
        guard let sink = reportSink else { throw LuaScriptError("report can only be called while a rule runs") }
        // The usual message, one line of ASCII, is checked once here and made a string as it is.
        var isOneLine = false
        var message = table.withBytes(0) { bytes in
            isOneLine = EngineState.isOneLine(bytes)
            return isOneLine ? String(decoding: bytes, as: UTF8.self) : nil
        } ?? nil
        if message == nil { message = try table.value(0).stringValue }
        guard let message else { throw LuaScriptError("report: 'message' is required (a string)") }
        var result = Report(message: message, related: [], isOneLine: isOneLine)
        cite(table.caller(), in: &result)
        if !table.isNil(1) {
            guard case let .string(text) = try table.value(1) else { throw LuaScriptError("report: severity must be a string") }
            guard let level = Violation.Severity(rawValue: text) else {
                throw LuaScriptError("report: severity must be \"error\", \"warning\" or \"penalty\", not \"\(text)\"")
            }
            result.severity = level
        }
        if !table.isNil(2) {
            guard let amount = table.number(2), amount.isFinite else { throw LuaScriptError("report: penalty must be a number") }
            result.penalty = amount
        }
        if let object = table.object(3), let shift = try shiftSummary(of: object) {
            result.shiftID = shift.id
            result.personID = shift.person
            result.date = shift.date
        } else if !table.isNil(3) {
            throw LuaScriptError("report: 'shift' must be a shift view")
        }
        if !table.isNil(4) { result.personID = try personID(try table.value(4), "report: person") }
        if !table.isNil(5) { result.date = try date(try table.value(5), "report: date") }
        if let object = table.object(6) {
            if let shift = try shiftSummary(of: object) { result.related = [shift.id] }
        } else if !table.isNil(6) {
            guard case let .table(list) = try table.value(6) else {
                throw LuaScriptError("report: 'related' must be a shift view or a list of them")
            }
            for item in list.array {
                guard case let .object(object) = item, let shift = try shiftSummary(of: object) else {
                    throw LuaScriptError("report: 'related' must be a shift view or a list of them")
                }
                result.related.append(shift.id)
            }
        }
        if !table.isNil(7) { result.shiftTypeID = try shiftTypeID(try table.value(7), "report: type") }
        try sink(result)
    }

    /// The file and line of a `report` call. The file's name is made a string only when it is
    /// not the one the last call came from (a rule's findings come from one or two files).
    private func cite(_ site: LuaCallSite, in report: inout Report) {
        guard site.line > 0 else { return }
        let chunk = site.chunk
        if chunk.count != reportChunk.bytes.count
            || !reportChunk.bytes.withUnsafeBytes({ memcmp($0.baseAddress!, chunk.baseAddress!, chunk.count) == 0 }) {
            reportChunk = (Array(chunk), String(decoding: chunk, as: UTF8.self))
        }
        report.file = reportChunk.name
        report.line = Int32(clamping: site.line)
    }
}
