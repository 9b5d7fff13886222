import CLua

/// Runs code in an ordinary, unsandboxed Lua 5.4 state (the system liblua),
/// to compare the sandbox's string functions with stock ones.
enum StockLua {
    struct Failure: Error { let message: String }

    static func run(_ code: String) throws -> [String] {
        guard let L = luaL_newstate() else { throw Failure(message: "no state") }
        defer { lua_close(L) }
        luaL_openlibs(L)
        let wrapped = """
            local r = table.pack((function() \(code) end)())
            for i = 1, r.n do r[i] = tostring(r[i]) end
            return table.concat(r, '\\1', 1, r.n)
            """
        guard clua_dostring(L, wrapped) == LUA_OK else {
            throw Failure(message: String(cString: clua_tostring(L, -1)))
        }
        var len = 0
        let p = lua_tolstring(L, -1, &len)
        let s = String(decoding: UnsafeRawBufferPointer(start: p, count: len), as: UTF8.self)
        return s.isEmpty && !code.contains("''") ? [] : s.split(separator: "\u{1}", omittingEmptySubsequences: false).map(String.init)
    }
}
