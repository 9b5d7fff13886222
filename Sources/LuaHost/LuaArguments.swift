import CLua
import CLuaShim
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif


extension lh_value {
    /// `body` over a string value's bytes (the caller has checked it is one).
    @inlinable
    func withBytes<T>(_ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
        try body(UnsafeBufferPointer(start: UnsafeRawPointer(s)?.assumingMemoryBound(to: UInt8.self), count: len))
    }
}

/// Decodes Lua string bytes: ASCII (nearly every key and value a rule passes) without the
/// validating decoder's cost; other bytes validated as UTF-8 (nil when they are not).
@inline(__always)
func decodeUTF8(_ raw: UnsafeRawBufferPointer) -> String? {
    var isASCII = true
    for byte in raw where byte >= 0x80 {
        isASCII = false
        break
    }
    if isASCII { return String(decoding: raw, as: UTF8.self) }
    return String(validating: raw, as: UTF8.self)
}

/// The arguments of a host-function call. Valid only during the call.
/// Indices are 0-based (`value(0)` is Lua's first argument).
public struct LuaArguments {
    unowned(unsafe) let runtime: LuaRuntime
    let L: OpaquePointer
    let base: UnsafePointer<lh_value>?
    /// Number of arguments.
    public let count: Int
    /// Which host function this is (its name is looked up only for error messages).
    let functionIndex: Int
    /// Name the function was registered under (used in error messages).
    public var functionName: String { runtime.functionNames[functionIndex] }

    private func raw(_ i: Int) -> lh_value? {
        guard i >= 0 && i < count, let base else { return nil }
        return base[i]
    }

    private func bad(_ i: Int, _ expected: String) -> LuaScriptError {
        LuaScriptError("bad argument #\(i + 1) to '\(functionName)' (\(expected) expected, got \(typeName(i)))")
    }

    /// Lua type name of argument `i` ("no value" past the end).
    public func typeName(_ i: Int) -> String {
        guard let v = raw(i) else { return "no value" }
        switch Int32(v.kind) {
        case LH_NIL: return "nil"
        case LH_BOOLEAN: return "boolean"
        case LH_INTEGER, LH_NUMBER: return "number"
        case LH_STRING: return "string"
        case LH_TABLE: return "table"
        case LH_FUNCTION: return "function"
        case LH_OBJECT: return "userdata"
        default: return String(cString: lua_typename(L, lua_type(L, v.aux)))
        }
    }

    /// Converts argument `i` (tables are deep-copied; `.nil` past the end).
    public func value(_ i: Int) throws -> LuaValue {
        guard let v = raw(i) else { return .nil }
        return try convert(v, depth: 0)
    }

    /// Converts one value this call described (a table at `depth` of the nesting limit).
    func convert(_ v: lh_value, depth: Int) throws -> LuaValue {
        switch Int32(v.kind) {
        case LH_NIL: return .nil
        case LH_BOOLEAN: return .boolean(v.aux != 0)
        case LH_INTEGER: return .integer(v.i)
        case LH_NUMBER: return .number(v.n)
        case LH_STRING:
            let raw = UnsafeRawBufferPointer(start: v.s, count: v.len)
            if let s = decodeUTF8(raw) { return .string(s) }
            return .bytes(Array(raw))
        case LH_OBJECT:
            return .object(LuaObject(classID: LuaClassID(rawValue: v.aux), id: v.i))
        default:
            var entries = 0
            return try runtime.readValue(v.aux, depth: depth, entries: &entries, on: L)
        }
    }

    /// All arguments converted.
    public func values() throws -> [LuaValue] { try (0..<count).map { try value($0) } }

    /// Calls `body` with each key and value of table argument `i` (raw, no metamethods), without
    /// copying the table first: the cheap way to read an options table such as `{ person = p }`.
    /// Throws when argument `i` is not a table.
    public func forEachEntry(_ i: Int, _ body: (LuaValue, LuaValue) throws -> Void) throws {
        guard let v = raw(i), v.kind == LH_TABLE else { throw bad(i, "table") }
        try runtime.forEachEntry(L, v.aux, body)
    }

    /// True when argument `i` is a table.
    public func isTable(_ i: Int) -> Bool { raw(i)?.kind == LH_TABLE }

    public func isNil(_ i: Int) -> Bool {
        guard let v = raw(i) else { return true }
        return v.kind == LH_NIL
    }

    /// Lua truthiness of argument `i`.
    public func boolean(_ i: Int) -> Bool {
        guard let v = raw(i) else { return false }
        if v.kind == LH_NIL { return false }
        if v.kind == LH_BOOLEAN { return v.aux != 0 }
        return true
    }

    /// Argument `i` as an integer (floats with an exact integer value accepted).
    public func integer(_ i: Int) throws -> Int64 {
        guard let v = raw(i) else { throw bad(i, "number") }
        if v.kind == LH_INTEGER { return v.i }
        if v.kind == LH_NUMBER {
            if let x = Int64(exactly: v.n) { return x }
            throw LuaScriptError("bad argument #\(i + 1) to '\(functionName)' (number has no integer representation)")
        }
        throw bad(i, "number")
    }

    public func number(_ i: Int) throws -> Double {
        guard let v = raw(i) else { throw bad(i, "number") }
        if v.kind == LH_INTEGER { return Double(v.i) }
        if v.kind == LH_NUMBER { return v.n }
        throw bad(i, "number")
    }

    /// Argument `i` as a string (numbers are not converted).
    public func string(_ i: Int) throws -> String {
        guard let v = raw(i), v.kind == LH_STRING else { throw bad(i, "string") }
        return String(decoding: UnsafeRawBufferPointer(start: v.s, count: v.len), as: UTF8.self)
    }

    /// `body` over the bytes of string argument `i` (valid only inside it), nil when the argument
    /// is not a string: a value parsed from a string (a date) needs no Swift `String` made first.
    public func withBytes<T>(_ i: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T? {
        guard let v = raw(i), v.kind == LH_STRING else { return nil }
        return try v.withBytes(body)
    }

    /// Argument `i` as a host object (optionally of a given class).
    public func object(_ i: Int, of cls: LuaClassID? = nil) throws -> LuaObject {
        guard let v = raw(i), v.kind == LH_OBJECT, cls == nil || cls!.rawValue == v.aux else {
            throw bad(i, "host object")
        }
        return LuaObject(classID: LuaClassID(rawValue: v.aux), id: v.i)
    }
}
