// libFuzzer target: arbitrary bytes as Lua source for the sandboxed rule host. Loading and
// calling what it returns must end in a value or a LuaHostError within the budget, never a
// crash, a hang or an escape.
import LuaHost

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLua(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    guard let runtime = try? LuaRuntime(configuration: .init(
        memoryLimit: 16 << 20, instructionBudget: 200_000, timeLimit: .milliseconds(500), patternStepLimit: 200_000)) else { return 0 }
    guard let plugin = try? runtime.loadPlugin(bytes: bytes, chunkName: "fuzz.lua") else { return 0 }
    if case let .function(function)? = try? runtime.value(of: plugin) {
        _ = try? runtime.call(function, [.string("2026-03-02"), .integer(7), .table(LuaTable(array: [.boolean(true)]))])
    }
    return 0
}
