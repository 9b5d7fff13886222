import Foundation
import Testing

@testable import LuaHost

/// Small limits so hostile scripts end quickly.
func hostileRuntime(roots: [String] = []) throws -> LuaRuntime {
    try LuaRuntime(configuration: .init(memoryLimit: 16 << 20, instructionBudget: 2_000_000,
                                        timeLimit: .seconds(5), requireRoots: roots))
}

/// Runs a hostile body, expects an error matching `check` within `seconds`,
/// then checks that the runtime still works. Twice: as a counted call, and as a call that may
/// run as a trial first (`call(_:_:rewind:)`), which must end the same way.
func expectContained(_ body: String, seconds: Double = 3, rt: LuaRuntime? = nil,
                     sourceLocation: SourceLocation = #_sourceLocation,
                     _ check: (LuaHostError) -> Bool) throws {
    let rt = try rt ?? hostileRuntime()
    for trial in [false, true] {
        let start = ContinuousClock.now
        expectHostError({ _ = try eval(rt, body, trial: trial) }, check, sourceLocation: sourceLocation)
        let elapsed = ContinuousClock.now - start
        #expect(elapsed < .seconds(seconds), "took \(elapsed) (trial: \(trial))", sourceLocation: sourceLocation)
        #expect(try eval(rt, "return 1 + 1", trial: trial) == [2], sourceLocation: sourceLocation)
    }
}

func isBudget(_ e: LuaHostError) -> Bool {
    if case .budgetExceeded = e { return true } else { return false }
}
func isMemory(_ e: LuaHostError) -> Bool {
    if case .memoryExceeded = e { return true } else { return false }
}
func isLimit(_ e: LuaHostError) -> Bool {
    switch e {
    case .budgetExceeded, .memoryExceeded, .timeLimitExceeded: return true
    case .runtime(_, _, let m, _): return m.contains("stack overflow") || m.contains("not enough memory")
        || m.contains("error in error handling") || m.contains("too large")
    default: return false
    }
}
func runtimeMessage(_ e: LuaHostError, contains s: String) -> Bool {
    if case let .runtime(_, _, m, _) = e { return m.contains(s) }
    return false
}

@Suite struct HostileScriptTests {
    @Test func infiniteLoopHitsTheBudgetWithItsLocation() throws {
        try expectContained("local x = 0\nwhile true do x = x + 1 end") {
            if case let .budgetExceeded(chunk, line, limit) = $0 {
                return chunk == "rules/test.lua" && line == 3 && limit == 2_000_000
                    && $0.description == "rules/test.lua:3: instruction budget exceeded (2000000 units)"
            }
            return false
        }
    }

    @Test func pcallCannotSwallowTheBudgetError() throws {
        try expectContained("while true do pcall(function() while true do end end) end", isBudget)
        try expectContained("while true do xpcall(function() while true do end end, function() while true do end end) end",
                            isBudget)
        try expectContained("local ok = pcall(function() while true do end end) return 'survived'", isBudget)
    }

    @Test func loopsInsideCoroutinesAreStopped() throws {
        try expectContained("local co = coroutine.create(function() while true do end end) coroutine.resume(co) while true do end",
                            isBudget)
        try expectContained("local co = coroutine.wrap(function() while true do end end) co()", isBudget)
        try expectContained("""
            while true do
              local co = coroutine.create(function() while true do end end)
              coroutine.resume(co)
            end
            """, isBudget)
    }

    @Test func loopsInsideMetamethodsAreStopped() throws {
        try expectContained("local t = setmetatable({}, { __index = function(t, k) while true do end end }) return t.x",
                            isBudget)
        try expectContained("local t = setmetatable({}, { __index = function(t, k) return t[k .. 'x'] end }) return t.x",
                            isLimit)
        try expectContained("local t = {} setmetatable(t, { __index = t }) return t.x") {
            runtimeMessage($0, contains: "loop")
        }
    }

    @Test func finalizersAreRefused() throws {
        try expectContained("setmetatable({}, { __gc = function() while true do end end })") {
            runtimeMessage($0, contains: "__gc are not allowed")
        }
        // adding __gc afterwards does not mark the table for finalization
        let rt = try hostileRuntime()
        _ = try eval(rt, "local mt = {} local t = setmetatable({}, mt) mt.__gc = function() while true do end end")
        _ = try eval(rt, "local x for i = 1, 100000 do x = {} end return 1")
    }

    @Test func gsubCallbackLoopIsStopped() throws {
        try expectContained("return ('abc'):gsub('.', function(c) while true do end end)", isBudget)
    }

    @Test func memoryBombsHitTheCap() throws {
        try expectContained("return string.rep('x', 2^31)", isLimit)
        try expectContained("local s = 'x' while true do s = s .. s end", isLimit)
        try expectContained("local t = {} local i = 0 while true do i = i + 1 t[i] = {i} end", isLimit)
        try expectContained("local t = {} for i = 1, 1e7 do t[i] = 'abcdefgh' .. i end return table.concat(t)", isLimit)
        // the memory is given back
        let rt = try hostileRuntime()
        for _ in 0..<3 {
            expectHostError({ _ = try eval(rt, "local t = {} while true do t[#t + 1] = ('x'):rep(1000) .. #t end") },
                            isLimit)
        }
        #expect(try eval(rt, "local t = {} for i = 1, 1000 do t[i] = i end return #t") == [1000])
    }

    @Test func cLoopsInTheTableLibraryAreCharged() throws {
        try expectContained("table.move({}, 1, math.maxinteger - 1, 2)", isBudget)
        try expectContained("""
            local t = setmetatable({}, { __len = function() return 1 << 60 end, __index = {}, __newindex = {} })
            table.insert(t, 1, 'x')
            """, isBudget)
    }

    @Test func deepRecursionIsStopped() throws {
        try expectContained("local function f() return 1 + f() end return f()", isLimit)
        try expectContained("local function f() return f() end return f()", isBudget) // tail call: a loop
    }

    @Test func catastrophicPatternIsStopped() throws {
        try expectContained("return ('a'):rep(100000):find('.-.-.-.-x')") {
            runtimeMessage($0, contains: "pattern too complex") || isBudget($0)
        }
        try expectContained("return string.match(('a'):rep(100000), '(.-)(.-)(.-)(.-)x')") {
            runtimeMessage($0, contains: "pattern too complex") || isBudget($0)
        }
        try expectContained("for i = 1, 1e9 do ('a'):rep(3000):find('.-.-x') end", isBudget)
        let rt = try LuaRuntime(configuration: .init(instructionBudget: 100_000_000, patternStepLimit: 1_000_000))
        let out = try eval(rt, "return pcall(string.find, ('a'):rep(100000), '.-.-.-.-x')")
        #expect(out[0] == false)
        #expect(out[1] == "pattern too complex")
    }

    @Test func wallClockLimitIsASecondLineOfDefence() throws {
        let rt = try LuaRuntime(configuration: .init(instructionBudget: Int.max / 2, timeLimit: .milliseconds(200)))
        try expectContained("while true do end", seconds: 2, rt: rt) {
            if case let .timeLimitExceeded(chunk, line, _) = $0 { return chunk == "rules/test.lua" && line == 2 }
            return false
        }
    }
}

@Suite struct SandboxTests {
    @Test func dangerousGlobalsAreAbsent() throws {
        let rt = try hostileRuntime()
        let out = try eval(rt, """
            return io, os, debug, package, dofile, loadfile, string.dump, math.randomseed, newproxy,
                   collectgarbage('count') > 0, pcall(collectgarbage), pcall(collectgarbage, 'collect')
            """)
        #expect(Array(out[0..<9]) == Array(repeating: LuaValue.nil, count: 9))
        #expect(out[9] == true)
        #expect(out[10] == false)
        #expect(out[11] == false)
        #expect(out[12] == "collectgarbage: only \"count\" is available in the sandbox")
    }

    @Test func loadAcceptsTextOnly() throws {
        let rt = try hostileRuntime()
        let out = try eval(rt, """
            local f = load("return 1 + 1")
            local b, err = load("\\27Lua\\84\\0")
            local c, err2 = load("return 1", "x", "b")
            local ok3 = pcall(load, function() return nil end)
            return f(), b, err, c, err2, ok3
            """)
        #expect(out[0] == 2)
        #expect(out[1] == .nil)
        #expect(out[2].stringValue?.contains("attempt to load a binary chunk") == true)
        #expect(out[3] == .nil)
        #expect(out[5] == false)
        expectHostError({ _ = try rt.loadPlugin(source: "\u{1B}Lua\u{54}\0", chunkName: "rules/bin.lua") }) {
            if case let .syntax(_, _, m) = $0 { return m.contains("binary") }
            return false
        }
        // string.dump is gone, so no binary chunk can be produced either
        #expect(try eval(rt, "return string.dump == nil") == [true])
    }

    @Test func libraryTablesAreReadOnly() throws {
        let rt = try hostileRuntime()
        for attack in ["string.len = nil", "rawset(string, 'x', 1)", "table.insert = print",
                       "math.pi = 3", "coroutine.create = nil", "utf8.char = nil", "table.insert(string, 1)",
                       "getmetatable('').__index = {}", "getmetatable('').__index.len = nil",
                       "setmetatable(string, {})"] {
            let out = try eval(rt, "return pcall(function() \(attack) end)")
            #expect(out[0] == false, "\(attack) should fail")
            #expect(out[1].stringValue?.contains("read-only") == true
                    || out[1].stringValue?.contains("protected metatable") == true, "\(attack): \(out[1])")
        }
        let out = try eval(rt, "local ok, e = pcall(function() string.len = nil end) return e")
        #expect(out == ["rules/test.lua:2: attempt to modify read-only table 'string'"])
        // reading still works through every path
        #expect(try eval(rt, """
            local n = 0 for k, v in pairs(string) do n = n + 1 end
            return ('abc'):len(), string.upper('a'), n > 10, next(math) ~= nil, rawget(string, 'len') == string.len,
                   #string == 0, getmetatable('').__index.len('xy')
            """) == [3, "A", true, true, true, true, 2])
    }

    @Test func pluginsCannotChangeWhatOtherPluginsSee() throws {
        let rt = try hostileRuntime()
        _ = try rt.loadPlugin(source: """
            pcall(function() string.len = nil end)
            pcall(function() getmetatable('').__index = {} end)
            pcall(function() rawset(string, 'x', 1) end)
            _G.pairs = nil
            pairs = nil
            ipairs = function() error('hijacked') end
            shared = 'mine'
            return true
            """, chunkName: "rules/evil.lua")
        let out = try eval(rt, """
            local n = 0 for _ in ipairs({1, 2}) do n = n + 1 end
            return string.len('abc'), ('abc'):len(), string.x, type(pairs), n, shared
            """, chunk: "rules/victim.lua")
        #expect(out == [3, 3, .nil, "function", 2, .nil])
    }

    @Test func globalsLiveInThePluginsOwnEnvironment() throws {
        let rt = try hostileRuntime()
        let a = try rt.loadPlugin(source: "counter = 0 return function() counter = counter + 1 return counter end",
                                  chunkName: "a.lua")
        #expect(try rt.call(a) == [1])
        #expect(try rt.call(a) == [2])
        #expect(try eval(rt, "return counter, _G.counter, getmetatable(_G)") == [.nil, .nil, false])
    }

    @Test func requireStaysInsideTheRuleRoots() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("luahost-\(UUID().uuidString)")
        let rules = dir.appendingPathComponent("rules")
        try FileManager.default.createDirectory(at: rules.appendingPathComponent("util"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try "loads = (loads or 0) + 1 return { double = function(x) return 2 * x end, loads = loads }"
            .write(to: rules.appendingPathComponent("util/math2.lua"), atomically: true, encoding: .utf8)
        try "return 'secret'".write(to: dir.appendingPathComponent("outside.lua"), atomically: true, encoding: .utf8)
        try "local x = \n = 1".write(to: rules.appendingPathComponent("broken.lua"), atomically: true, encoding: .utf8)
        try "error('module failed')".write(to: rules.appendingPathComponent("failing.lua"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(at: rules.appendingPathComponent("link.lua"),
                                                   withDestinationURL: dir.appendingPathComponent("outside.lua"))
        let rt = try hostileRuntime(roots: [rules.path])
        let out = try eval(rt, """
            local m = require('util.math2')
            local m2 = require('util.math2')
            return m.double(21), m == m2, m.loads, loads
            """)
        #expect(out == [42, true, 1, .nil])
        for bad in ["../outside", "/etc/passwd", "..outside", "util..math2", "link", "nope", ".util", "a/b"] {
            let r = try eval(rt, "return pcall(require, '\(bad)')")
            #expect(r[0] == false, "require('\(bad)') should fail")
        }
        let broken = try eval(rt, "return pcall(require, 'broken')")
        #expect(broken[1].stringValue?.hasPrefix("rules/broken.lua:2:") == true)
        let failing = try eval(rt, "return pcall(require, 'failing')")
        #expect(failing[1] == "rules/failing.lua:1: module failed")
    }

    @Test func mathRandomIsDeterministicPerEvaluation() throws {
        let rt = try hostileRuntime()
        let f = try rt.loadPlugin(source: "return function() return math.random(1, 1000000), math.random() end",
                                  chunkName: "r.lua")
        let a = try rt.call(f)
        let b = try rt.call(f)
        #expect(a == b)
        let rt2 = try hostileRuntime()
        let f2 = try rt2.loadPlugin(source: "return function() return math.random(1, 1000000), math.random() end",
                                    chunkName: "r.lua")
        #expect(try rt2.call(f2) == a)
    }

    @Test func xpcallStillCallsItsHandlerForOrdinaryErrors() throws {
        let rt = try hostileRuntime()
        #expect(try eval(rt, """
            return xpcall(function(a) error('bad ' .. a) end, function(m) return 'handled: ' .. m end, 'x')
            """) == [false, "handled: rules/test.lua:2: bad x"])
        #expect(try eval(rt, "return xpcall(function(a, b) return a + b end, print, 1, 2)") == [true, 3])
    }

    @Test func setmetatableWorksForOrdinaryTables() throws {
        let rt = try hostileRuntime()
        #expect(try eval(rt, """
            local V = {} V.__index = V V.__add = function(a, b) return setmetatable({x = a.x + b.x}, V) end
            function V.new(x) return setmetatable({x = x}, V) end
            local weak = setmetatable({}, {__mode = 'k'})
            return (V.new(1) + V.new(2)).x, getmetatable(V.new(1)) == V
            """) == [3, true])
    }
}

/// `string.format` goes a fast way for plain `%s` and `%d` and is Lua 5.4.4's own otherwise: its
/// results and errors are stock Lua's (the expected texts below are what the standalone Lua 5.4.4
/// prints for the same calls).
@Suite struct FormatTests {
    @Test(arguments: [
        ("return ('%s works %s %s and %s %s at once (%d min)'):format('P1', '2025-01-01', 'E', '2025-01-02', 'L', 480)",
         "P1 works 2025-01-01 E and 2025-01-02 L at once (480 min)"),
        ("return string.format('%d|%d|%s|%s|%%|%s', math.mininteger, -7, 42, -0, 'a\\0b')", "-9223372036854775808|-7|42|0|%|a\0b"),
        ("return string.format('%s %d', 1.5, 3.0)", "1.5 3"),
        ("return string.format('%5d|%-3s|%x|%q|%.2f', 42, 'ab', 255, 'x\\n', 1/3)", "   42|ab |ff|\"x\\\n\"|0.33"),
        ("return string.format('%d', '10')", "10"),
        ("return string.format('no conversions')", "no conversions"),
        ("return string.format('%s', setmetatable({}, { __tostring = function() return 'T' end }))", "T"),
    ])
    func formatsAsStockLuaDoes(_ body: String, _ expected: String) throws {
        #expect(try eval(hostileRuntime(), body) == [.string(expected)])
    }

    @Test(arguments: [
        ("return ('%d'):format('x')", "bad argument #1 to 'format' (number expected, got string)"),
        ("return ('%d'):format(1.5)", "bad argument #1 to 'format' (number has no integer representation)"),
        ("return ('%s %s'):format('a')", "bad argument #2 to 'format' (no value)"),
        ("return ('%y'):format(1)", "invalid conversion '%y' to 'format'"),
    ])
    func failsAsStockLuaDoes(_ body: String, _ message: String) throws {
        expectHostError({ _ = try eval(hostileRuntime(), body) }) {
            if case let .runtime(chunk, line, text, _) = $0 { return chunk == "rules/test.lua" && line == 2 && text == message }
            return false
        }
    }
}

@Suite struct PatternTests {
    /// The guarded functions must behave exactly like stock Lua 5.4's.
    @Test func guardedPatternFunctionsMatchStockLua() throws {
        let cases: [String] = [
            "string.find('hello world', 'o w')", "string.find('hello world', 'l+')",
            "string.find('hello', 'l', 1, true)", "string.find('a.b', '.', 1, true)",
            "string.find('hello', '')", "string.find('hello', '', 10)", "string.find('hello', 'xyz')",
            "string.find('hello', '(h)(e)')", "string.find('  x', '^%s*()')", "string.find('abc', 'b', -1)",
            "string.match('key = value', '(%w+)%s*=%s*(%w+)')", "string.match('2024-01-15', '(%d+)-(%d+)-(%d+)')",
            "string.match('THE (quick) fox', '%((%a+)%)')", "string.match('f(a(b)c)d', '%b()')",
            "string.match('THE quick', '%f[%a]%a+', 4)", "string.match('hello', '.-(l+)(.*)')",
            "string.match('aaa', 'a-b')", "string.match('aaab', 'a*b')", "string.match('ab', 'a?b')",
            "string.match('x=1, y=2', '(%a)=(%d)', 5)", "string.match('abcabc', '(abc)%1')",
            "string.match('[test]', '^%[(.*)%]$')", "string.match('a,b;c', '[,;]')", "string.match('A1b2', '[%u%d]+')",
            "string.match('hello', '[^aeiou]+')", "string.match('x', '()')",
            "string.gsub('hello world', 'o', '0')", "string.gsub('hello world', '(%w+)', '<%1>')",
            "string.gsub('hello', '', '-')", "string.gsub('abc', '%w', '%0%0')", "string.gsub('abc', 'b', '%%')",
            "string.gsub('hello world', '%w+', {hello = 'HI'})", "string.gsub('a b c', '%a', string.upper, 2)",
            "string.gsub('abc', '.', function(c) if c == 'b' then return false end return c .. c end)",
            "string.gsub('one two', '(%w+) (%w+)', '%2 %1')", "string.gsub('x', 'x', '%0', 0)",
            "string.gsub('abc', '^a', 'A')", "string.gsub('  trim  ', '^%s*(.-)%s*$', '%1')",
        ]
        let rt = try LuaRuntime()
        for c in cases {
            let guarded = try eval(rt, "return \(c)")
            let reference = try stockLua("return \(c)")
            #expect(guarded.map(show) == reference, "\(c)")
        }
        // gmatch
        let g = try eval(rt, """
            local r = {}
            for k, v in string.gmatch('a=1, b=2, c=3', '(%w+)=(%w+)') do r[#r + 1] = k .. v end
            for w in ('one two  three'):gmatch('%a+') do r[#r + 1] = w end
            for p in ('abc'):gmatch('()') do r[#r + 1] = p end
            return table.concat(r, ',')
            """)
        #expect(g == ["a1,b2,c3,one,two,three,1,2,3,4"])
        // errors
        for bad in ["string.find('a', '[a')", "string.find('a', '%')", "string.match('a', '(a')",
                    "string.match('a', 'a)')", "string.gsub('a', 'a', '%2')", "string.find('a', '%b')",
                    "string.find('a', '%f')"] {
            let guarded = try eval(rt, "return select(2, pcall(function() return \(bad) end))")
            let reference = try stockLua("return select(2, pcall(function() return \(bad) end))")
            #expect(guarded.map(show).map(stripLocation) == reference.map(stripLocation), "\(bad)")
        }
    }

    func stripLocation(_ s: String) -> String {
        guard let r = s.range(of: ":\\d+: ", options: .regularExpression) else { return s }
        return String(s[r.upperBound...])
    }

    func show(_ v: LuaValue) -> String {
        switch v {
        case .nil: return "nil"
        case .integer(let i): return String(i)
        case .string(let s): return s
        case .boolean(let b): return String(b)
        default: return "\(v)"
        }
    }

    /// Evaluates `code` in the stock `lua5.4` interpreter if installed, else
    /// in a plain (unsandboxed) state through the C API.
    func stockLua(_ code: String) throws -> [String] {
        try StockLua.run(code)
    }
}
