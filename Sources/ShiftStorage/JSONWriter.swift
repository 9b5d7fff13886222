import Foundation
import ShiftCore

/// Appends JSON to a byte buffer. Keys are written in the order the caller gives them, so the
/// output is stable from one save to the next.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []
    private var needsComma: [Bool] = []

    init(capacity: Int = 4096) { bytes.reserveCapacity(capacity) }

    mutating func raw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    // MARK: Compact objects (one line)

    mutating func beginObject() {
        bytes.append(UInt8(ascii: "{"))
        needsComma.append(false)
    }

    mutating func endObject() {
        needsComma.removeLast()
        bytes.append(UInt8(ascii: "}"))
    }

    mutating func beginArray() {
        bytes.append(UInt8(ascii: "["))
        needsComma.append(false)
    }

    mutating func endArray() {
        needsComma.removeLast()
        bytes.append(UInt8(ascii: "]"))
    }

    /// Starts a value inside the current container (a comma when it is not the first).
    mutating func element() {
        if needsComma[needsComma.count - 1] {
            bytes.append(UInt8(ascii: ","))
            bytes.append(UInt8(ascii: " "))
        }
        needsComma[needsComma.count - 1] = true
    }

    mutating func key(_ name: StaticString) {
        element()
        bytes.append(UInt8(ascii: "\""))
        raw(name)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        bytes.append(UInt8(ascii: " "))
    }

    mutating func key(dynamic name: String) {
        element()
        string(name)
        bytes.append(UInt8(ascii: ":"))
        bytes.append(UInt8(ascii: " "))
    }

    // MARK: Scalars

    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var runStart = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\"))
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                default:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: [UInt8(ascii: "u"), 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 15)]])
                }
                runStart = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func uuid(_ value: UUID) {
        bytes.append(UInt8(ascii: "\""))
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: 36))
        bytes.withUnsafeMutableBufferPointer { value.writeLowercased(into: $0.baseAddress! + start) }
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func date(_ value: LocalDate) {
        bytes.append(UInt8(ascii: "\""))
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: 10))
        bytes.withUnsafeMutableBufferPointer { value.write(into: $0.baseAddress! + start) }
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func number(_ value: Double) {
        if value.rounded() == value, abs(value) < 1e15 {
            bytes.append(contentsOf: String(Int64(value)).utf8)
        } else {
            bytes.append(contentsOf: "\(value)".utf8)
        }
    }

    mutating func int(_ value: Int) { bytes.append(contentsOf: String(value).utf8) }

    mutating func bool(_ value: Bool) {
        if value { raw("true") } else { raw("false") }
    }

    mutating func attribute(_ value: AttributeValue) {
        switch value {
        case let .string(text): string(text)
        case let .number(number): self.number(number)
        case let .bool(flag): bool(flag)
        case let .list(items):
            beginArray()
            for item in items {
                element()
                attribute(item)
            }
            endArray()
        }
    }

    /// Attributes with keys in sorted order.
    mutating func attributes(_ values: Attributes) {
        beginObject()
        for key in values.keys.sorted() {
            self.key(dynamic: key)
            attribute(values[key]!)
        }
        endObject()
    }

    // MARK: Pretty layout

    mutating func newline(indent: Int) {
        bytes.append(UInt8(ascii: "\n"))
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent))
    }

    /// A top-level section: `"name": [` then one element per line, then `]`.
    /// - Returns: where the array lies in `bytes`, from `[` to `]`.
    @discardableResult
    mutating func section<C: Collection>(
        _ name: StaticString, _ items: C, last: Bool = false, _ write: (inout JSONWriter, C.Element) -> Void
    ) -> Range<Int> {
        newline(indent: 2)
        bytes.append(UInt8(ascii: "\""))
        raw(name)
        raw("\": ")
        let start = bytes.count
        bytes.append(UInt8(ascii: "["))
        var first = true
        for item in items {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            newline(indent: 4)
            write(&self, item)
        }
        if !items.isEmpty { newline(indent: 2) }
        bytes.append(UInt8(ascii: "]"))
        let end = bytes.count
        if !last { bytes.append(UInt8(ascii: ",")) }
        return start..<end
    }
}
