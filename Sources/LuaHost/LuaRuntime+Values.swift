import CLua
import CLuaShim
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Tables and values: reading, storing and referencing Lua values from Swift.
extension LuaRuntime {
    // MARK: - Tables and values

    /// `table[key]`, read raw (no metamethods; read-only tables are seen
    /// through). `.nil` if `table` is not a table.
    public func field(_ table: LuaRef, _ key: String) throws -> LuaValue {
        try checkOwner(table)
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        let code = key.utf8.withContiguousStorageIfAvailable { u in
            lh_rawget_field(L, table.ref, UnsafeRawPointer(u.baseAddress!).assumingMemoryBound(to: CChar.self), u.count)
        } ?? {
            let k = Array(key.utf8)
            return k.withUnsafeBufferPointer {
                lh_rawget_field(L, table.ref, UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), $0.count)
            }
        }()
        if code != LH_OK { throw memoryError("host") }
        var entries = 0
        return try readValue(-1, depth: 0, entries: &entries)
    }

    /// `table[key] = value`, raw. The host may write into read-only tables.
    public func setField(_ table: LuaRef, _ key: String, _ value: LuaValue) throws {
        try checkOwner(table)
        try store(key, value) { lh_rawset_field(L, table.ref, $0, $1, $2) }
    }

    /// Defines `name` in the shared, read-only base environment that every
    /// plugin sees (e.g. a frozen table of calendar helpers).
    public func setGlobal(_ name: String, _ value: LuaValue) throws {
        try store(name, value) { lh_set_base(rt, $0, $1, $2) }
    }

    /// Hands a key's bytes and a value (on a tape) to one of the C setters.
    func store(_ key: String, _ value: LuaValue,
                       _ setter: (UnsafePointer<CChar>, Int, UnsafePointer<lh_tape>) -> Int32) throws {
        let tape = Tape()
        try tape.encodeTop(value, owner: owner, maxDepth: configuration.maxTableDepth)
        var t = tape.tape
        var k = key
        let code = k.withUTF8 { u in
            withUnsafePointer(to: &t) { setter(UnsafeRawPointer(u.baseAddress ?? UnsafePointer(bitPattern: 1)!).assumingMemoryBound(to: CChar.self), u.count, $0) }
        }
        if code != LH_OK { throw memoryError("host") }
    }

    /// Deep copy of the value a reference holds.
    public func value(of ref: LuaRef) throws -> LuaValue {
        try checkOwner(ref)
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        guard lua_checkstack(L, 2) != 0 else { throw memoryError("host") }
        lh_push_ref(L, ref.ref)
        var entries = 0
        return try readValue(-1, depth: 0, entries: &entries, copyReferencedTables: true)
    }

    /// The Lua type name of the value a reference holds (`"table"`, `"thread"`, `"userdata"`, …).
    public func typeName(of ref: LuaRef) throws -> String {
        try checkOwner(ref)
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        guard lua_checkstack(L, 2) != 0 else { throw memoryError("host") }
        lh_push_ref(L, ref.ref)
        return String(cString: lua_typename(L, lua_type(L, -1)))
    }

    /// Stores a value in the registry (tables are created from the copy).
    public func makeRef(_ value: LuaValue) throws -> LuaRef {
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        refTape.reset()
        try refTape.encodeTop(value, owner: owner, maxDepth: configuration.maxTableDepth)
        var t = refTape.tape
        guard lh_push_tape(L, &t) == LH_OK else { throw memoryError("host") }
        var ref: Int32 = 0
        guard lh_ref_at(L, -1, &ref) == LH_OK else { throw memoryError("host") }
        return LuaRef(ref: ref, owner: owner)
    }

    /// A function for a host driver (Lua code of the host's own) that runs several checks in
    /// one call: `mark(n)` before check `n` records it (``currentMark``) and gives it a whole
    /// budget and time limit of its own, as if it had been called alone. An exhausted call stays
    /// exhausted. Never hand it to a plugin: a plugin holding it could renew its own budget.
    public func makeMarker() throws -> LuaRef {
        var ref: Int32 = 0
        guard lh_new_marker(L, &ref) == LH_OK else { throw memoryError("host") }
        return LuaRef(ref: ref, owner: owner)
    }

    /// The check a driver marked last in the current (or last) call, 0 when none.
    public var currentMark: Int { Int(lh_mark(rt)) }

    /// A new empty table.
    public func newTable() throws -> LuaRef {
        var ref: Int32 = 0
        guard lh_new_table(L, &ref) == LH_OK else { throw memoryError("host") }
        return LuaRef(ref: ref, owner: owner)
    }

    /// Makes a table read-only in place: writes from Lua (`t.x = 1`,
    /// `rawset`, `table.insert`, ...) raise
    /// `attempt to modify read-only table '<name>'`. Reads, `pairs`, `ipairs`,
    /// `#`, `next`, `rawget` and `rawlen` keep working. With `deep`, nested
    /// tables without a metatable are frozen too. Tables that already have a
    /// metatable are left unchanged.
    public func freeze(_ table: LuaRef, name: String, deep: Bool = true) throws {
        try checkOwner(table)
        let code = lh_freeze(L, table.ref, name, deep ? 1 : 0)
        if code != LH_OK { throw LuaHostError.invalidValue(reason: "cannot freeze: not a table or out of memory") }
    }


    /// Converts the stack value at `idx` (raw access only).
    func readValue(_ idx: Int32, depth: Int, entries: inout Int, copyReferencedTables: Bool = true,
                   on state: OpaquePointer? = nil) throws -> LuaValue {
        let L = state ?? self.L
        let idx = lua_absindex(L, idx)
        switch lua_type(L, idx) {
        case LUA_TNIL, LUA_TNONE:
            return .nil
        case LUA_TBOOLEAN:
            return .boolean(lua_toboolean(L, idx) != 0)
        case LUA_TNUMBER:
            if lua_isinteger(L, idx) != 0 { return .integer(lua_tointegerx(L, idx, nil)) }
            return .number(lua_tonumberx(L, idx, nil))
        case LUA_TSTRING:
            var len = 0
            let p = lua_tolstring(L, idx, &len)
            let raw = UnsafeRawBufferPointer(start: p, count: len)
            if let s = decodeUTF8(raw) { return .string(s) }
            return .bytes(Array(raw))
        case LUA_TTABLE:
            return try readTable(L, idx, depth: depth, entries: &entries)
        case LUA_TFUNCTION:
            return .function(try refAt(L, idx))
        case LUA_TUSERDATA:
            var v = lh_value()
            lh_describe(L, idx, &v)
            if v.kind == LH_OBJECT { return .object(LuaObject(classID: LuaClassID(rawValue: v.aux), id: v.i)) }
            return .reference(try refAt(L, idx))
        default:
            return .reference(try refAt(L, idx))
        }
    }

    private func refAt(_ L: OpaquePointer, _ idx: Int32) throws -> LuaRef {
        var ref: Int32 = 0
        guard lh_ref_at(L, idx, &ref) == LH_OK else { throw memoryError("host") }
        return LuaRef(ref: ref, owner: owner)
    }

    private func readTable(_ L: OpaquePointer, _ idx: Int32, depth: Int, entries: inout Int) throws -> LuaValue {
        guard depth < configuration.maxTableDepth else {
            throw LuaHostError.invalidValue(
                reason: "table nested deeper than \(configuration.maxTableDepth) levels (or cyclic)")
        }
        guard lua_checkstack(L, 6) != 0 else { throw memoryError("host") }
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        lh_push_backing(L, idx)
        let t = lua_gettop(L)
        var table = LuaTable()
        var n: Int64 = 1
        while true {
            if lua_rawgeti(L, t, n) == LUA_TNIL { lua_settop(L, t); break }
            entries += 1
            try checkEntries(entries)
            table.array.append(try readValue(-1, depth: depth + 1, entries: &entries, on: L))
            lua_settop(L, t)
            n += 1
        }
        lua_pushnil(L)
        while lua_next(L, t) != 0 {
            if lua_type(L, -2) == LUA_TNUMBER && lua_isinteger(L, -2) != 0 {
                let k = lua_tointegerx(L, -2, nil)
                if k >= 1 && k < n { lua_settop(L, t + 1); continue }
            }
            entries += 1
            try checkEntries(entries)
            let key = try readValue(-2, depth: depth + 1, entries: &entries, on: L)
            let value = try readValue(-1, depth: depth + 1, entries: &entries, on: L)
            table.hash[key] = value
            lua_settop(L, t + 1)
        }
        return .table(table)
    }

    /// Calls `body` with each key and value of the table at `idx`, array part first, without
    /// building a copy of the table (values that are tables are still converted).
    func forEachEntry(_ L: OpaquePointer, _ idx: Int32, _ body: (LuaValue, LuaValue) throws -> Void) throws {
        guard lua_checkstack(L, 6) != 0 else { throw memoryError("host") }
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        lh_push_backing(L, lua_absindex(L, idx))
        let t = lua_gettop(L)
        var entries = 0
        lua_pushnil(L)
        while lua_next(L, t) != 0 {
            entries += 1
            try checkEntries(entries)
            let key = try readValue(-2, depth: 1, entries: &entries, on: L)
            let value = try readValue(-1, depth: 1, entries: &entries, on: L)
            try body(key, value)
            lua_settop(L, t + 1)
        }
    }

    private func checkEntries(_ n: Int) throws {
        if n > configuration.maxTableEntries {
            throw LuaHostError.invalidValue(reason: "table has more than \(configuration.maxTableEntries) entries")
        }
    }
}
