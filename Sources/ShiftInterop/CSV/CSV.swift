import Foundation
import ShiftCore

/// RFC 4180 text: fields separated by commas, records by CRLF (LF also read), fields holding a
/// comma, a quote, a line break or outer spaces quoted with `"` and quotes doubled.
enum CSV {
    /// One record and the line it starts on.
    struct Record {
        var fields: [String]
        var line: Int
    }

    static func field(_ text: String) -> String {
        let needsQuotes = text.contains { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
            || text.first == " " || text.last == " "
        return needsQuotes ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
    }

    /// `field` without the spaces and tabs around it (what `trimmingCharacters(in: .whitespaces)`
    /// gives: the tab, the Unicode space separators and U+200B), returned as it is when there are
    /// none, which is nearly always: a million-row import trims a few million fields.
    static func trimmed(_ field: String) -> String {
        func isSpace(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar.value {
            case 0x09, 0x20, 0xA0, 0x1680, 0x2000...0x200B, 0x202F, 0x205F, 0x3000: true
            default: false
            }
        }
        let scalars = field.unicodeScalars
        guard let first = scalars.first, let last = scalars.last, isSpace(first) || isSpace(last) else { return field }
        guard let start = scalars.firstIndex(where: { !isSpace($0) }), let end = scalars.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(scalars[start...end])
    }

    static func record(_ fields: [String]) -> String { fields.map(field).joined(separator: ",") + "\r\n" }

    /// The separator a file uses: `;` when its first line has semicolons and no comma (what
    /// spreadsheets write where the comma is the decimal mark), else `,`.
    static func separator(of text: String) -> Unicode.Scalar {
        let firstLine = text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline).first ?? ""
        return !firstLine.contains(",") && firstLine.contains(";") ? ";" : ","
    }

    /// Parses every record; blank lines are skipped.
    static func parse(_ text: String, separator: Unicode.Scalar = ",") throws(ImportFailure) -> [Record] {
        var records: [Record] = []
        var fields: [String] = []
        var field = ""
        var line = 1
        var recordLine = 1
        var quoted = false
        var quoteLine = 0
        var afterQuote = false
        var fieldStarted = false
        var scalars = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = scalars.next()

        func endRecord() {
            fields.append(field)
            if !(fields.count == 1 && fields[0].isEmpty && !fieldStarted) { records.append(Record(fields: fields, line: recordLine)) }
            fields = []
            field = ""
            afterQuote = false
            fieldStarted = false
        }

        while let scalar = pending {
            pending = scalars.next()
            if quoted {
                if scalar == "\"" {
                    if pending == "\"" {
                        field.unicodeScalars.append("\"")
                        pending = scalars.next()
                    } else {
                        quoted = false
                        afterQuote = true
                    }
                } else {
                    if scalar == "\n" { line += 1 }
                    field.unicodeScalars.append(scalar)
                }
                continue
            }
            switch scalar {
            case separator:
                fields.append(field)
                field = ""
                afterQuote = false
                fieldStarted = true
            case "\r" where pending == "\n":
                continue
            case "\n", "\r":
                endRecord()
                line += 1
                recordLine = line
            case "\"":
                guard field.isEmpty, !afterQuote else {
                    throw ImportFailure(line: line, "a quote inside a field; quote the whole field and double inner quotes (\"say \"\"hi\"\"\")")
                }
                quoted = true
                quoteLine = line
                fieldStarted = true
            default:
                guard !afterQuote else {
                    throw ImportFailure(line: line, "text after a closing quote; quote the whole field")
                }
                field.unicodeScalars.append(scalar)
                fieldStarted = true
            }
        }
        if quoted { throw ImportFailure(line: quoteLine, "a quoted field is never closed") }
        if !field.isEmpty || !fields.isEmpty || fieldStarted { endRecord() }
        return records
    }
}
