import Foundation
import Testing

@testable import LuaHost

/// Runs `body` as a plugin chunk and returns the results of calling the
/// function it returns.
/// With `trial`, the call may run as a trial first (`call(_:_:rewind:)`).
func eval(_ rt: LuaRuntime, _ body: String, chunk: String = "rules/test.lua", _ args: [LuaValue] = [], trial: Bool = false) throws
    -> [LuaValue]
{
    let f = try rt.loadPlugin(source: "return function(...)\n\(body)\nend", chunkName: chunk)
    return trial ? try rt.call(f, args, rewind: {}) : try rt.call(f, args)
}

func expectHostError(_ body: () throws -> Void, _ check: (LuaHostError) -> Bool,
                     sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        try body()
        Issue.record("expected an error", sourceLocation: sourceLocation)
    } catch let e as LuaHostError {
        #expect(check(e), "unexpected error: \(e)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("unexpected error type: \(error)", sourceLocation: sourceLocation)
    }
}

@Suite struct ValueTests {
    @Test func scalarsRoundTrip() throws {
        let rt = try LuaRuntime()
        let values: [LuaValue] = [.nil, true, false, 0, -7, .integer(Int64.max), 1.5, -0.25, "", "héllo",
                                  .bytes([0xff, 0x00, 0x41])]
        let out = try eval(rt, "return ...", values)
        #expect(out == values)
    }

    @Test func tablesRoundTripAsDeepCopies() throws {
        let rt = try LuaRuntime()
        let t: LuaValue = .table(LuaTable(array: [1, "two", [3, 4]],
                                          hash: [.string("name"): "x", .string("nested"): ["a": true],
                                                 .integer(10): 2.5]))
        let out = try eval(rt, "local t = ...; return t, #t, t.nested.a, t[10]", [t])
        #expect(out[0] == t)
        #expect(out[1] == 3)
        #expect(out[2] == true)
        #expect(out[3] == 2.5)
    }

    @Test func functionsComeBackAsCallableReferences() throws {
        let rt = try LuaRuntime()
        let out = try eval(rt, "return function(a, b) return a * b end")
        guard case .function(let f) = out[0] else { Issue.record("not a function"); return }
        #expect(try rt.call(f, [6, 7]) == [42])
        // and can be passed back into Lua
        #expect(try eval(rt, "local g = ...; return g(2, 3)", [.function(f)]) == [6])
    }

    @Test func pluginFieldsAreReadRaw() throws {
        let rt = try LuaRuntime()
        let plugin = try rt.loadPlugin(source: """
            local p = setmetatable({ id = "no_double_booking" }, { __index = function() error("boom") end })
            function p.check(x) return x + 1 end
            return p
            """, chunkName: "rules/no_double_booking.lua")
        #expect(try rt.field(plugin, "id") == "no_double_booking")
        #expect(try rt.field(plugin, "missing") == .nil) // no __index call
        guard case .function(let check) = try rt.field(plugin, "check") else { Issue.record("no check"); return }
        #expect(try rt.call(check, [41]) == [42])
    }

    @Test func cyclicAndHugeTablesAreRefusedNotCrashing() throws {
        let rt = try LuaRuntime()
        expectHostError({ _ = try eval(rt, "local t = {}; t.self = t; return t") }) {
            if case .invalidValue = $0 { return true } else { return false }
        }
        expectHostError({ _ = try eval(rt, "local t = {}; for i = 1, 200000 do t[i] = i end; return t") }) {
            if case .invalidValue = $0 { return true } else { return false }
        }
        // metamethods that error or loop are never called by the copy
        let out = try eval(rt, """
            return setmetatable({1, 2}, { __index = function() while true do end end,
                                          __pairs = function() error("x") end, __len = function() error("y") end })
            """)
        #expect(out[0] == [1, 2])
    }

    @Test func referencesCanBeStoredAndReleased() throws {
        let rt = try LuaRuntime()
        let t = try rt.makeRef(["k": 1])
        #expect(try rt.value(of: t) == ["k": 1])
        try rt.setField(t, "k", 2)
        #expect(try rt.field(t, "k") == 2)
        let before = rt.memoryInUse
        for _ in 0..<10_000 { _ = try rt.makeRef(.string(String(repeating: "x", count: 100))) }
        _ = try eval(rt, "return 1") // releases the dropped references
        _ = try eval(rt, "local x = {} for i = 1, 100000 do x = {} end return 1") // lets GC run
        #expect(rt.memoryInUse < before + 1_000_000)
    }
}

@Suite struct HostFunctionTests {
    @Test func argumentsAndResultsGoThroughTheTrampoline() throws {
        let rt = try LuaRuntime()
        try rt.registerFunction(name: "describe") { args in
            [.integer(Int64(args.count)), .string(try args.string(0)), .integer(try args.integer(1) * 2),
             .number(try args.number(2)), .boolean(args.boolean(3)), try args.value(4),
             .table(LuaTable(array: ["a", "b"], hash: [.string("k"): 1]))]
        }
        let out = try eval(rt, """
            local n, s, i, d, b, t, r = describe("str", 21, 0.5, false, {x = {1, 2}})
            return n, s, i, d, b, t.x[2], r[2], r.k
            """)
        #expect(out == [5, "str", 42, 0.5, false, 2, "b", 1])
    }

    /// Integer columns are built by a small Lua function of the host's (one table constructor):
    /// its tables are the same, and a budget that runs out while one is made is the script's,
    /// at the script's line.
    @Test func integerSequencesArriveWholeAndTheBudgetBlamesTheScript() throws {
        let rt = try LuaRuntime()
        for count in [0, 3, 5, 8192, 8193, 20_000] {
            try rt.registerFunction(name: "column\(count)") { _ in [.integers((0..<Int64(count)).map { $0 * 3 })] }
            let out = try eval(rt, "local t = column\(count)() local s = 0 for i = 1, #t do s = s + t[i] end return #t, s, t[0], t[#t + 1]")
            let n = Int64(count)
            #expect(out == [.integer(n), .integer(3 * n * (n - 1) / 2), .nil, .nil])
        }
        // Each column is 2,000 units of allocation: the budget runs out as one is made.
        let small = try LuaRuntime(configuration: .init(instructionBudget: 50_000))
        try small.registerFunction(name: "column") { _ in [.integers(Array(repeating: 7, count: 8000))] }
        for trial in [false, true] {
            expectHostError({ _ = try eval(small, "local n = 0\nwhile true do\n  n = n + #column()\nend", trial: trial) }) {
                $0.description == "rules/test.lua:4: instruction budget exceeded (50000 units)"
            }
        }
    }

    @Test func swiftErrorsBecomeLuaErrorsCatchableByPcall() throws {
        let rt = try LuaRuntime()
        try rt.registerFunction(name: "fail") { _ in throw LuaScriptError("no such shift") }
        let out = try eval(rt, "local ok, err = pcall(function() fail() end); return ok, err")
        #expect(out[0] == false)
        #expect(out[1] == "rules/test.lua:2: no such shift")
        // uncaught: reported with chunk and line
        expectHostError({ _ = try eval(rt, "local x = 1\nfail()") }) {
            if case let .runtime(chunk, line, message, _) = $0 {
                return chunk == "rules/test.lua" && line == 3 && message == "no such shift"
            }
            return false
        }
    }

    @Test func argumentTypeErrorsNameTheFunction() throws {
        let rt = try LuaRuntime()
        try rt.registerFunction(name: "twice") { args in [.integer(try args.integer(0) * 2)] }
        let out = try eval(rt, "return pcall(function() return twice('x') end)")
        #expect(out[1] == "rules/test.lua:2: bad argument #1 to 'twice' (number expected, got string)")
    }

    @Test func optionTablesAreReadByNameInOnePass() throws {
        var configuration = LuaRuntime.Configuration()
        configuration.maxTableEntries = 50
        let rt = try LuaRuntime(configuration: configuration)
        let names = LuaFieldNames(["person", "date", "span", "limit"])
        let span = LuaFieldNames(["starts_at", "ends_at"])
        // Returns the fields it knows, how many others there were and the first of them, and
        // the two fields of `span` read where they are.
        try rt.registerFunction(name: "opts") { args in
            var out: [LuaValue] = []
            try args.withFields(0, names) { fields in
                out = [try fields.value(0), try fields.value(1), try fields.value(3), .integer(Int64(fields.strayCount)), try fields.strayKey()]
                #expect(fields.isNil(2) == !fields.isTable(2))
                if fields.isTable(2) {
                    try fields.withFields(of: 2, span) { inner in out += [try inner.value(0), try inner.value(1)] }
                }
            }
            return out
        }
        #expect(try eval(rt, "return opts{ person = 'ann', date = '2026-01-01', limit = 3 }") == ["ann", "2026-01-01", 3, 0, .nil])
        #expect(try eval(rt, "return opts{}") == [.nil, .nil, .nil, 0, .nil])
        let stray = try eval(rt, "return opts{ person = 'ann', colour = 'red' }")
        #expect(stray == ["ann", .nil, .nil, 1, "colour"])
        #expect(try eval(rt, "return opts{ [1] = 'x' }")[3...] == [1, 1])
        // A nested table is read the same way; its other keys are left alone.
        #expect(try eval(rt, "return opts{ span = { starts_at = 10, ends_at = 20, x = 1 }, limit = 1.0 }")
            == [.nil, .nil, .number(1.0), 0, .nil, 10, 20])
        // Strings and tables stay valid while the body runs, whatever else was read after them.
        #expect(try eval(rt, "local t = { span = {}, person = ('a'):rep(100) }; return select(1, opts(t))")[0] == .string(String(repeating: "a", count: 100)))
        // A read-only table is read through to what it holds.
        let frozen = try rt.makeRef(["person": "bob", "limit": 2])
        try rt.freeze(frozen, name: "options")
        try rt.setGlobal("frozen", .reference(frozen))
        #expect(try eval(rt, "return opts(frozen)") == ["bob", .nil, 2, 0, .nil])
        // A table with a metatable of its own (not a read-only one) is read raw: its __index is
        // not consulted, as for a table without one.
        #expect(try eval(rt, "return opts(setmetatable({ person = 'ann' }, { __index = { date = '2026-01-01', limit = 9 } }))")
            == ["ann", .nil, .nil, 0, .nil])
        // Values known by their place on the stack (functions, coroutines, tables) keep it while
        // the entries after them are read, whatever the order of the table's entries.
        try rt.registerFunction(name: "kinds") { args in
            var out: [LuaValue] = []
            try args.withFields(0, names) { fields in
                out = try (0..<names.count).map { k in .string(try fields.value(k).typeName) }
                if fields.isTable(2) { try fields.withFields(of: 2, span) { inner in out.append(try inner.value(0)) } }
            }
            return out
        }
        #expect(try eval(rt, "return kinds{ person = print, date = coroutine.create(print), span = { starts_at = 5 }, limit = 'x' }")
            == ["function", "reference", "table", "string", 5])
        #expect(try eval(rt, "return kinds{ limit = 1, span = { starts_at = 6 }, date = coroutine.create(print), person = print }")
            == ["function", "reference", "table", "number", 6])
        // Not a table, a nested field that is not a table, and too many entries: errors.
        #expect(try eval(rt, "return pcall(opts, 5)")[1] == "bad argument #1 to 'opts' (table expected, got number)")
        try rt.registerFunction(name: "inner") { args in
            try args.withFields(0, names) { fields in try fields.withFields(of: 2, span) { _ in } }
            return []
        }
        #expect(try eval(rt, "return pcall(inner, { span = 3 })")[1] == "'span' must be a table")
        let big = try eval(rt, "local t = {}; for i = 1, 60 do t['k' .. i] = i end; return pcall(opts, t)")
        #expect(big[0] == false)
        #expect(big[1].stringValue?.contains("more than 50 entries") == true)
    }

    @Test func functionsCanLiveInHostTables() throws {
        let rt = try LuaRuntime()
        let cal = try rt.newTable()
        try rt.registerFunction(name: "weekday", in: cal) { args in [.integer(try args.integer(0) % 7)] }
        try rt.freeze(cal, name: "calendar")
        try rt.setGlobal("calendar", .reference(cal))
        #expect(try eval(rt, "return calendar.weekday(9)") == [2])
        expectHostError({ _ = try eval(rt, "calendar.weekday = nil") }) {
            if case let .runtime(_, _, m, _) = $0 { return m == "attempt to modify read-only table 'calendar'" }
            return false
        }
    }

    @Test func hostObjectsServeIndexFromSwift() throws {
        let rt = try LuaRuntime()
        let names: [Int64: String] = [1: "Ann", 2: "Bob"]
        var methodRef: LuaRef?
        let cls = try rt.registerClass(name: "Employee") { obj, key in
            switch key {
            case "name": return .string(names[obj.id] ?? "?")
            case "id": return .integer(obj.id)
            case "greet": return .function(methodRef!)
            default: return .nil
            }
        }
        methodRef = try rt.makeFunction(name: "greet") { args in
            let me = try args.object(0, of: cls)
            return [.string("hi \(names[me.id]!), \(try args.string(1))")]
        }
        let out = try eval(rt, """
            local a, b = ...
            local ok, err = pcall(function() a.name = "x" end)
            return a.name, b.id, a:greet("welcome"), a == b, tostring(b), ok, err, a.nothing
            """, [.object(LuaObject(classID: cls, id: 1)), .object(LuaObject(classID: cls, id: 2))])
        #expect(out[0] == "Ann")
        #expect(out[1] == 2)
        #expect(out[2] == "hi Ann, welcome")
        #expect(out[3] == false)
        #expect(out[4] == "Employee: 2")
        #expect(out[5] == false)
        #expect(out[6] == "rules/test.lua:3: attempt to modify read-only object 'Employee'")
        #expect(out[7] == .nil)
        // objects come back to Swift as objects
        #expect(try eval(rt, "return ...", [.object(LuaObject(classID: cls, id: 7))]) ==
                [.object(LuaObject(classID: cls, id: 7))])
    }

    /// A caching class asks its `index` once per object and field until the host invalidates
    /// the caches; tables are never kept (Lua code could change a shared one).
    @Test func cachedFieldsAreServedOnceUntilInvalidated() throws {
        let rt = try LuaRuntime()
        let calls = Counter()
        let value = Counter()
        let cls = try rt.registerClass(name: "Thing", cachesFields: true) { obj, key in
            calls.add(key.stringValue ?? "?")
            switch key {
            case "n": return .integer(value.total)
            case "missing": return .nil
            case "me": return .object(obj)
            case "list": return .table(LuaTable(array: [1, 2]))
            case "fail": throw LuaScriptError("no such field")
            default: return .string("x")
            }
        }
        let thing = LuaValue.object(LuaObject(classID: cls, id: 1))
        let reads = """
            local t = ...
            local a, b = t.n, t.n
            local m1, m2 = t.missing, t.missing
            local l = t.list
            l[1] = 99
            local ok = pcall(function() return t.fail end)
            local ok2 = pcall(function() return t.fail end)
            return a, b, m1 == nil and m2 == nil, t.list[1], t.me.me.n, ok, ok2
            """
        let out = try eval(rt, reads, [thing])
        #expect(out == [0, 0, true, 1, 0, false, false])
        // n once (the object from `me` is the same Lua value, with the same cache), me once,
        // missing once, list and fail every time.
        #expect(calls.counts == ["n": 1, "missing": 1, "list": 2, "me": 1, "fail": 2])

        // Once the host invalidates the caches, the object asks again.
        value.total = 5
        rt.invalidateFieldCaches()
        #expect(try eval(rt, "local t = ... return t.n", [thing]) == [5])
    }

    /// An object pushed again while Lua holds it is the same Lua value: raw-equal, usable as a
    /// table key, sharing what it cached. Another id or class is another value.
    @Test func objectsAreInterned() throws {
        let rt = try LuaRuntime()
        let calls = Counter()
        let cls = try rt.registerClass(name: "Thing", cachesFields: true) { obj, _ in
            calls.add("n")
            return .integer(obj.id)
        }
        let other = try rt.registerClass(name: "Other") { obj, _ in .integer(obj.id) }
        let one = LuaValue.object(LuaObject(classID: cls, id: 1))
        let out = try eval(rt, """
            local a, b, c, d = ...
            local keys = { [a] = "a" }
            return rawequal(a, b), keys[b], rawequal(a, c), rawequal(a, d), a.n + b.n, a == d
            """, [one, one, .object(LuaObject(classID: cls, id: 2)), .object(LuaObject(classID: other, id: 1))])
        #expect(out == [true, "a", false, false, 2, false])
        #expect(calls.counts == ["n": 1])
    }

    @Test func anObjectKeptAcrossInvalidationAsksAgain() throws {
        let rt = try LuaRuntime()
        let version = Counter()
        let cls = try rt.registerClass(name: "Thing", cachesFields: true) { _, _ in .integer(version.total) }
        try rt.setGlobal("keep", .object(LuaObject(classID: cls, id: 1)))
        let read = try rt.loadPlugin(source: "local k = keep return function() return k.v end", chunkName: "k.lua")
        #expect(try rt.call(read) == [0])
        version.total = 1
        #expect(try rt.call(read) == [0])
        rt.invalidateFieldCaches()
        #expect(try rt.call(read) == [1])
    }

    /// A class that declares its fields gets each one by position (no name to compare) and
    /// keeps what it served in the object's slots (not tables) until the caches are invalidated;
    /// other keys reach it as they are, every time; static fields still answer.
    @Test func declaredFieldsArriveByPositionAndAreKeptInSlots() throws {
        let rt = try LuaRuntime()
        let calls = Counter()
        let value = Counter()
        let cls = try rt.registerClass(name: "Thing", fields: ["n", "name", "gone", "list", "me", "fail"]) { obj, key in
            switch key {
            case let .field(k):
                calls.add("field \(k)")
                switch k {
                case 0: return .integer(obj.id + Int64(value.total))
                case 1: return .string("thing \(obj.id)")
                case 2: return .nil
                case 3: return .table(LuaTable(array: [1, 2]))
                case 4: return .object(obj)
                default: throw LuaScriptError("no good")
                }
            case let .other(name):
                calls.add("other \(name.stringValue ?? name.typeName)")
                if case .string("secret") = name { return .integer(42) }
                guard case let .string(text) = name else { return .nil }
                throw LuaScriptError("a thing has no field '\(text)'")
            }
        }
        try rt.setStatic(cls, "kind", .string("static"))
        let thing = LuaValue.object(LuaObject(classID: cls, id: 7))
        let out = try eval(rt, """
            local t = ...
            local l = t.list
            l[1] = 99
            local ok, err = pcall(function() return t.fail end)
            local ok2 = pcall(function() return t.nothing end)
            return t.n, t.n, t.name, t.name, t.gone == nil and t.gone == nil, t.list[1], t.me.me.n,
                   t.secret, t.secret, t.kind, ok, ok2, err, t[1] == nil
            """, [thing])
        #expect(out == [7, 7, "thing 7", "thing 7", true, 1, 7, 42, 42, "static", false, false,
                        "rules/test.lua:5: no good", true])
        #expect(calls.counts == ["field 0": 1, "field 1": 1, "field 2": 1, "field 3": 2, "field 4": 1, "field 5": 1,
                                 "other secret": 2, "other nothing": 1, "other number": 1])
        // Invalidated, every object asks again (a copy kept across the invalidation too).
        value.total = 100
        rt.invalidateFieldCaches()
        #expect(try eval(rt, "local t = ... return t.n, t.me.n", [thing]) == [107, 107])
        #expect(calls.counts["field 0"] == 2)
        expectHostError({ _ = try rt.registerClass(name: "Wide", fields: (0..<63).map { "f\($0)" }) { _, _ in .nil } }) {
            if case .invalidValue = $0 { return true }
            return false
        }
    }

    /// Fields served from an object's words: an integer, a date made in C (checked against
    /// Foundation's calendar over four centuries and at the ends of the range), another object
    /// (0 is nil); a word not given, a day out of range, an object given none, or any object
    /// after the field epoch ends reach the class's index as before.
    @Test func wordFieldsAreServedWithoutTheIndexAndFallBackToIt() throws {
        let rt = try LuaRuntime()
        let calls = Counter()
        let other = try rt.registerClass(name: "Other", fields: ["id"]) { obj, _ in .integer(obj.id) }
        let cls = try rt.registerClass(name: "Thing", fields: ["n", "day", "friend", "name"]) { obj, key in
            guard case let .field(k) = key else { return .nil }
            calls.add("field \(k)")
            return .string("index \(k) of \(obj.id)")
        }
        try rt.setWordFields(cls, [0: .integer(word: 4), 1: .date(word: 0), 2: .object(word: 1, of: other)])
        func thing(_ id: Int64, _ set: [Int: Int64]) -> LuaValue {
            var words = LuaObjectWords()
            for (word, value) in set { words[word] = value }
            #expect(words[3] == nil && set.allSatisfy { words[$0.key] == $0.value })
            rt.setWords(LuaObject(classID: cls, id: id), words)
            return .object(LuaObject(classID: cls, id: id))
        }
        let full = thing(1, [0: 20_454, 1: 9, 4: -5])
        let out = try eval(rt, """
            local t = ...
            return t.n, t.day, t.friend.id, t.friend == t.friend, t.name
            """, [full])
        #expect(out == [-5, "2026-01-01", 9, true, "index 3 of 1"])
        #expect(calls.counts == ["field 3": 1])
        // Word 1 is 0: nil. No word 4 and a day out of range: the index.
        let partial = thing(2, [0: 3_000_000, 1: 0])
        #expect(try eval(rt, "local t = ... return t.n, t.day, t.friend", [partial]) == ["index 0 of 2", "index 1 of 2", .nil])
        // No words at all: the index.
        #expect(try eval(rt, "local t = ... return t.day", [.object(LuaObject(classID: cls, id: 3))]) == ["index 1 of 3"])
        // A new field epoch: the words are gone.
        rt.invalidateFieldCaches()
        #expect(try eval(rt, "local t = ... return t.n, t.day", [full]) == ["index 0 of 1", "index 1 of 1"])

        // Dates as Foundation's Gregorian calendar writes them, every 97 days over 1600-2400
        // (before 1582 Foundation's calendar is Julian: the ends of the range, in the proleptic
        // Gregorian calendar, are checked by value).
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let formatter = DateFormatter()
        formatter.calendar = calendar
        formatter.timeZone = calendar.timeZone
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd"
        var days: [Int64] = Array(stride(from: -135_140, to: 157_000, by: 97)) + [0, -1, 11_016, 11_017]
        days.append(contentsOf: [-719_163, 2_932_897]) // out of range: asked of the index
        let ends: [Int64: String] = [-719_162: "0001-01-01", 2_932_896: "9999-12-31", -719_162 + 59: "0001-03-01"]
        days.append(contentsOf: ends.keys)
        // Each object made by a host function, its words set just before it is handed over (as
        // the words are meant to be given).
        let make = try rt.makeSingleValueFunction(name: "thing") { args in
            thing(try args.integer(0), [0: try args.integer(1)])
        }
        try rt.setGlobal("thing", .function(make))
        let list = LuaValue.table(LuaTable(array: days.map { .integer($0) }))
        let dates = try eval(rt, "local out = {} for i, day in ipairs(...) do out[i] = thing(100 + i, day).day end return out", [list])
        guard case let .table(table)? = dates.first else { Issue.record("no table"); return }
        for (n, day) in days.enumerated() {
            let expected = day < -719_162 || day > 2_932_896
                ? "index 1 of \(101 + n)" : ends[day] ?? formatter.string(from: Date(timeIntervalSince1970: Double(day) * 86_400))
            #expect(table.array[n] == .string(expected), "day \(day)")
        }
        // Words of thousands of objects set before any is handed over (a query's results) wait
        // until each object is pushed; taking them out of the waiting table one by one keeps the
        // others findable. Objects pushed in another order than their words were set, some twice.
        let asked = calls.counts["field 1"]
        var batch: [LuaValue] = []
        for n in 0..<3000 { batch.append(thing(10_000 + Int64(n), [0: 20_454 + Int64(n % 400)])) }
        let order = (0..<3000).map { ($0 * 7919) % 3000 } + [5, 17, 2999]
        let read = try eval(rt, "local out = {} for i, t in ipairs(...) do out[i] = t.day end return out",
                            [.table(LuaTable(array: order.map { batch[$0] }))])
        guard case let .table(late)? = read.first else { Issue.record("no table"); return }
        #expect(late.array == order.map { .string(formatter.string(from: Date(timeIntervalSince1970: Double(20_454 + $0 % 400) * 86_400))) })
        #expect(calls.counts["field 1"] == asked, "every object of the batch had its words")

        // Words set twice before the object is handed over: the second set counts.
        _ = thing(50, [0: 1])
        let twice = thing(50, [0: 20_454])
        #expect(try eval(rt, "local t = ... return t.day", [twice]) == ["2026-01-01"])

        // Bad declarations are refused.
        for bad: [Int: LuaWordField] in [[0: .integer(word: 5)], [7: .integer(word: 0)], [-1: .date(word: 0)],
                                         [2: .object(word: 1, of: LuaClassID(rawValue: 999))]] {
            expectHostError({ try rt.setWordFields(cls, bad) }) {
                if case .invalidValue = $0 { return true }
                return false
            }
        }
    }

    @Test func sequencesServeElementsInCAndAskForOtherKeysOnce() throws {
        let rt = try LuaRuntime()
        let calls = Counter()
        let cls = try rt.registerClass(name: "Item", fields: ["n", "day", "name"]) { obj, key in
            guard case let .field(k) = key else { return .nil }
            calls.add("field \(k) of \(obj.id)")
            return .string("index \(k) of \(obj.id)")
        }
        try rt.setWordFields(cls, [0: .integer(word: 0), 1: .date(word: 1)])
        // Sequence 7 has three items (ids 70, 71, 72; the third has no words); any other handle is stale.
        let make = try rt.makeSequenceConstructor(name: "items", element: { handle, index in
            calls.add("element \(handle) \(index)")
            guard handle == 7 else { throw LuaScriptError("stale items") }
            guard index <= 2 else { return index == 3 ? LuaElement(LuaObject(classID: cls, id: 72)) : nil }
            var words = LuaObjectWords()
            words[0] = Int64(index * 10)
            words[1] = 20_454 + Int64(index)
            return LuaElement(LuaObject(classID: cls, id: 69 + Int64(index)), words: words)
        }, integerColumns: ["ids", "squares"], column: { handle, column, into in
            calls.add("column \(handle) \(column)")
            guard handle == 7 else { throw LuaScriptError("stale items") }
            for i in into.indices { into[i] = column == 0 ? 70 + Int64(i) : Int64(i * i) }
        }, field: { handle, key in
            calls.add("field \(handle) \(key.stringValue ?? "?")")
            guard case let .string(name) = key, name == "total" else { throw LuaScriptError("no field '\(key.stringValue ?? "?")'") }
            return .table(LuaTable(array: [.integer(handle), .integer(3)]))
        })
        try rt.setGlobal("items", .function(make))
        let out = try eval(rt, """
            local t = items(7, 3)
            local a, b = t[1], t[1]
            local total = t.total
            return t.n, #t, a == b, rawequal(a, b), a.n, a.day, t[2].day, t[3].n, t[3].name, t[4], t[0], t[1.5], t[2.0].n,
              total[1], rawequal(total, t.total), type(t), getmetatable(t)
            """)
        #expect(out == [3, 3, true, true, 10, "2026-01-02", "2026-01-03", "index 0 of 72", "index 2 of 72", .nil, .nil, .nil, 20,
                        7, true, "userdata", "items"])
        // Elements are asked for each read (the object is interned; its words came with it), the
        // other key once; out-of-range numbers never reach the host.
        #expect(calls.counts == ["element 7 1": 2, "element 7 2": 2, "element 7 3": 2, "field 7 total": 1,
                                 "field 0 of 72": 1, "field 2 of 72": 1])
        // The host's errors are raised at the line that read the key; a sequence is read-only.
        for (body, message) in [("local t = items(8, 1)\nreturn t[1]", "rules/test.lua:3: stale items"),
                                ("local t = items(7, 1)\nreturn t.other", "rules/test.lua:3: no field 'other'"),
                                ("local t = items(7, 1)\nsetmetatable(t, nil)", "table expected"),
                                ("local t = items(7, 1)\nt.n = 5", "rules/test.lua:3: attempt to modify read-only items"),
                                ("local t = items(7, 1)\nt[1] = 5", "rules/test.lua:3: attempt to modify read-only items"),
                                ("local t = items(7, 1)\nrawset(t, 'n', 5)", "table expected"),
                                ("return items(7, -1)", "a sequence's length cannot be negative"),
                                ("return items('x', 1)", "number expected")] {
            expectHostError({ _ = try eval(rt, body) }) { $0.description.contains(message) }
        }

        // Integer columns: plain arrays of n integers the host writes in one call, kept in the table.
        let before = calls.counts
        let columns = try eval(rt, """
            local t = items(7, 3)
            local ids, squares = t.ids, t.squares
            ids[1] = 0
            return #ids, ids[2], ids[3], squares[3], rawequal(ids, t.ids), items(7, 3).ids[1], #items(7, 0).squares,
              #items(7, 20000).squares, items(7, 20000).squares[20000]
            """)
        #expect(columns == [3, 71, 72, 4, true, 70, 0, 20_000, 399_960_001])
        #expect(calls.counts["column 7 0"] == 2 && calls.counts["column 7 1"] == 4)
        #expect(calls.counts.filter { $0.key.hasPrefix("field") } == before.filter { $0.key.hasPrefix("field") })
        expectHostError({ _ = try eval(rt, "local t = items(9, 2)\nreturn t.ids") }) { $0.description.contains("rules/test.lua:3: stale items") }
        // Each sequence made is its own, with its own fields and columns.
        #expect(try eval(rt, "local t, u = items(7, 2), items(7, 2) return rawequal(t, u), rawequal(t.total, u.total), rawequal(t.ids, u.ids), #u") == [false, false, false, 2])
    }

    /// A record function reads a plain table's named fields in C, one raw lookup each (other keys
    /// are ignored, metamethods are not run), and hands anything else to the host function.
    @Test func recordFunctionsReadPlainTablesAndFallBackForTheRest() throws {
        let rt = try LuaRuntime()
        let cls = try rt.registerClass(name: "Thing") { _, _ in .nil }
        let names = LuaFieldNames(["message", "count", "thing", "list"])
        let seen = Counter()
        var records: [String] = []
        let record = try rt.makeRecordFunction(name: "record", fields: names, record: { fields in
            if fields.withBytes(0, { String(decoding: $0, as: UTF8.self) }) == "fail" { throw LuaScriptError("record: no") }
            let list = try fields.value(3)
            records.append([
                fields.withBytes(0) { String(decoding: $0, as: UTF8.self) } ?? "-",
                fields.number(1).map { "\($0)" } ?? "-",
                fields.object(2).map { "#\($0.id)" } ?? "-",
                list.isNil ? "-" : "list \(list.tableValue?.array.count ?? -1)",
                "\(fields.strayCount)",
            ].joined(separator: " "))
        }, otherwise: { args in
            seen.add("otherwise \(args.typeName(0))")
            return [.integer(99)]
        })
        try rt.setGlobal("record", .function(record))
        let thing = LuaValue.object(LuaObject(classID: cls, id: 7))
        let out = try eval(rt, """
            local thing = ...
            local a = record{ message = "hi", count = 2, thing = thing, list = { 1, 2, 3 }, other = true, [1] = "x" }
            record{ count = 2.5 }
            record(setmetatable({ message = "meta" }, { __index = function() error("never") end }))
            local b = record("plain")
            record{ message = setmetatable({}, { __index = function() error("never") end }) }
            return a, b
            """, [thing])
        // It returns nothing, whichever way it went.
        #expect(out == [.nil, .nil])
        #expect(records == ["hi 2.0 #7 list 3 0", "- 2.5 - - 0", "- - - - 0"])
        #expect(seen.counts == ["otherwise table": 1, "otherwise string": 1])
        // An error the record throws is raised at the line of the call, catchable by pcall.
        expectHostError({ _ = try eval(rt, "local x = 1\nrecord{ message = 'fail' }") }) {
            if case let .runtime(chunk, line, text, _) = $0 { return chunk == "rules/test.lua" && line == 3 && text == "record: no" }
            return false
        }
        #expect(try eval(rt, "return pcall(record, { message = 'fail' })").first == false)
    }

    /// Objects of a kept class outlive Lua's hold on them until the field epoch ends, keeping what
    /// their fields read: a shift type read for every shift asks the host once. (An object of
    /// another class that Lua let go of is collected, and made again, asks again: the control.)
    @Test func keptObjectsKeepTheirFieldsUntilTheEpochEnds() throws {
        let rt = try LuaRuntime()
        let calls = Counter()
        let kept = try rt.registerClass(name: "Kept", fields: ["name"]) { obj, _ in
            calls.add("kept")
            return .string("k\(obj.id)")
        }
        let plain = try rt.registerClass(name: "Plain", fields: ["name"]) { obj, _ in
            calls.add("plain")
            return .string("p\(obj.id)")
        }
        try rt.keepObjects(of: kept)
        try rt.registerFunction(name: "get") { args in
            [.object(LuaObject(classID: try args.string(0) == "kept" ? kept : plain, id: 1))]
        }
        let read = """
            local which = ...
            local first = get(which).name
            -- garbage enough for several collections, while nothing holds the object
            for i = 1, 4000 do local t = { i, tostring(i), {} } end
            return first, get(which).name
            """
        #expect(try eval(rt, read, [.string("kept")]) == ["k1", "k1"])
        #expect(try eval(rt, read, [.string("plain")]) == ["p1", "p1"])
        #expect(calls.counts == ["kept": 1, "plain": 2])
        // A new field epoch: the kept object asks again.
        rt.invalidateFieldCaches()
        #expect(try eval(rt, read, [.string("kept")]) == ["k1", "k1"])
        #expect(calls.counts["kept"] == 2)
    }

    @Test func staticFieldsAreReadBeforeTheIndex() throws {
        let rt = try LuaRuntime()
        let calls = Counter()
        let cls = try rt.registerClass(name: "Thing") { _, key in
            calls.add(key.stringValue ?? "?")
            return .string("from index")
        }
        let hello = try rt.makeFunction(name: "hello") { args in [.string("hello \(try args.object(0).id)")] }
        try rt.setStatic(cls, "hello", .function(hello))
        try rt.setStatic(cls, "kind", .string("static"))
        let out = try eval(rt, "local t = ... return t:hello(), t.kind, t.other", [.object(LuaObject(classID: cls, id: 3))])
        #expect(out == ["hello 3", "static", "from index"])
        #expect(calls.counts == ["other": 1])
        expectHostError({ try rt.setStatic(cls, "shared", .table(LuaTable(array: [1]))) }) {
            if case .invalidValue = $0 { return true }
            return false
        }
    }

    @Test func reentrantEvaluationIsRefused() throws {
        let rt = try LuaRuntime()
        let f = try rt.loadPlugin(source: "return function() return 1 end", chunkName: "x.lua")
        // Weakly: the runtime keeps its host functions, so a strong capture would be a cycle.
        try rt.registerFunction(name: "reenter") { [weak rt] _ in
            _ = try rt?.call(f)
            return []
        }
        let out = try eval(rt, "return pcall(reenter)")
        #expect(out[0] == false)
        #expect(out[1].stringValue?.contains("re-entrant") == true)
    }

    @Test func manyHostCallsFromOneChunkRoundTrip() throws {
        // What one call costs is a benchmark figure (shiftbench), not a test: machines vary.
        let rt = try LuaRuntime()
        try rt.registerFunction(name: "inc") { args in [.integer(try args.integer(0) + 1)] }
        let n = 200_000
        let out = try eval(rt, "local x = 0 for i = 1, \(n) do x = inc(x) end return x")
        #expect(out == [.integer(Int64(n))])
    }

    @Test func printGoesToTheHandlerTaggedWithTheChunk() throws {
        let lines = Mutex<[String]>([])
        let rt = try LuaRuntime(configuration: .init(print: { chunk, msg in
            lines.withLock { $0.append("\(chunk)|\(msg)") }
        }))
        _ = try eval(rt, "print('hello', 1, nil, true)", chunk: "rules/p.lua")
        #expect(lines.withLock { $0 } == ["rules/p.lua|hello\t1\tnil\ttrue"])
    }
}

import Synchronization

@Suite struct ErrorReportingTests {
    @Test func syntaxErrorsNameFileAndLine() throws {
        let rt = try LuaRuntime()
        expectHostError({ _ = try rt.loadPlugin(source: "local x = 1\nlocal y = = 2\n", chunkName: "rules/bad.lua") }) {
            if case let .syntax(chunk, line, message) = $0 {
                return chunk == "rules/bad.lua" && line == 2 && message.contains("unexpected symbol")
            }
            return false
        }
        let e = LuaHostError.syntax(chunk: "rules/bad.lua", line: 2, message: "unexpected symbol near '='")
        #expect(e.description == "rules/bad.lua:2: syntax error: unexpected symbol near '='")
    }

    @Test func runtimeErrorsNameFileAndLineWithTraceback() throws {
        let rt = try LuaRuntime()
        expectHostError({
            _ = try rt.loadPlugin(source: "local t = nil\n\nreturn t.x", chunkName: "rules/no_double_booking.lua")
        }) {
            if case let .runtime(chunk, line, message, traceback) = $0 {
                return chunk == "rules/no_double_booking.lua" && line == 3
                    && message.contains("attempt to index a nil value") && traceback.contains("stack traceback")
                    && $0.description.hasPrefix("rules/no_double_booking.lua:3: attempt to index")
            }
            return false
        }
    }

    @Test func errorObjectsThatAreTablesAreNotStringified() throws {
        let rt = try LuaRuntime()
        let start = ContinuousClock.now
        expectHostError({
            _ = try eval(rt, "error(setmetatable({}, { __tostring = function() while true do end end }))")
        }) {
            if case let .runtime(chunk, _, message, _) = $0 {
                return chunk == "rules/test.lua" && message == "error object is a table value"
            }
            return false
        }
        #expect(ContinuousClock.now - start < .seconds(1))
        expectHostError({ _ = try eval(rt, "error({ code = 1 })") }) {
            if case let .runtime(_, _, message, _) = $0 { return message == "error object is a table value" }
            return false
        }
    }

    @Test func callingANonFunctionIsARuntimeError() throws {
        let rt = try LuaRuntime()
        let t = try rt.makeRef(["a": 1])
        expectHostError({ _ = try rt.call(t) }) {
            if case let .runtime(_, _, m, _) = $0 { return m.contains("attempt to call") }
            return false
        }
    }
}

/// Counts calls from host callbacks (which are not isolated: tests run them on one thread).
final class Counter: @unchecked Sendable {
    var total: Int64 = 0
    var counts: [String: Int] = [:]
    func add(_ key: String) { counts[key, default: 0] += 1 }
}
