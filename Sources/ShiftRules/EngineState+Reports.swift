import Foundation
import LuaHost
import ShiftCore

/// The report collector: what rules report, as violations, within the evaluation's limits.
extension EngineState {
    /// Takes one `report{…}` of the rule running now as a `Violation`, within the limits on
    /// what one call into a rule may report.
    func collect(_ report: LuaScheduleAPI.Report) throws {
        guard let running = currentRule ?? markedRule else { throw LuaScriptError("report can only be called while a rule runs") }
        let rule = running.info
        // Reports live in Swift memory, outside the Lua state's cap: a rule reporting in a loop
        // is stopped (and stays stopped for the rest of the call, even if it catches the error).
        // The bound is per call: a call covers at most a chunk of changes, a group of people or
        // a month of days, so a big messy roster is counted in full across its calls while a
        // flood inside one call still ends.
        reportedBytes += report.message.utf8.count + 64
        guard collected.count - callStart < maxReports, reportedBytes <= maxReportBytes else {
            if !reportOverflow { overflowRule = running }
            reportOverflow = true
            throw LuaScriptError(overflowMessage)
        }
        collected.append(Violation(
            ruleID: rule.id, severity: report.severity ?? rule.severity, message: report.isOneLine ? report.message : Self.oneLine(report.message),
            penalty: report.penalty, shiftID: report.shiftID, personID: report.personID, date: report.date,
            relatedShiftIDs: report.related, source: report.file ?? rule.file, line: report.line, shiftTypeID: report.shiftTypeID))
    }

    /// A violation message as one printable line: control characters (line breaks, terminal
    /// escape sequences) become spaces and very long messages are cut.
    static func oneLine(_ message: String) -> String {
        // The common case, short printable ASCII, is returned as it is.
        // (Over the string's own bytes: walking a `String.UTF8View` costs about 20 instructions a byte.)
        let bytes = message.utf8
        if bytes.count <= maxMessageLength,
           bytes.withContiguousStorageIfAvailable(isOneLine) ?? bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return message }
        var scalars = String.UnicodeScalarView()
        var count = 0
        for scalar in message.unicodeScalars {
            count += 1
            if count > maxMessageLength {
                scalars.append("…")
                break
            }
            scalars.append(scalar.properties.generalCategory == .control ? " " : scalar)
        }
        return String(scalars)
    }

    /// Whether a message is one line already: at most `maxMessageLength` bytes, each printable
    /// ASCII (0x20 to 0x7E). Eight bytes at a time: a byte is printable when its high bit is clear
    /// and stays clear once 0x20 is taken from it (none below 0x20) or 1 added (not 0x7F); a
    /// borrow only ever runs on from a byte that is not printable.
    static func isOneLine(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count <= maxMessageLength else { return false }
        let high: UInt64 = 0x8080_8080_8080_8080, spaces: UInt64 = 0x2020_2020_2020_2020, ones: UInt64 = 0x0101_0101_0101_0101
        var i = 0
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while i + 8 <= bytes.count {
                let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                if (word | (word &- spaces) | (word &+ ones)) & high != 0 { return false }
                i += 8
            }
        }
        while i < bytes.count {
            guard bytes[i] >= 0x20, bytes[i] < 0x7F else { return false }
            i += 1
        }
        return true
    }
}
