// libFuzzer target: arbitrary bytes as Lua source for the sandboxed rule host. Loading and
// calling what it returns must end in a value or a LuaHostError within the budget, never a
// crash, a hang or an escape. The function also gets a host object whose class caches its
// fields and has a static method, and is called twice with the caches invalidated in between,
// so field caching (cached strings, numbers, nil, objects; uncached tables and errors) is
// exercised by whatever the script does with it. The second call may run as a trial (no
// instruction counting, a watchdog, and a counted run after a trial that does not end in time). A global `fields(t)` reads an options table by
// name in one pass in C (LuaFieldNames), a nested `span` table in place.
import LuaHost

let fieldNames = LuaFieldNames(["a", "b", "span"])
let spanNames = LuaFieldNames(["x", "y"])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLua(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    guard let runtime = try? LuaRuntime(configuration: .init(
        memoryLimit: 16 << 20, instructionBudget: 200_000, timeLimit: .milliseconds(500), patternStepLimit: 200_000)) else { return 0 }
    guard let thing = try? runtime.registerClass(name: "Thing", cachesFields: true, index: { object, key in
        switch key {
        case .string("n"): return .integer(object.id)
        case .string("s"): return .string("text \(object.id)")
        case .string("t"): return .table(LuaTable(array: [1, 2, 3]))
        case .string("o"): return .object(LuaObject(classID: object.classID, id: object.id + 1))
        case .string("err"): throw LuaScriptError("no such field")
        case .string: return .nil
        default: throw LuaScriptError("fields are named by strings")
        }
    }) else { return 0 }
    if let method = try? runtime.makeFunction(name: "m", { args in [.integer(try args.object(0).id * 2)] }) {
        try? runtime.setStatic(thing, "m", .function(method))
    }
    // An options table read by name in one pass (as `schedule:shifts{…}` and `report{…}` are),
    // a nested table read in place, and the first key that is none of the names.
    _ = try? runtime.registerFunction(name: "fields") { args in
        var out: [LuaValue] = []
        try args.withFields(0, fieldNames) { fields in
            out = [try fields.value(0), try fields.value(1), .integer(Int64(fields.strayCount)), try fields.strayKey()]
            if fields.isTable(2) {
                try fields.withFields(of: 2, spanNames) { span in out += [try span.value(0), try span.value(1)] }
            }
        }
        return out
    }
    guard let plugin = try? runtime.loadPlugin(bytes: bytes, chunkName: "fuzz.lua") else { return 0 }
    if case let .function(function)? = try? runtime.value(of: plugin) {
        let object = LuaValue.object(LuaObject(classID: thing, id: 1))
        let arguments: [LuaValue] = [.string("2026-03-02"), .integer(7), .table(LuaTable(array: [.boolean(true)])), object]
        _ = try? runtime.call(function, arguments)
        runtime.invalidateFieldCaches()
        _ = try? runtime.call(function, arguments, rewind: {})
    }
    return 0
}
