import CLuaShim

/// The names an options table may carry (`{ person = p, date = d }`), made once and read by
/// ``LuaArguments/withFields(_:_:_:)`` in one pass over the table in C: no key becomes a Swift
/// string, and no value is converted unless asked for (a nested table is read the same way
/// instead of being copied).
public final class LuaFieldNames: @unchecked Sendable {
    /// The names, in the order ``LuaFields`` numbers them.
    public let names: [String]
    // NUL-terminated copies of the names and their lengths, for C; never changed after init.
    private let pointers: UnsafeMutablePointer<UnsafePointer<CChar>?>
    private let lengths: UnsafeMutablePointer<Int>

    public init(_ names: [String]) {
        self.names = names
        pointers = .allocate(capacity: max(1, names.count))
        lengths = .allocate(capacity: max(1, names.count))
        for (k, name) in names.enumerated() {
            let bytes = Array(name.utf8)
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            for (j, byte) in bytes.enumerated() { copy[j] = CChar(bitPattern: byte) }
            copy[bytes.count] = 0
            pointers[k] = UnsafePointer(copy)
            lengths[k] = bytes.count
        }
    }

    deinit {
        for k in 0..<names.count { UnsafeMutablePointer(mutating: pointers[k]!).deallocate() }
        pointers.deallocate()
        lengths.deallocate()
    }

    public var count: Int { names.count }

    /// The names' C strings and lengths, for the duration of `body`.
    func withCStrings<T>(_ body: (UnsafePointer<UnsafePointer<CChar>?>, UnsafePointer<Int>) -> T) -> T {
        body(pointers, lengths)
    }

    fileprivate func read(_ L: OpaquePointer, _ idx: Int32, limit: Int, _ out: UnsafeMutablePointer<lh_value>, _ unknown: inout Int32) -> Int32 {
        lh_read_fields(L, idx, Int32(names.count), pointers, lengths, Int64(limit), out, &unknown)
    }
}

/// The fields of one table as ``LuaArguments/withFields(_:_:_:)`` read them; valid only inside
/// its body. Field `k` is the value under `names.names[k]` (nil when absent).
public struct LuaFields {
    let arguments: LuaArguments
    @usableFromInline let values: UnsafeMutablePointer<lh_value>
    public let names: LuaFieldNames
    /// How many entries have a key that is none of the names (or is not a string).
    public let strayCount: Int
    let strayIndex: Int32

    /// Field `k` converted (a table is copied, as one nested in an options table is).
    public func value(_ k: Int) throws -> LuaValue {
        // Most fields of an options or report table are absent: no conversion for them.
        if values[k].kind == LH_NIL { return .nil }
        return try arguments.convert(values[k], depth: 1)
    }

    /// `body` over the bytes of field `k` when it is a string (valid only inside it), else nil.
    @inlinable public func withBytes<T>(_ k: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T? {
        guard values[k].kind == LH_STRING else { return nil }
        return try values[k].withBytes(body)
    }

    /// Field `k` as a host object, nil when it is anything else.
    public func object(_ k: Int) -> LuaObject? {
        guard values[k].kind == LH_OBJECT else { return nil }
        return LuaObject(classID: LuaClassID(rawValue: values[k].aux), id: values[k].i)
    }

    /// Field `k` as a number (an integer or a float), nil when it is anything else.
    public func number(_ k: Int) -> Double? {
        switch values[k].kind {
        case LH_INTEGER: Double(values[k].i)
        case LH_NUMBER: values[k].n
        default: nil
        }
    }

    /// Whether field `k` is absent (or nil).
    public func isNil(_ k: Int) -> Bool { values[k].kind == LH_NIL }

    /// Whether field `k` is a table.
    public func isTable(_ k: Int) -> Bool { values[k].kind == LH_TABLE }

    /// The first key that is none of the names (nil when there is none), for error messages.
    public func strayKey() throws -> LuaValue {
        guard strayIndex != 0 else { return .nil }
        var entries = 0
        return try arguments.runtime.readValue(strayIndex, depth: 1, entries: &entries, on: arguments.L)
    }

    /// Reads the fields `names` of field `k`, a table, the same way (without copying it).
    /// Throws when field `k` is not a table.
    public func withFields(of k: Int, _ names: LuaFieldNames, _ body: (LuaFields) throws -> Void) throws {
        guard values[k].kind == LH_TABLE else {
            throw LuaScriptError("'\(self.names.names[k])' must be a table")
        }
        try arguments.readFields(at: values[k].aux, names, body)
    }
}

/// Slots for the fields being read, reused from call to call (a runtime is used by one thread
/// at a time, so `used` skips Swift's dynamic exclusivity checks). Reads nest (a field that is
/// itself a table), each taking the next free slots.
final class FieldScratch {
    static let capacity = 256
    let slots = UnsafeMutablePointer<lh_value>.allocate(capacity: FieldScratch.capacity)
    @exclusivity(unchecked) var used = 0

    deinit { slots.deallocate() }
}

extension LuaArguments {
    /// Reads the fields `names` of table argument `i` in one raw pass, without copying the table
    /// or making a Swift string of any key: the cheap way to read an options table on every
    /// call. Throws when argument `i` is not a table.
    public func withFields(_ i: Int, _ names: LuaFieldNames, _ body: (LuaFields) throws -> Void) throws {
        guard i >= 0, i < count, let base, base[i].kind == LH_TABLE else {
            throw LuaScriptError("bad argument #\(i + 1) to '\(functionName)' (table expected, got \(typeName(i)))")
        }
        try readFields(at: base[i].aux, names, body)
    }

    /// The table at stack index `idx` read as ``withFields(_:_:_:)`` reads an argument.
    func readFields(at idx: Int32, _ names: LuaFieldNames, _ body: (LuaFields) throws -> Void) throws {
        let scratch = runtime.fieldScratch
        let start = scratch.used
        guard start + names.count <= FieldScratch.capacity else {
            throw LuaHostError.invalidValue(reason: "tables read inside one another too deeply")
        }
        scratch.used += names.count
        let top = lua_gettop(L)
        defer {
            lua_settop(L, top)
            scratch.used = start
        }
        let slots = scratch.slots + start
        var unknown: Int32 = 0
        let limit = runtime.configuration.maxTableEntries
        let strays = names.read(L, idx, limit: limit, slots, &unknown)
        guard strays != -2 else { throw LuaHostError.invalidValue(reason: "table has more than \(limit) entries") }
        guard strays >= 0 else { throw LuaScriptError("not enough memory to read a table's fields") }
        try body(LuaFields(arguments: self, values: slots, names: names, strayCount: Int(strays), strayIndex: unknown))
    }
}
