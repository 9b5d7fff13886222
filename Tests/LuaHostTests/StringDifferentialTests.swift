import Testing

@testable import LuaHost

/// The sandbox's string.find, match, gmatch, gsub and format against stock Lua's (a plain state
/// with the stock string library, `StockLua`) on generated patterns, subjects and formats: the
/// same script runs in both, and every call the sandbox accepts gives what stock Lua gives,
/// results and error messages alike. The sandbox may refuse a pattern ("pattern too complex")
/// where its bound on the work is over the limit; the script below keeps subjects short, so
/// nearly every pattern is accepted, and the test fails if too many are not.
@Suite struct StringDifferentialTests {
    /// Lua that prints one line per call: its results, or its error without a position. A
    /// linear congruential generator of its own makes the cases, so both states see the same.
    static func script(cases: Int, seed: Int) -> String {
        """
        local seed = \(seed)
        local function rand(n) seed = (seed * 1103515245 + 12345) % 2147483648 return seed % n + 1 end
        local function pick(t) return t[rand(#t)] end
        local atoms = { 'a', 'b', '.', '%a', '%d', '%s', '%w', '%A', '%S', '[ab]', '[^a]', '[a-c]', '[%d.]',
                        '[]a]', '%.', '%(', '-', 'x', ' ', '1' }
        local suffixes = { '', '', '', '*', '+', '-', '?' }
        local specials = { '(', ')', '()', '%b()', '%f[%w]', '%f[%W]', '%1', '$', '^', '%', '[a', '%b' }
        local function pattern()
          local parts = {}
          if rand(4) == 1 then parts[1] = '^' end
          for _ = 1, rand(5) do
            if rand(5) == 1 then parts[#parts + 1] = pick(specials)
            else parts[#parts + 1] = pick(atoms) .. pick(suffixes) end
          end
          if rand(6) == 1 then parts[#parts + 1] = '$' end
          return table.concat(parts)
        end
        local letters = { 'a', 'a', 'b', 'c', ' ', '1', '2', '.', '(', ')', '-', 'x', 'A', '\\0' }
        local function subject()
          local t = {}
          for i = 1, rand(24) - 1 do t[i] = pick(letters) end
          return table.concat(t)
        end
        local function show(ok, ...)
          if not ok then return 'error: ' .. tostring((...)):gsub('^[^:]*:%d+: ', '') end
          local t = table.pack(...)
          for i = 1, t.n do t[i] = type(t[i]) .. ':' .. tostring(t[i]) end
          return table.concat(t, ',', 1, t.n)
        end
        local function collect(s, p, init)
          local r = {}
          for a, b in string.gmatch(s, p, init) do r[#r + 1] = tostring(a) .. '|' .. tostring(b) end
          return table.concat(r, ';')
        end
        local replacements = { '<%0>', '%1', 'x%%y', '', { a = 'A', ['1'] = 1, b = false },
                               function(a, b) if a == 'b' then return nil end return '[' .. a .. tostring(b) .. ']' end }
        local out = {}
        for _ = 1, \(cases) do
          local s, p = subject(), pattern()
          local init = rand(6) == 1 and rand(#s + 3) - 2 or nil
          out[#out + 1] = show(pcall(string.find, s, p, init, rand(8) == 1))
          out[#out + 1] = show(pcall(string.match, s, p, init))
          out[#out + 1] = show(pcall(collect, s, p, init))
          out[#out + 1] = show(pcall(string.gsub, s, p, pick(replacements), rand(4) == 1 and rand(3) or nil))
        end
        return table.concat(out, '\\n')
        """
    }

    @Test(arguments: [1, 2, 3, 4])
    func patternFunctionsGiveWhatStockLuaGives(seed: Int) throws {
        let body = Self.script(cases: 500, seed: seed)
        let rt = try LuaRuntime(configuration: .init(instructionBudget: 2_000_000_000, timeLimit: .seconds(60)))
        guard case let .string(guarded)? = try eval(rt, body).first else { Issue.record("no result"); return }
        let stock = try StockLua.run(body).joined(separator: "\u{1}")
        let ours = guarded.split(separator: "\n", omittingEmptySubsequences: false)
        let theirs = stock.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(ours.count == theirs.count)
        var refused = 0
        for (k, (a, b)) in zip(ours, theirs).enumerated() where a != b {
            if a == "error: pattern too complex" { refused += 1; continue }
            Issue.record("case \(k / 4), call \(k % 4): sandbox \(a) | stock \(b)")
        }
        #expect(refused * 100 <= ours.count, "\(refused) of \(ours.count) calls refused")
    }

    /// Formats the fast path takes (plain `%s`, `%d`, `%%`) and formats it does not, with
    /// arguments of every kind: the fast path and the stock function it falls back on both give
    /// what stock Lua gives (string.format has no switch: stock Lua is the plain path).
    @Test(arguments: [11, 12])
    func formatGivesWhatStockLuaGives(seed: Int) throws {
        let body = """
            local seed = \(seed)
            local function rand(n) seed = (seed * 1103515245 + 12345) % 2147483648 return seed % n + 1 end
            local function pick(t) return t[rand(#t)] end
            local pieces = { '%s', '%s', '%d', '%d', '%%', 'text ', '-', '%5d', '%-3s', '%x', '%.2f', '%g', '%q', '%i', '%' }
            local values = { 'w', '', 'a\\0b', 42, -7, 0, math.mininteger, 1.5, 3.0, -0.0, true, false, nil, 1e100,
                             '10', ('x'):rep(600), setmetatable({}, { __tostring = function() return 'T' end }) }
            local out = {}
            for _ = 1, 1500 do
              local f = {}
              for i = 1, rand(5) do f[i] = pick(pieces) end
              local args = {}
              for i = 1, rand(5) - 1 do args[i] = values[rand(#values)] end
              local fmt = table.concat(f)
              local ok, r = pcall(function() return fmt:format(table.unpack(args, 1, 4)) end)
              local ok2, r2 = pcall(string.format, fmt, table.unpack(args, 1, 4))
              out[#out + 1] = tostring(ok) .. ':' .. tostring(r):gsub('^[^:]*:%d+: ', '') .. ' / ' .. tostring(ok2) .. ':' .. tostring(r2)
            end
            return table.concat(out, '\\n')
            """
        guard case let .string(guarded)? = try eval(LuaRuntime(), body).first else { Issue.record("no result"); return }
        // Called from C (pcall), a function is named after where the loaded modules hold it:
        // the sandbox's string table is frozen (its fields live in a backing table), so the
        // sandbox names it '?' where stock Lua says 'string.format', as it always has.
        let stock = try StockLua.run(body).joined(separator: "\u{1}").replacingOccurrences(of: "'string.format'", with: "'?'")
        let ours = guarded.split(separator: "\n", omittingEmptySubsequences: false)
        let theirs = stock.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(ours.count == theirs.count)
        for (k, (a, b)) in zip(ours, theirs).enumerated() where a != b {
            Issue.record("case \(k): sandbox \(a) | stock \(b)")
        }
    }
}

/// The fast path's numbers (`%.Nf`, `%g`) against stock Lua's printf: values near rounding ties,
/// near powers of ten and the limits of the fast path, negative zero and numbers that round to
/// it, integers, and what it leaves to printf (NaN, infinities, tiny and huge values).
@Suite struct FormatNumberDifferentialTests {
    @Test(arguments: [21, 22])
    func numbersFormatAsStockLuaFormatsThem(seed: Int) throws {
        let body = """
            local seed = \(seed)
            local function rand(n) seed = (seed * 1103515245 + 12345) % 2147483648 return seed % n + 1 end
            local special = { 0, -0.0, 0.5, 0.25, -0.25, 0.05, 0.15, 2.5, -2.5, 1.005, 9.9999995, 9.999996, 99999.95,
                              999999.4, 999999.5, 1e6, 1e-5, 123456789.123, 4294967295.4, 4294967296.6, 1/0, -1/0, 0/0,
                              -0.04, -0.4, 1, 10, 100000, 11, 8, 7.5, 0.1, 0.2, 0.3, 1/3, 2/3, math.pi, -math.pi,
                              math.maxinteger, math.mininteger, 3, -7 }
            local formats = { '%.0f', '%.1f', '%.2f', '%.3f', '%.5f', '%.9f', '%g', '%s gets %.1f h (at least %g h)',
                              '%g%%', '[%.1f|%.2f]' }
            local out = {}
            local function value()
              local k = rand(6)
              if k == 1 then return special[rand(#special)] end
              if k == 2 then return (rand(200000) - 100000) / 10 + 0.05 * (rand(3) - 2) end
              if k == 3 then return (rand(2000000) - 1000000) / 2 ^ rand(12) end
              if k == 4 then return (rand(1000000) - 1) * 10.0 ^ (rand(16) - 10) end
              if k == 5 then return rand(1000000) - 500000 end
              return (rand(1000) - 500) / 1000 * 10.0 ^ rand(9)
            end
            for _ = 1, 4000 do
              local fmt = formats[rand(#formats)]
              local a, b = value(), value()
              local ok, r = pcall(function() return fmt:format(a, b) end)
              if fmt:sub(1, 2) == '%s' then ok, r = pcall(function() return fmt:format('Bob', a, b) end) end
              out[#out + 1] = tostring(ok) .. ':' .. tostring(r)
            end
            return table.concat(out, '\\n')
            """
        guard case let .string(guarded)? = try eval(LuaRuntime(), body).first else { Issue.record("no result"); return }
        let stock = try StockLua.run(body).joined(separator: "\u{1}")
        let ours = guarded.split(separator: "\n", omittingEmptySubsequences: false)
        let theirs = stock.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(ours.count == theirs.count)
        #expect(ours.count == 4000)
        var differences = 0
        for (k, (a, b)) in zip(ours, theirs).enumerated() where a != b {
            differences += 1
            if differences <= 20 { Issue.record("case \(k): sandbox \(a) | stock \(b)") }
        }
        #expect(differences == 0)
    }
}

/// The bound on a pattern's work: what rules do on the strings they handle goes through, what
/// would run for hours is refused at once, and a refused call costs the whole limit.
@Suite struct PatternBoundTests {
    @Test func everydayPatternsOnEverydayStringsAreAccepted() throws {
        let rt = try LuaRuntime()
        let out = try eval(rt, """
            local notes = ('  on call, key = value; ward 12 (night) '):rep(25)
            local words = 0
            for _ in notes:gmatch('%a+') do words = words + 1 end
            local trimmed = notes:match('^%s*(.-)%s*$')
            local k, v = ('  ward = night shift 12; bed = 4'):match('(%w+)%s*=%s*(%w+)')
            local date = ('2025-01-15'):match('^(%d%d%d%d)-(%d%d)-(%d%d)$')
            local long = ('word '):rep(20000)
            return words, #trimmed, k, v, date, (long:find('word', 90000, true)), select(2, long:gsub('%s+', ' '))
            """)
        #expect(out == [150, 997, "ward", "night", "2025", 90001, 20000])
    }

    /// The bound's price: it counts every start position as if each could run the whole
    /// pattern, so two unbounded repetitions over a long subject are refused even where stock
    /// Lua would find a match at once.
    @Test func twoUnboundedRepetitionsOverALongSubjectAreRefused() throws {
        let rt = try LuaRuntime()
        #expect(try eval(rt, "return pcall(string.match, ('y'):rep(40), '(%w+)%s*=?%s*(%w*)')") == [true, .string(String(repeating: "y", count: 40)), ""])
        #expect(try eval(rt, "return pcall(string.match, ('y'):rep(400), '(%w+)%s*=?%s*(%w*)')") == [false, "pattern too complex"])
    }

    @Test func catastrophicPatternsAreRefusedAtOnceAndCostTheLimit() throws {
        let rt = try LuaRuntime(configuration: .init(instructionBudget: 12_000_000, patternStepLimit: 5_000_000))
        let start = ContinuousClock.now
        let out = try eval(rt, """
            local s = ('a'):rep(100000)
            local refused = 0
            for _, p in ipairs({ '.-.-.-.-x', '(.-)(.-)(.-)(.-)x', 'a*a*a*a*b' }) do
              local ok, e = pcall(string.find, s, p)
              if not ok and e == 'pattern too complex' then refused = refused + 1 end
              if refused == 2 then break end
            end
            return refused
            """)
        #expect(out == [2])
        #expect(ContinuousClock.now - start < .seconds(1))
        // two refusals cost 10 million units of the 12 million: a third does not fit
        expectHostError({
            _ = try eval(rt, "for i = 1, 3 do pcall(string.find, ('a'):rep(100000), '.-.-x') end")
        }, isBudget)
    }
}
