import ShiftCore

/// The text rules of RFC 5545: escaping TEXT values, folding long lines at 75 octets, and the
/// date and time forms. Written by hand (no Foundation formatters): exports run over every shift.
enum ICSText {
    /// Escapes a TEXT value (RFC 5545 §3.3.11): `\` `;` `,` and line breaks.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case ";": out += "\\;"
            case ",": out += "\\,"
            case "\r": out += "\\n"
            case "\n": if !previousWasCR { out += "\\n" }
            default:
                // Other control characters are not allowed in a content line.
                if scalar.value < 0x20 && scalar != "\t" || scalar.value == 0x7F { out += " " } else { out.unicodeScalars.append(scalar) }
            }
            previousWasCR = scalar == "\r"
        }
        return out
    }

    /// Reverses `escape`; an unknown escape keeps the character after the backslash.
    static func unescape(_ text: String) -> String {
        guard text.contains("\\") else { return text }
        var out = ""
        var escaped = false
        for character in text {
            if escaped {
                out.append(character == "n" || character == "N" ? "\n" : character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                out.append(character)
            }
        }
        if escaped { out.append("\\") }
        return out
    }

    /// Folds a content line into lines of at most 75 octets (continuations start with a space),
    /// never inside a UTF-8 sequence, each ended by CRLF.
    static func fold(_ line: String, into out: inout String) {
        var count = 0
        for scalar in line.unicodeScalars {
            let width = UTF8.width(scalar)
            if count + width > 75 {
                out += "\r\n "
                count = 1
            }
            out.unicodeScalars.append(scalar)
            count += width
        }
        out += "\r\n"
    }

    // MARK: Dates and times

    /// `20260328`.
    static func date(_ date: LocalDate) -> String {
        let (year, month, day) = date.components
        return pad(year, 4) + pad(month, 2) + pad(day, 2)
    }

    /// `20260328T190000` for a local date and a second of the day.
    static func local(_ date: LocalDate, second: Int) -> String {
        Self.date(date) + "T" + pad(second / 3600, 2) + pad(second / 60 % 60, 2) + pad(second % 60, 2)
    }

    /// `20260328T180000Z` for an instant.
    static func utc(_ seconds: Int64) -> String {
        let (date, second) = split(seconds)
        return local(date, second: second) + "Z"
    }

    /// The date and second of the day of seconds since 1970 (no time zone applied).
    static func split(_ seconds: Int64) -> (LocalDate, Int) {
        let day = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        return (LocalDate(dayNumber: Int32(day)), Int(seconds - day * 86_400))
    }

    /// `+0100`, `-0330`, `+053328` (seconds only when there are any).
    static func offset(_ seconds: Int) -> String {
        let sign = seconds < 0 ? "-" : "+"
        let value = abs(seconds)
        return sign + pad(value / 3600, 2) + pad(value / 60 % 60, 2) + (value % 60 == 0 ? "" : pad(value % 60, 2))
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
