import ShiftCore

/// One unfolded content line: `NAME;PARAM=value:VALUE`, with the line it starts on.
struct ContentLine: Sendable {
    /// Upper-cased property name.
    var name: String
    /// Upper-cased parameter names → their (first) value, quotes removed.
    var parameters: [String: String]
    /// The raw value (still escaped for TEXT properties).
    var value: String
    var line: Int
}

/// A `BEGIN:X` … `END:X` block with its properties and nested blocks.
struct Component: Sendable {
    var name: String
    var line: Int
    var properties: [ContentLine] = []
    var children: [Component] = []

    func first(_ name: String) -> ContentLine? { properties.first { $0.name == name } }
}

/// Reads iCalendar text (RFC 5545) into components: unfolds lines, splits names, parameters and
/// values, and checks that `BEGIN` and `END` pair up. Errors name the line.
enum ICalendarParser {
    static func parse(_ text: String) throws(ImportFailure) -> Component {
        var stack: [Component] = []
        var root: Component?
        for line in try contentLines(text) {
            if line.name == "BEGIN" {
                guard root == nil else { throw ImportFailure(line: line.line, "content after END:VCALENDAR") }
                let name = line.value.uppercased()
                if stack.isEmpty, name != "VCALENDAR" {
                    throw ImportFailure(line: line.line, "expected BEGIN:VCALENDAR, found BEGIN:\(line.value)")
                }
                stack.append(Component(name: name, line: line.line))
            } else if line.name == "END" {
                guard let open = stack.popLast() else { throw ImportFailure(line: line.line, "END:\(line.value) without a BEGIN") }
                guard open.name == line.value.uppercased() else {
                    throw ImportFailure(line: line.line, "END:\(line.value) closes BEGIN:\(open.name) of line \(open.line)")
                }
                if stack.isEmpty { root = open } else { stack[stack.count - 1].children.append(open) }
            } else {
                guard !stack.isEmpty else {
                    throw ImportFailure(line: line.line, root == nil ? "expected BEGIN:VCALENDAR, found \(line.name)" : "content after END:VCALENDAR")
                }
                stack[stack.count - 1].properties.append(line)
            }
        }
        if let open = stack.last { throw ImportFailure(line: open.line, "BEGIN:\(open.name) is never closed (END:\(open.name) missing)") }
        guard let root else { throw ImportFailure(line: nil, "not an iCalendar file: no BEGIN:VCALENDAR") }
        return root
    }

    /// Unfolds physical lines (CRLF or LF; a line starting with a space or tab continues the one
    /// before) and parses each content line.
    static func contentLines(_ text: String) throws(ImportFailure) -> [ContentLine] {
        var result: [ContentLine] = []
        var current = ""
        var currentLine = 0
        var number = 0
        func flush() throws(ImportFailure) {
            if !current.isEmpty { result.append(try parse(line: current, number: currentLine)) }
        }
        // Split on bytes: "\r\n" is one Character, which a split on "\n" would not see.
        for raw in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            var line = Substring(String(decoding: raw, as: UTF8.self))
            if line.utf8.last == UInt8(ascii: "\r") { line = Substring(String(decoding: raw.dropLast(), as: UTF8.self)) }
            if let first = line.first, first == " " || first == "\t" {
                guard !current.isEmpty else { throw ImportFailure(line: number, "a continuation line with nothing to continue") }
                current += line.dropFirst()
                continue
            }
            try flush()
            current = String(line)
            currentLine = number
        }
        try flush()
        return result
    }

    /// `NAME *(;PARAM=VALUE[,VALUE]) : VALUE`; parameter values may be quoted.
    static func parse(line text: String, number: Int) throws(ImportFailure) -> ContentLine {
        let characters = Array(text.unicodeScalars)
        var index = 0
        func word() -> String {
            var out = ""
            while index < characters.count, characters[index] != ";", characters[index] != ":", characters[index] != "=" {
                out.unicodeScalars.append(characters[index])
                index += 1
            }
            return out
        }
        let name = word().uppercased()
        guard !name.isEmpty, name.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || $0 == "-" || ("0"..."9").contains($0) }) else {
            throw ImportFailure(line: number, "expected NAME:VALUE, found '\(text.prefix(40))'")
        }
        var parameters: [String: String] = [:]
        while index < characters.count, characters[index] == ";" {
            index += 1
            let key = word().uppercased()
            guard index < characters.count, characters[index] == "=", !key.isEmpty else {
                throw ImportFailure(line: number, "\(name): a parameter without '=' in '\(text.prefix(60))'")
            }
            index += 1
            var value = ""
            var first = true
            repeat {
                if !first { index += 1 } // the comma between values
                var part = ""
                if index < characters.count, characters[index] == "\"" {
                    index += 1
                    while index < characters.count, characters[index] != "\"" { part.unicodeScalars.append(characters[index]); index += 1 }
                    guard index < characters.count else { throw ImportFailure(line: number, "\(name): an unterminated quoted parameter value") }
                    index += 1
                } else {
                    while index < characters.count, characters[index] != ";", characters[index] != ":", characters[index] != "," {
                        part.unicodeScalars.append(characters[index])
                        index += 1
                    }
                }
                if first { value = part }
                first = false
            } while index < characters.count && characters[index] == ","
            parameters[key] = parameters[key] ?? value
        }
        guard index < characters.count, characters[index] == ":" else {
            throw ImportFailure(line: number, "\(name): expected ':' before the value")
        }
        var value = ""
        value.unicodeScalars.append(contentsOf: characters[(index + 1)...])
        return ContentLine(name: name, parameters: parameters, value: value, line: number)
    }
}
