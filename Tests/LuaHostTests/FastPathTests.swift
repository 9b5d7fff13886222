import Synchronization
import Testing

@testable import LuaHost

/// Each speed-only mechanism of the runtime beside the plain path it stands in for: the same
/// script, with and without it (`LuaRuntime.Configuration.plainPaths`, or the plain Lua value
/// the mechanism replaces), gives the same results. (The format fast path is compared with stock
/// Lua in StringDifferentialTests; trials in TrialTests; the rules' person phases, and every
/// runtime mechanism under the stock rules, in ShiftRulesTests' PlainPathTests.)
@Suite struct FastPathTests {
    final class Log: Sendable {
        let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    func runtime(_ plain: LuaRuntime.PlainPaths) throws -> LuaRuntime {
        var configuration = LuaRuntime.Configuration()
        configuration.plainPaths = plain
        return try LuaRuntime(configuration: configuration)
    }

    @Test func theBlockPoolGivesWhatMallocGives() throws {
        let body = """
            local t, parts = {}, {}
            for i = 1, 20000 do t[i] = { i, tostring(i), ('x'):rep(i % 700) } end
            local kept = {}
            for i = 1, #t do if i % 7 ~= 1 then kept[#kept + 1] = t[i] end end
            t = kept
            table.sort(t, function(a, b) return #a[3] > #b[3] or (#a[3] == #b[3] and a[1] < b[1]) end)
            for i = 1, 200 do parts[#parts + 1] = t[i][2] .. ':' .. #t[i][3] end
            local big = {}
            for i = 1, 3000 do big[#big + 1] = ('y'):rep(i) end
            return table.concat(parts, ','), #table.concat(big), collectgarbage('count') > 0
            """
        let pooled = try runtime([]), plain = try runtime(.blockPool)
        #expect(try eval(pooled, body) == eval(plain, body))
        // The same blocks asked for: the same bytes counted against the cap.
        #expect(pooled.memoryInUse == plain.memoryInUse)
        let bomb = "local t = {} while true do t[#t + 1] = ('x'):rep(1000) .. #t end"
        let limits = LuaRuntime.Configuration(memoryLimit: 8 << 20)
        var plainLimits = limits
        plainLimits.plainPaths = .blockPool
        for rt in [try LuaRuntime(configuration: limits), try LuaRuntime(configuration: plainLimits)] {
            expectHostError({ _ = try eval(rt, bomb) }, isMemory)
        }
    }

    /// Fields kept in objects (declared-field slots, a caching class's cached fields) and objects
    /// kept for the field epoch, against asking the class's index function on every read: the
    /// same values over two field epochs, with fewer questions to the host.
    @Test func keptFieldsAndObjectsGiveWhatTheIndexGives() throws {
        func run(_ plain: LuaRuntime.PlainPaths) throws -> ([LuaValue], Int) {
            let rt = try runtime(plain)
            let calls = Log()
            let value = Mutex(0)
            let declared = try rt.registerClass(name: "Declared", fields: ["name", "n"]) { obj, key in
                calls.add("declared")
                guard case let .field(k) = key else { return .nil }
                return k == 0 ? .string("d\(obj.id)") : .integer(obj.id * 10 + Int64(value.withLock { $0 }))
            }
            let cached = try rt.registerClass(name: "Cached", cachesFields: true) { obj, key in
                calls.add("cached")
                switch key.stringValue {
                case "n": return .integer(obj.id + Int64(value.withLock { $0 }))
                case "other": return .object(LuaObject(classID: declared, id: obj.id + 1))
                case "list": return .table(LuaTable(array: [.integer(obj.id)]))
                default: return .nil
                }
            }
            try rt.keepObjects(of: declared)
            try rt.registerFunction(name: "get") { args in
                [.object(LuaObject(classID: try args.string(0) == "declared" ? declared : cached, id: try args.integer(1)))]
            }
            let body = """
                local out = {}
                for round = 1, 3 do
                  for id = 1, 5 do
                    local d, c = get("declared", id), get("cached", id)
                    out[#out + 1] = d.name .. ":" .. d.n .. ":" .. tostring(d.missing) .. ":" .. c.n .. ":"
                      .. c.other.name .. ":" .. c.list[1] .. ":" .. tostring(c.nothing)
                  end
                  for i = 1, 3000 do local t = { i, tostring(i), {} } end
                end
                return table.concat(out, ",")
                """
            var results = try eval(rt, body)
            value.withLock { $0 = 7 }
            rt.invalidateFieldCaches()
            results += try eval(rt, body)
            return (results, calls.all.count)
        }
        let (fast, fastCalls) = try run([])
        let (plain, plainCalls) = try run([.fieldSlots, .keptObjects])
        #expect(fast == plain)
        #expect(fast.count == 2 && fast[0] != fast[1], "the second epoch shows the new values")
        #expect(fastCalls < plainCalls, "the fast path asks the host less (\(fastCalls) against \(plainCalls))")
    }

    /// Option tables read in C by name (`LuaArguments.withFields`) against the table converted
    /// to a `LuaValue` and looked up: 400 random tables of known and stray keys, values of every
    /// kind, nested tables read both ways.
    @Test func optionTablesReadInCGiveWhatTheConvertedTableGives() throws {
        let rt = try runtime([])
        let names = LuaFieldNames(["person", "date", "span", "limit", "type", "p"])
        let inner = LuaFieldNames(["starts_at", "ends_at", "p"])
        try rt.registerFunction(name: "both") { args in
            guard case let .table(table) = try args.value(0) else { return ["not a table"] }
            var mismatches: [LuaValue] = []
            var compared = 0
            try args.withFields(0, names) { fields in
                var known = 0
                for (k, name) in names.names.enumerated() {
                    let read = try fields.value(k), looked = table[name]
                    if read != looked { mismatches.append(.string("\(name): \(read) against \(looked)")) }
                    if fields.isNil(k) != looked.isNil || fields.isTable(k) != (looked.tableValue != nil) {
                        mismatches.append(.string("\(name): kind"))
                    }
                    if !looked.isNil { known += 1 }
                    compared += 1
                    if let nested = looked.tableValue {
                        try fields.withFields(of: k, inner) { innerFields in
                            for (j, innerName) in inner.names.enumerated() where try innerFields.value(j) != nested[innerName] {
                                mismatches.append(.string("\(name).\(innerName)"))
                            }
                        }
                    }
                }
                let entries = table.array.count + table.hash.count
                if fields.strayCount != entries - known {
                    mismatches.append(.string("stray \(fields.strayCount) against \(entries - known)"))
                }
            }
            return [.integer(Int64(compared))] + mismatches
        }
        let body = """
            local state = 12345
            local function rand(n)
              state = (state * 1103515245 + 12345) % 2147483648
              return state % n
            end
            local keys = { "person", "date", "span", "limit", "type", "p", "colour", "x", "persons", "dat" }
            local function value(depth)
              local kind = rand(depth > 0 and 6 or 7)
              if kind == 0 then return rand(1000) - 500
              elseif kind == 1 then return rand(1000) / 7
              elseif kind == 2 then return ("v"):rep(rand(60))
              elseif kind == 3 then return rand(2) == 0
              elseif kind == 4 then return math.maxinteger - rand(3)
              elseif kind == 5 then return ""
              else
                local t = {}
                for _, k in ipairs({ "starts_at", "ends_at", "p", "y" }) do
                  if rand(2) == 0 then t[k] = value(depth + 1) end
                end
                if rand(4) == 0 then t[1] = value(depth + 1) end
                return t
              end
            end
            local compared, failures = 0, {}
            for i = 1, 400 do
              local t = {}
              for _ = 1, rand(8) do t[keys[rand(#keys) + 1]] = value(0) end
              if rand(5) == 0 then t[rand(3) + 1] = value(0) end
              local results = { both(t) }
              compared = compared + results[1]
              for j = 2, #results do failures[#failures + 1] = i .. ": " .. results[j] end
            end
            return compared, table.concat(failures, "; ")
            """
        let out = try eval(rt, body)
        #expect(out.first == .integer(400 * Int64(names.count)))
        #expect(out.last == .string(""))
    }

    /// Word fields against the class's index function serving the same values.
    @Test func wordFieldsGiveWhatTheIndexGives() throws {
        func run(_ plain: LuaRuntime.PlainPaths) throws -> ([LuaValue], Int) {
            let rt = try runtime(plain)
            let calls = Log()
            let other = try rt.registerClass(name: "Other", fields: ["id"]) { obj, _ in .integer(obj.id) }
            let cls = try rt.registerClass(name: "Thing", fields: ["n", "day", "friend", "name"]) { obj, key in
                guard case let .field(k) = key else { return .nil }
                calls.add("\(k)")
                switch k {
                case 0: return .integer(obj.id * 3)
                case 1: return obj.id % 2 == 0 ? .string("2026-01-0\(obj.id % 9 + 1)") : .nil
                case 2: return .object(LuaObject(classID: other, id: obj.id + 100))
                default: return .string("thing \(obj.id)")
                }
            }
            try rt.setWordFields(cls, [0: .integer(word: 0), 1: .date(word: 1), 2: .object(word: 2, of: other)])
            try rt.registerFunction(name: "things") { _ in
                (1...40).map { (id: Int64) in
                    var words = LuaObjectWords()
                    words[0] = id * 3
                    if id % 2 == 0 { words[1] = 20_454 + id % 9 }
                    words[2] = id + 100
                    rt.setWords(LuaObject(classID: cls, id: id), words)
                    return .object(LuaObject(classID: cls, id: id))
                }
            }
            let out = try eval(rt, """
                local r = {}
                for _, t in ipairs({ things() }) do
                  r[#r + 1] = table.concat({ t.n, tostring(t.day), t.friend.id, t.name, tostring(t.friend == t.friend) }, ' ')
                end
                return table.concat(r, '\\n')
                """)
            return (out, calls.all.count)
        }
        let (fast, asked) = try run([])
        let (plain, askedPlain) = try run(.wordFields)
        #expect(fast == plain)
        #expect(asked < askedPlain, "the words spared the index \(askedPlain - asked) calls")
    }

    /// A record function against its fallback host function, on the same calls.
    @Test func recordFunctionsGiveWhatTheirFallbackGives() throws {
        func run(_ plain: LuaRuntime.PlainPaths) throws -> [String] {
            let rt = try runtime(plain)
            let log = Log()
            let cls = try rt.registerClass(name: "Thing") { _, _ in .nil }
            let names = LuaFieldNames(["message", "count", "thing", "list"])
            func describe(_ values: [LuaValue]) -> String { values.map { "\($0)" }.joined(separator: " | ") }
            let record = try rt.makeRecordFunction(name: "record", fields: names, record: { fields in
                if fields.withBytes(0, { String(decoding: $0, as: UTF8.self) }) == "fail" { throw LuaScriptError("record: no") }
                log.add(describe(try (0..<4).map { try fields.value($0) }))
            }, otherwise: { args in
                guard args.isTable(0) else { log.add("other \(args.typeName(0))"); return [] }
                var values = [LuaValue](repeating: .nil, count: 4)
                try args.forEachEntry(0) { key, value in
                    if case let .string(name) = key, let k = ["message", "count", "thing", "list"].firstIndex(of: name) { values[k] = value }
                }
                if values[0] == "fail" { throw LuaScriptError("record: no") }
                log.add(describe(values))
                return []
            })
            try rt.setGlobal("record", .function(record))
            let out = try eval(rt, """
                local thing = ...
                local a = record{ message = "hi", count = 2, thing = thing, list = { 1, 2, 3 }, other = true, [1] = "x" }
                record{ count = 2.5 }
                record{}
                record("plain")
                local ok, e = pcall(record, { message = 'fail' })
                return a, ok, e
                """, [.object(LuaObject(classID: cls, id: 7))])
            return log.all + out.map { "\($0)" }
        }
        #expect(try run([]) == run(.recordFunctions))
    }

    /// A host sequence against a plain table of the same objects (with the same words) and the
    /// same integer columns.
    @Test func hostSequencesGiveWhatPlainTablesGive() throws {
        let rt = try LuaRuntime()
        let cls = try rt.registerClass(name: "Item", fields: ["n", "day"]) { obj, key in
            guard case let .field(k) = key else { return .nil }
            return k == 0 ? .integer(obj.id * 10) : .string("2026-01-0\(obj.id % 9 + 1)")
        }
        try rt.setWordFields(cls, [0: .integer(word: 0)])
        func element(_ index: Int) -> LuaElement {
            var words = LuaObjectWords()
            words[0] = Int64(index) * 10
            return LuaElement(LuaObject(classID: cls, id: Int64(index)), words: words)
        }
        let make = try rt.makeSequenceConstructor(name: "items", element: { _, index in
            index <= 30 ? element(index) : nil
        }, integerColumns: ["ids"], column: { _, _, into in
            for i in into.indices { into[i] = Int64(i + 1) }
        }, field: { _, _ in .nil })
        try rt.setGlobal("items", .function(make))
        try rt.registerFunction(name: "plain_items") { _ in
            let objects = (1...30).map { index -> LuaValue in
                let e = element(index)
                rt.setWords(e.object, e.words!)
                return .object(e.object)
            }
            return [.table(LuaTable(array: objects)), .table(LuaTable(array: (1...30).map { .integer(Int64($0)) }))]
        }
        let script = """
            local list, ids = ...
            local r = { #list }
            for i = 1, #list do r[#r + 1] = list[i].n .. list[i].day .. ids[i] end
            for i, item in ipairs(list) do r[#r + 1] = i .. ':' .. item.n end
            r[#r + 1] = tostring(list[0]) .. tostring(list[31]) .. tostring(list[1] == list[1])
            return table.concat(r, ',')
            """
        let sequence = try eval(rt, "local s = items(1, 30)\nreturn (function(...) \(script) end)(s, s.ids)")
        let plain = try eval(rt, "return (function(...) \(script) end)(plain_items())")
        #expect(sequence == plain)
    }
}
