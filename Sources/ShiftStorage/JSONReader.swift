import ShiftCore
import Foundation

/// A JSON pull parser over bytes, made for reading large stores fast: no intermediate tree, no
/// per-value allocation for ids, dates and short keys. Errors carry the line and column.
struct JSONReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private(set) var position = 0
    private var depth = 0
    /// Where the key most recently read by `readObject` starts, for "unknown field" messages.
    private(set) var lastKeyPosition = 0
    let path: String
    /// Lines and columns before `bytes` (a section read apart from the file it is part of).
    var linesBefore = 0
    var columnsBefore = 0
    static let maximumDepth = 64

    init(bytes: UnsafeBufferPointer<UInt8>, path: String) {
        self.bytes = bytes
        self.path = path
    }

    /// A reader over the same bytes, positioned at `offset` (top-level sections are read out of order).
    init(rebasing other: JSONReader, at offset: Int) {
        self.bytes = other.bytes
        self.path = other.path
        self.position = offset
    }

    // MARK: Errors

    /// An error at the current position (or at `offset`).
    func error(_ reason: String, at offset: Int? = nil) -> StorageError {
        let end = min(offset ?? position, bytes.count)
        var line = 1
        var lineStart = 0
        for index in 0..<end where bytes[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        let column = String(decoding: UnsafeBufferPointer(rebasing: bytes[lineStart..<end]), as: UTF8.self).count + 1
            + (line == 1 ? columnsBefore : 0)
        return .corrupt(path: path, line: line + linesBefore, column: column, reason: reason)
    }

    // MARK: Tokens

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    /// The next significant byte without consuming it (0 at the end).
    mutating func peek() -> UInt8 {
        skipWhitespace()
        return position < bytes.count ? bytes[position] : 0
    }

    mutating func expect(_ byte: UInt8, _ what: @autoclosure () -> String) throws(StorageError) {
        guard peek() == byte else { throw error("expected \(what()), found \(describeNext())") }
        position += 1
    }

    func describeNext() -> String {
        guard position < bytes.count else { return "the end of the file" }
        let byte = bytes[position]
        if byte >= 0x20 && byte < 0x7F { return "'\(Character(UnicodeScalar(byte)))'" }
        return "byte 0x" + String(byte, radix: 16)
    }

    /// Skips whitespace and returns where the next value starts (for error positions).
    mutating func valueStart() -> Int {
        skipWhitespace()
        return position
    }

    mutating func atEnd() -> Bool { peek() == 0 && position >= bytes.count }

    // MARK: Containers

    /// Reads an object, calling `body` with each key; `body` must read the value.
    mutating func readObject(_ body: (inout JSONReader, String) throws(StorageError) -> Void) throws(StorageError) {
        try expect(UInt8(ascii: "{"), "an object ('{')")
        depth += 1
        guard depth <= JSONReader.maximumDepth else { throw error("nesting deeper than \(JSONReader.maximumDepth) levels", at: position - 1) }
        if peek() == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return
        }
        while true {
            guard peek() == UInt8(ascii: "\"") else { throw error("expected a key in quotes, found \(describeNext())") }
            lastKeyPosition = position
            let key = try readString()
            try expect(UInt8(ascii: ":"), "':' after the key \"\(key)\"")
            try body(&self, key)
            switch peek() {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                depth -= 1
                return
            default: throw error("expected ',' or '}' in an object, found \(describeNext())")
            }
        }
    }

    /// Reads an array, calling `body` with the element index; `body` must read the element.
    mutating func readArray(_ body: (inout JSONReader, Int) throws(StorageError) -> Void) throws(StorageError) {
        try expect(UInt8(ascii: "["), "an array ('[')")
        depth += 1
        guard depth <= JSONReader.maximumDepth else { throw error("nesting deeper than \(JSONReader.maximumDepth) levels", at: position - 1) }
        if peek() == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return
        }
        var index = 0
        while true {
            try body(&self, index)
            index += 1
            switch peek() {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                depth -= 1
                return
            default: throw error("expected ',' or ']' in an array, found \(describeNext())")
            }
        }
    }

    /// Moves to `offset`, for a caller that knows what lies between (a section left unread).
    mutating func move(to offset: Int) {
        position = offset
    }

    /// Skips an array or object without reading it: only strings and brackets are followed, so
    /// this is one pass over the bytes (a change log left for later). A string's end is found
    /// with `memchr` (a quote not preceded by an odd run of backslashes). Returns where it ends.
    mutating func skipContainer() throws(StorageError) -> Int {
        let start = valueStart()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "[") || bytes[position] == UInt8(ascii: "{") else {
            throw error("expected an array or object, found \(describeNext())")
        }
        let base = bytes.baseAddress!
        let count = bytes.count
        var depth = 0
        var index = position
        while index < count {
            switch base[index] {
            case UInt8(ascii: "\""):
                var from = index + 1
                while true {
                    guard from < count, let found = memchr(base + from, Int32(UInt8(ascii: "\"")), count - from) else {
                        throw error("unterminated string", at: index)
                    }
                    let quote = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                    var backslashes = 0
                    while quote - backslashes - 1 > index, base[quote - backslashes - 1] == UInt8(ascii: "\\") { backslashes += 1 }
                    from = quote + 1
                    if backslashes % 2 == 0 { break }
                }
                index = from
                continue
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth -= 1
                if depth == 0 {
                    position = index + 1
                    return position
                }
            default:
                break
            }
            index += 1
        }
        throw error("the value that starts here does not end", at: start)
    }

    /// Skips any value, checking that it is well-formed.
    mutating func skipValue() throws(StorageError) {
        switch peek() {
        case UInt8(ascii: "{"): try readObject { reader, _ throws(StorageError) in try reader.skipValue() }
        case UInt8(ascii: "["): try readArray { reader, _ throws(StorageError) in try reader.skipValue() }
        case UInt8(ascii: "\""): try skipString()
        case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try readBool()
        case UInt8(ascii: "n"): try readNull()
        default: _ = try readNumber()
        }
    }

    // MARK: Scalars

    mutating func readNull() throws(StorageError) {
        try literal("null")
    }

    mutating func readBool() throws(StorageError) -> Bool {
        switch peek() {
        case UInt8(ascii: "t"): try literal("true"); return true
        case UInt8(ascii: "f"): try literal("false"); return false
        default: throw error("expected true or false, found \(describeNext())")
        }
    }

    private mutating func literal(_ word: StaticString) throws(StorageError) {
        _ = peek()
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count,
              memcmp(bytes.baseAddress! + position, word.utf8Start, count) == 0 else {
            throw error("expected \(word), found \(describeNext())")
        }
        position += count
    }

    mutating func readNumber() throws(StorageError) -> Double {
        _ = peek()
        let start = position
        var isInteger = true
        var integer: Int64 = 0
        var negative = false
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") {
            negative = true
            position += 1
        }
        let digitsStart = position
        while position < bytes.count, bytes[position] >= 48, bytes[position] <= 57 {
            if integer < 100_000_000_000_000 { integer = integer * 10 + Int64(bytes[position] - 48) } else { isInteger = false }
            position += 1
        }
        guard position > digitsStart else { throw error("expected a value, found \(describeNext())", at: start) }
        if bytes[digitsStart] == 48, position - digitsStart > 1 { throw error("numbers cannot have leading zeros", at: start) }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            let fractionStart = position
            while position < bytes.count, bytes[position] >= 48, bytes[position] <= 57 { position += 1 }
            guard position > fractionStart else { throw error("expected digits after '.'") }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            let exponentStart = position
            while position < bytes.count, bytes[position] >= 48, bytes[position] <= 57 { position += 1 }
            guard position > exponentStart else { throw error("expected digits in the exponent") }
        }
        if isInteger { return Double(negative ? -integer : integer) }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw error("'\(text)' is not a finite number", at: start) }
        return value
    }

    mutating func readInt(_ what: @autoclosure () -> String) throws(StorageError) -> Int {
        let start = valueStart()
        let next = peek()
        guard next == UInt8(ascii: "-") || (48...57).contains(next) else {
            throw error("\(what()) must be a whole number, found \(describeNext())", at: start)
        }
        let value = try readNumber()
        guard value.rounded() == value, abs(value) < 1e15 else { throw error("\(what()) must be a whole number", at: start) }
        return Int(value)
    }

    /// The bytes inside the quotes of a string without escapes (no copy), or nil, with the
    /// position unchanged, when the string has escapes.
    private mutating func readPlainStringBytes() throws(StorageError) -> UnsafeBufferPointer<UInt8>? {
        try expect(UInt8(ascii: "\""), "a string")
        let start = position
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return UnsafeBufferPointer(rebasing: bytes[start..<(position - 1)])
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error("control character in a string (escape it)") }
            position += 1
        }
        guard position < bytes.count else { throw error("unterminated string", at: start - 1) }
        position = start - 1
        return nil
    }

    /// Calls `body` with the string's bytes, decoding escapes only when there are any.
    mutating func withStringBytes<T>(_ body: (UnsafeBufferPointer<UInt8>) throws(StorageError) -> T) throws(StorageError) -> T {
        if let plain = try readPlainStringBytes() { return try body(plain) }
        let decoded = Array(try readString().utf8)
        return try decoded.withUnsafeBufferPointer { buffer throws(StorageError) in try body(buffer) }
    }

    /// Skips a string without building it (escapes are stepped over, not decoded).
    mutating func skipString() throws(StorageError) {
        let start = valueStart()
        try expect(UInt8(ascii: "\""), "a string")
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            if byte == UInt8(ascii: "\"") { return }
            if byte == UInt8(ascii: "\\") { position += 1 } else if byte < 0x20 {
                throw error("control character in a string (escape it)", at: position - 1)
            }
        }
        throw error("unterminated string", at: start)
    }

    /// Reads a string value, decoding escapes and validating UTF-8.
    mutating func readString() throws(StorageError) -> String {
        let start = valueStart()
        if let plain = try readPlainStringBytes() { return try makeString(plain, at: start) }
        try expect(UInt8(ascii: "\""), "a string")
        var scratch: [UInt8] = []
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                return try scratch.withUnsafeBufferPointer { buffer throws(StorageError) in try makeString(buffer, at: start) }
            case UInt8(ascii: "\\"):
                guard position < bytes.count else { break }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""): scratch.append(0x22)
                case UInt8(ascii: "\\"): scratch.append(0x5C)
                case UInt8(ascii: "/"): scratch.append(0x2F)
                case UInt8(ascii: "b"): scratch.append(0x08)
                case UInt8(ascii: "f"): scratch.append(0x0C)
                case UInt8(ascii: "n"): scratch.append(0x0A)
                case UInt8(ascii: "r"): scratch.append(0x0D)
                case UInt8(ascii: "t"): scratch.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try readHex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                            throw error("unpaired surrogate in \\u escape")
                        }
                        position += 2
                        let low = try readHex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate in \\u escape") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        throw error("unpaired surrogate in \\u escape")
                    }
                    scratch.append(contentsOf: String(Character(UnicodeScalar(scalar)!)).utf8)
                default:
                    throw error("invalid escape '\\\(Character(UnicodeScalar(escape)))'", at: position - 2)
                }
            default:
                if byte < 0x20 { throw error("control character in a string (escape it)", at: position - 1) }
                scratch.append(byte)
            }
        }
        throw error("unterminated string", at: start)
    }

    private mutating func readHex4() throws(StorageError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt32
            switch byte {
            case 48...57: digit = UInt32(byte - 48)
            case 97...102: digit = UInt32(byte - 87)
            case 65...70: digit = UInt32(byte - 55)
            default: throw error("invalid hex digit in \\u escape")
            }
            value = value << 4 | digit
            position += 1
        }
        return value
    }

    private func makeString(_ raw: UnsafeBufferPointer<UInt8>, at start: Int) throws(StorageError) -> String {
        var ascii = true
        for byte in raw where byte >= 0x80 {
            ascii = false
            break
        }
        if ascii { return String(decoding: raw, as: UTF8.self) }
        guard let text = String(validating: raw, as: UTF8.self) else { throw error("invalid UTF-8 in a string", at: start) }
        return text
    }

    // MARK: Typed values

    mutating func readUUID(_ what: @autoclosure () -> String) throws(StorageError) -> UUID {
        let start = valueStart()
        if let uuid = try withStringBytes({ UUID(asciiBytes: $0) }) { return uuid }
        throw error("\(what()): \(describeValue(at: start)) is not a UUID", at: start)
    }

    mutating func readDate(_ what: @autoclosure () -> String) throws(StorageError) -> LocalDate {
        let start = valueStart()
        if let date = try withStringBytes({ LocalDate(isoBytes: $0) }) { return date }
        throw error("\(what()): \(describeValue(at: start)) is not a date (expected an existing YYYY-MM-DD)", at: start)
    }

    /// The string that starts at `offset`, quoted and shortened, for messages.
    func describeValue(at offset: Int) -> String {
        var copy = self
        copy.position = offset
        guard let text = try? copy.readString() else { return "the value" }
        return "'" + (text.count > 40 ? text.prefix(40) + "…" : text) + "'"
    }
}
