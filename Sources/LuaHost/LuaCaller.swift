import CLua
import CLuaShim

/// Where the Lua code that called a host function is: the chunk it was loaded as and the line
/// being run. What a rule's findings cite (`rules/no_double_booking.lua:14`).
public struct LuaCallSite {
    /// The chunk's name as loaded, without its `@` (a file's path). Lent by the Lua state: read it
    /// before returning to Lua. Empty when the line is unknown.
    public let chunk: UnsafeRawBufferPointer
    /// The line being run; 0 when unknown (no Lua function called, or its chunk is no file).
    public let line: Int

    static var unknown: LuaCallSite { LuaCallSite(chunk: UnsafeRawBufferPointer(start: nil, count: 0), line: 0) }
}

extension LuaArguments {
    /// The nearest Lua function below the running host function: one `lua_getinfo(L, "Sl")`
    /// (about 30 ns), nothing copied. Level 1 is the caller; `pcall(report, …)` puts `pcall` (a C
    /// function, no line) between, so a few levels are looked at.
    public func caller() -> LuaCallSite {
        var ar = lua_Debug()
        for level: Int32 in 1...3 {
            guard lua_getstack(L, level, &ar) != 0, lua_getinfo(L, "Sl", &ar) != 0 else { return .unknown }
            guard ar.currentline > 0 else { continue }
            guard let source = ar.source, ar.srclen > 1, source.pointee == CChar(UInt8(ascii: "@")) else { return .unknown }
            return LuaCallSite(chunk: UnsafeRawBufferPointer(start: source + 1, count: ar.srclen - 1), line: Int(ar.currentline))
        }
        return .unknown
    }
}

extension LuaFields {
    /// ``LuaArguments/caller()`` for the call that handed over these fields.
    public func caller() -> LuaCallSite { arguments.caller() }
}
