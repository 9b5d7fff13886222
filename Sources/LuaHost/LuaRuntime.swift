import CLua
import CLuaShim
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A host function: receives the Lua arguments, returns the results.
/// Throwing raises a Lua error in the calling script (catchable by `pcall`).
public typealias LuaHostFunction = (LuaArguments) throws -> [LuaValue]

/// One sandboxed Lua 5.4 state.
///
/// **Thread safety:** not thread-safe and deliberately not `Sendable`: one
/// owner uses it at a time (create one runtime per worker). ``LuaRef`` values
/// are `Sendable` and may be dropped on any thread, but may only be *used*
/// with the runtime that made them.
///
/// **Error safety:** Swift never calls a Lua API function that can raise.
/// Everything that can raise (allocation, metamethods, running Lua code) runs
/// inside protected calls made by the C shim (CLuaShim); host functions are
/// reached through a C trampoline and only fill a C result buffer. The only
/// Lua functions Swift calls directly are non-raising accessors (`lua_type`,
/// `lua_toboolean`, `lua_tointegerx`, `lua_tonumberx`, `lua_tolstring` on
/// string values only, `lua_rawgeti`, `lua_next` during a traversal it
/// started itself, `lua_checkstack`, `lua_settop`, `lua_gettop`,
/// `lua_absindex`, `lua_pushnil`).
public final class LuaRuntime {
    /// Limits and hooks of a runtime.
    public struct Configuration: Sendable {
        /// Cap on the bytes the Lua state may allocate. Default 64 MiB.
        public var memoryLimit: Int = 64 << 20
        /// Budget per evaluation (`loadPlugin`/`call`), in units: one per VM
        /// instruction, one per pattern-matcher step, one per 64 bytes
        /// allocated, one per element moved by table.insert/remove/move
        /// (n·log2 n for table.sort). Default 10 million.
        public var instructionBudget: Int = 10_000_000
        /// Wall-clock limit per evaluation; `nil` for none. Default 2 s.
        public var timeLimit: Duration? = .seconds(2)
        /// Matcher steps one string.find/match/gsub call (one gmatch loop) may take, by a
        /// bound worked out before it runs (CLuaShim/lh_pattern.c): past it the call is
        /// refused with "pattern too complex" and costs this many budget units. Default 5 million.
        public var patternStepLimit: Int = 5_000_000
        /// Maximum nesting of tables converted between Lua and Swift. Default 32.
        public var maxTableDepth: Int = 32
        /// Maximum number of table entries in one converted value. Default 100 000.
        public var maxTableEntries: Int = 100_000
        /// Folders `require` may load modules from (`a.b` → `<root>/a/b.lua`).
        public var requireRoots: [String] = []
        /// Receives `print(...)` output: (chunk, message), e.g.
        /// ("rules/x.lua", "hello\t1"). Default: discarded.
        public var print: (@Sendable (_ chunk: String, _ message: String) -> Void)?
        /// Whether ``LuaRuntime/call(_:_:rewind:)`` may run a call as a trial first (without
        /// counting instructions, see there). Off, every call is counted. Default on.
        public var trials: Bool = true
        /// Speed-only mechanisms to switch off, each for the plain path it stands in for: for the
        /// tests that compare the two (docs/architecture.md lists them). Default: none.
        public var plainPaths: PlainPaths = []

        public init(
            memoryLimit: Int = 64 << 20,
            instructionBudget: Int = 10_000_000,
            timeLimit: Duration? = .seconds(2),
            patternStepLimit: Int = 5_000_000,
            requireRoots: [String] = [],
            print: (@Sendable (_ chunk: String, _ message: String) -> Void)? = nil
        ) {
            self.memoryLimit = memoryLimit
            self.instructionBudget = instructionBudget
            self.timeLimit = timeLimit
            self.patternStepLimit = patternStepLimit
            self.requireRoots = requireRoots
            self.print = print
        }
    }

    /// Fast paths of the runtime that ``Configuration/plainPaths`` switches off.
    public struct PlainPaths: OptionSet, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// Small blocks from the runtime's slabs; off, every block comes from malloc.
        public static let blockPool = PlainPaths(rawValue: LH_PLAIN_POOL)
        /// Declared fields served from objects' words (``setWordFields(_:_:)``); off, the
        /// class's index function serves them.
        public static let wordFields = PlainPaths(rawValue: LH_PLAIN_WORDS)
        /// Record functions reading a table's fields in C (``makeRecordFunction(name:fields:record:otherwise:)``);
        /// off, every call goes to `otherwise`.
        public static let recordFunctions = PlainPaths(rawValue: LH_PLAIN_RECORDS)
        /// Fields an object served kept in it for the field epoch (declared-field slots, and the
        /// cached fields of a caching class); off, every read asks the class's index function.
        public static let fieldSlots = PlainPaths(rawValue: LH_PLAIN_FIELDS)
        /// Objects of the classes that ask (``keepObjects(of:)``) kept for the field epoch; off,
        /// an object Lua let go is made again when it is next pushed.
        public static let keptObjects = PlainPaths(rawValue: LH_PLAIN_KEPT)
        public static let all: PlainPaths = [.blockPool, .wordFields, .recordFunctions, .fieldSlots, .keptObjects]
    }

    public let configuration: Configuration
    private var rt: OpaquePointer!
    private var L: OpaquePointer { lh_state(rt) }
    let owner = LuaRefOwner()
    /// Host function bodies by id. A function that returns exactly one value (an object class's
    /// `__index`, most host functions) is kept apart and dispatched without a results array.
    private enum HostBody {
        case many(LuaHostFunction)
        case one((LuaArguments) throws -> LuaValue)
        case index((LuaObject, LuaValue) throws -> LuaValue)
        case fields((LuaObject, LuaObjectKey) throws -> LuaValue)
        case element((_ handle: Int64, _ index: Int) throws -> LuaElement?)
        case column((_ handle: Int64, _ column: Int, _ into: UnsafeMutableBufferPointer<Int64>) throws -> Void)
        case record(LuaFieldNames, (LuaFields) throws -> Void)
    }

    /// (`@exclusivity(unchecked)`, here and on `evaluating`: read on every call from Lua, by the
    /// one thread using the runtime, never while it is being changed.)
    @exclusivity(unchecked) private var functions: [HostBody] = []
    fileprivate var functionNames: [String] = []
    private var classCount: Int32 = 0
    private let argTape = Tape()
    private let resultTape = Tape()
    /// Where ``LuaArguments/withFields(_:_:_:)`` reads a table's fields.
    let fieldScratch = FieldScratch()
    /// `makeRef`'s own (an engine makes a reference or two on every evaluation).
    private let refTape = Tape()
    @exclusivity(unchecked) private var evaluating = false

    /// Creates a sandboxed state. Throws ``LuaHostError/setupFailed(reason:)``.
    public init(configuration: Configuration = Configuration()) throws {
        precondition(LuaObjectWords.count == Int(LH_OBJECT_WORDS), "LuaObjectWords and the shim disagree on an object's words")
        self.configuration = configuration
        let roots = configuration.requireRoots.map { strdup($0) }
        defer { roots.forEach { free($0) } }
        var why: UnsafePointer<CChar>? = nil
        let seconds: Double
        if let t = configuration.timeLimit {
            let c = t.components
            seconds = Double(c.seconds) + Double(c.attoseconds) * 1e-18
        } else {
            seconds = 0
        }
        let handle: OpaquePointer? = roots.map { UnsafePointer<CChar>($0) }.withUnsafeBufferPointer { rootBuf in
            var cfg = lh_config()
            cfg.memory_limit = configuration.memoryLimit
            cfg.instruction_budget = Int64(configuration.instructionBudget)
            cfg.time_limit = seconds
            cfg.pattern_step_limit = Int64(configuration.patternStepLimit)
            cfg.require_roots = UnsafePointer(rootBuf.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: UnsafePointer<CChar>?.self) })
            cfg.nroots = Int32(rootBuf.count)
            cfg.trials = configuration.trials ? 1 : 0
            cfg.plain = configuration.plainPaths.rawValue
            cfg.ctx = Unmanaged.passUnretained(self).toOpaque()
            cfg.host_cb = { ctx, L, fnid, args, nargs, out in
                let me = Unmanaged<LuaRuntime>.fromOpaque(ctx!).takeUnretainedValue()
                return me.dispatch(L!, fnid, args, nargs, out!)
            }
            cfg.element_cb = { ctx, fnid, handle, index, out, err in
                let me = Unmanaged<LuaRuntime>.fromOpaque(ctx!).takeUnretainedValue()
                return me.element(fnid, handle, index, out!, err!)
            }
            cfg.column_cb = { ctx, fnid, handle, column, out, n, err in
                let me = Unmanaged<LuaRuntime>.fromOpaque(ctx!).takeUnretainedValue()
                return me.column(fnid, handle, Int(column), UnsafeMutableBufferPointer(start: out, count: Int(n)), err!)
            }
            cfg.record_cb = { ctx, L, fnid, fields, n, err in
                let me = Unmanaged<LuaRuntime>.fromOpaque(ctx!).takeUnretainedValue()
                return me.record(L!, fnid, fields!, Int(n), err!)
            }
            cfg.print_cb = { ctx, chunk, chunkLen, msg, msgLen in
                let me = Unmanaged<LuaRuntime>.fromOpaque(ctx!).takeUnretainedValue()
                guard let handler = me.configuration.print else { return }
                let c = String(decoding: UnsafeRawBufferPointer(start: chunk, count: chunkLen), as: UTF8.self)
                let m = String(decoding: UnsafeRawBufferPointer(start: msg, count: msgLen), as: UTF8.self)
                handler(c, m)
            }
            return lh_open(&cfg, &why)
        }
        guard let handle else {
            throw LuaHostError.setupFailed(reason: why.map { String(cString: $0) } ?? "unknown")
        }
        rt = handle
    }

    deinit {
        lh_close(rt)
    }

    /// Bytes currently allocated by the Lua state.
    public var memoryInUse: Int { lh_memory_in_use(rt) }

    /// Calls run as trials so far (``call(_:_:rewind:)``), and how many of them did not end in
    /// time (or ran out of budget) and were run again, counted.
    public var trialCounts: (trials: Int, reruns: Int) {
        var trials: Int64 = 0, reruns: Int64 = 0
        lh_trial_counts(rt, &trials, &reruns)
        return (Int(trials), Int(reruns))
    }

    // MARK: - Evaluations

    /// Compiles `source` (text only) as chunk `chunkName` (e.g.
    /// `rules/no_double_booking.lua`; errors then read
    /// `rules/no_double_booking.lua:12: ...`), runs it in a fresh
    /// environment under the budget and returns its first return value.
    public func loadPlugin(source: String, chunkName: String) throws -> LuaRef {
        var s = source
        return try s.withUTF8 { try loadPlugin(buffer: UnsafeRawBufferPointer($0), chunkName: chunkName) }
    }

    /// Byte variant of ``loadPlugin(source:chunkName:)``.
    public func loadPlugin(bytes: [UInt8], chunkName: String) throws -> LuaRef {
        try bytes.withUnsafeBytes { try loadPlugin(buffer: $0, chunkName: chunkName) }
    }

    private func loadPlugin(buffer: UnsafeRawBufferPointer, chunkName: String) throws -> LuaRef {
        try beginEvaluation()
        defer { evaluating = false }
        let name = chunkName.hasPrefix("@") || chunkName.hasPrefix("=") ? chunkName : "@" + chunkName
        let display = String(name.dropFirst())
        var ref: Int32 = 0
        let code = lh_load(rt, buffer.baseAddress?.assumingMemoryBound(to: CChar.self), buffer.count, name, &ref)
        defer { lh_finish(rt) }
        if code != LH_OK { throw makeError(code, fallbackChunk: display) }
        return LuaRef(ref: ref, owner: owner)
    }

    /// Calls `function` with `args` under the budget and returns all its
    /// results (tables are deep-copied, functions come back as references).
    public func call(_ function: LuaRef, _ args: [LuaValue] = []) throws -> [LuaValue] {
        try call(function, args, trial: false, rewind: {})
    }

    /// Calls `function` as ``call(_:_:)`` does, and with the same outcome, but may run it first
    /// as a *trial*: without counting instructions (while the budget is counted, Lua stops at
    /// every VM instruction), under a watchdog that stops it once it has run longer than the
    /// budget could last on any machine (budget ÷ 2·10⁹ units a second: 5 ms for the default
    /// 10 million). A trial that ends in time cannot have spent more than the budget, so its
    /// result stands. One that does not end in time, or runs out of budget on what is counted
    /// anyway (allocations, pattern steps, coroutines), is thrown away: `rewind` is called to
    /// undo what host functions did during it, and the call runs again, counted, from the start.
    ///
    /// Use it for calls that may run twice: checks whose only effects are host functions that
    /// `rewind` can undo. Trials are off (every call counted) when ``Configuration/trials`` is
    /// off or the platform cannot interrupt a thread (see docs/lua-sandbox.md).
    public func call(_ function: LuaRef, _ args: [LuaValue], rewind: () -> Void) throws -> [LuaValue] {
        try call(function, args, trial: true, rewind: rewind)
    }

    private func call(_ function: LuaRef, _ args: [LuaValue], trial: Bool, rewind: () -> Void) throws -> [LuaValue] {
        guard function.owner === owner else {
            throw LuaHostError.invalidValue(reason: "reference belongs to another runtime")
        }
        try beginEvaluation()
        defer { evaluating = false }
        argTape.reset()
        try argTape.encode(args, owner: owner, maxDepth: configuration.maxTableDepth)
        var tape = argTape.tape
        var n: Int32 = 0
        var code = lh_call(rt, function.ref, &tape, trial ? 1 : 0, &n)
        if code == LH_RETRY {
            lh_finish(rt)
            rewind()
            code = lh_call(rt, function.ref, &tape, 0, &n)
        }
        defer { lh_finish(rt) }
        if code != LH_OK {
            var buf = [CChar](repeating: 0, count: 256)
            lh_ref_source(L, function.ref, &buf, buf.count)
            throw makeError(code, fallbackChunk: buf.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        }
        var results: [LuaValue] = []
        results.reserveCapacity(Int(n))
        let top = lua_gettop(L)
        var entries = 0
        for i in 0..<n {
            results.append(try readValue(top - n + 1 + i, depth: 0, entries: &entries))
        }
        return results
    }

    /// Variadic convenience for ``call(_:_:)``.
    public func call(_ function: LuaRef, _ args: LuaValue...) throws -> [LuaValue] {
        try call(function, args)
    }

    private func beginEvaluation() throws {
        guard !evaluating else {
            throw LuaHostError.misuse(reason: "re-entrant evaluation: a host function cannot call back into its runtime")
        }
        evaluating = true
        releasePendingRefs()
    }

    private func releasePendingRefs() {
        guard owner.hasPending.load(ordering: .acquiring) else { return }
        let refs = owner.pending.withLock { p -> [Int32] in
            let r = p
            p.removeAll(keepingCapacity: true)
            owner.hasPending.store(false, ordering: .relaxed)
            return r
        }
        if !refs.isEmpty {
            _ = refs.withUnsafeBufferPointer { lh_unref(L, $0.baseAddress, Int32($0.count)) }
        }
    }

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
    private func store(_ key: String, _ value: LuaValue,
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

    // MARK: - Host functions and objects

    /// Makes a Lua function that runs `body` (through the C trampoline).
    ///
    /// The runtime keeps `body` for its whole life: a body that needs the runtime must capture
    /// it weakly (`[weak runtime]`), or neither is ever freed.
    public func makeFunction(name: String, _ body: @escaping LuaHostFunction) throws -> LuaRef {
        try makeFunction(name: name, .many(body))
    }

    /// Makes a Lua function that returns exactly the one value `body` returns (cheaper to call
    /// than one returning a list).
    public func makeSingleValueFunction(name: String, _ body: @escaping (LuaArguments) throws -> LuaValue) throws -> LuaRef {
        try makeFunction(name: name, .one(body))
    }

    private func makeFunction(name: String, _ body: HostBody) throws -> LuaRef {
        let id = Int64(functions.count)
        functions.append(body)
        functionNames.append(name)
        var ref: Int32 = 0
        guard lh_new_function(L, id, name, &ref) == LH_OK else { throw memoryError("host") }
        return LuaRef(ref: ref, owner: owner)
    }

    /// Makes a host function and stores it as `table[name]`, or in the shared
    /// base environment when `table` is nil.
    public func registerFunction(name: String, in table: LuaRef? = nil, _ body: @escaping LuaHostFunction) throws {
        let f = try makeFunction(name: name, body)
        if let table {
            try setField(table, name, .function(f))
        } else {
            try setGlobal(name, .function(f))
        }
    }

    /// Makes the constructor of host sequences: `make(handle, n)` in Lua returns a new read-only
    /// sequence object `t` (a userdata; assigning to it is an error naming `name`) with `t.n == n`
    /// and `#t == n` (its metatable is shared, protected and shows as `name`), whose element `t[i]`
    /// (an integer from 1 to n) is the host object `element(handle, i)` gives (nil for `nil`, as
    /// for any other number), served by C without a host call's arguments and results: the way to
    /// hand Lua a long list of objects it reads a few of. `t.c` for one of `integerColumns` is a
    /// new plain array of n integers that `column(handle, k, into)` writes (k: the name's position)
    /// into a buffer C makes the table from. Any other key is asked of `field(handle, key)`. A
    /// column or field is asked for once: the value is kept with `t` and returned again, and an
    /// error the host throws (``LuaScriptError``) is raised at the line that read the key. Every
    /// `make` call gives a new object with columns of its own. `handle` is the host's own (say, an
    /// index into what it registered for this evaluation): the functions must check it, since a
    /// script may keep `t` past its use.
    ///
    /// An element's words (``LuaElement``) are given to its object unless it has words in
    /// this field epoch already: a cheaper ``setWords(_:_:)``.
    public func makeSequenceConstructor(
        name: String,
        element: @escaping (_ handle: Int64, _ index: Int) throws -> LuaElement?,
        integerColumns: [String] = [],
        column: @escaping (_ handle: Int64, _ column: Int, _ into: UnsafeMutableBufferPointer<Int64>) throws -> Void = { _, _, _ in },
        field: @escaping (_ handle: Int64, _ key: LuaValue) throws -> LuaValue
    ) throws -> LuaRef {
        let elementID = Int64(functions.count)
        functions.append(.element(element))
        functionNames.append(name + " element")
        let columnID = Int64(functions.count)
        functions.append(.column(column))
        functionNames.append(name + " column")
        let fieldID = Int64(functions.count)
        functions.append(.one { arguments in try field(try arguments.integer(0), try arguments.value(1)) })
        functionNames.append(name + " field")
        let names = LuaFieldNames(integerColumns)
        var ref: Int32 = 0
        let code = names.withCStrings { pointers, lengths in
            lh_new_sequence(L, elementID, columnID, fieldID, Int32(integerColumns.count), pointers, lengths, name, &ref)
        }
        guard code == LH_OK else { throw memoryError("host") }
        return LuaRef(ref: ref, owner: owner)
    }

    /// Makes a Lua function `f(t)` for the host's records, such as a rule's findings: called with
    /// a table (without a metatable), it reads the table's `fields` straight into ``LuaFields`` for
    /// `record` (raw, in C: the table is not traversed and other keys are ignored, so
    /// ``LuaFields/strayCount`` is 0), with none of a host function's arguments or results to
    /// convert. Called with anything else (a string, a table with a metatable, nothing), it runs
    /// `otherwise` as a host function (whose results are dropped). Either way it returns nothing,
    /// and an error either throws is raised at the line of the call. At most 16 fields.
    public func makeRecordFunction(name: String, fields: LuaFieldNames, record: @escaping (LuaFields) throws -> Void,
                                   otherwise: @escaping LuaHostFunction) throws -> LuaRef {
        guard fields.count <= Int(LH_MAX_RECORD_FIELDS) else {
            throw LuaHostError.invalidValue(reason: "a record has at most \(LH_MAX_RECORD_FIELDS) fields")
        }
        let recordID = Int64(functions.count)
        functions.append(.record(fields, record))
        functionNames.append(name)
        let otherwiseID = Int64(functions.count)
        functions.append(.many(otherwise))
        functionNames.append(name)
        var ref: Int32 = 0
        let code = fields.withCStrings { pointers, lengths in
            lh_new_record_function(L, recordID, otherwiseID, Int32(fields.count), pointers, lengths, &ref)
        }
        guard code == LH_OK else { throw memoryError("host") }
        return LuaRef(ref: ref, owner: owner)
    }

    /// Registers a class of host objects. `index(object, key)` serves
    /// `object[key]` / `object.key` in Lua (return a `.function` to provide
    /// methods, or set them once with ``setStatic(_:_:_:)``). Objects are
    /// read-only to Lua, compare equal when class and id match, and print as
    /// `Name: id`. They are interned: an object handed to Lua while Lua still
    /// holds it is the same Lua value (raw-equal, the same table key).
    ///
    /// With `cachesFields`, each object remembers the fields `index` served it
    /// (strings, numbers, booleans, nil and host objects; tables are asked for
    /// every time, since Lua code could change a shared one), so a field read
    /// twice calls `index` once. The cache holds until ``invalidateFieldCaches()``:
    /// call it whenever what an object shows may change, or when objects must
    /// stop serving (an object that outlived its use then reaches `index` again,
    /// which can refuse it).
    public func registerClass(
        name: String, cachesFields: Bool = false, index: @escaping (LuaObject, LuaValue) throws -> LuaValue
    ) throws -> LuaClassID {
        classCount += 1
        let cls = LuaClassID(rawValue: classCount)
        let id = Int64(functions.count)
        functions.append(.index(index))
        functionNames.append(name + ".__index")
        guard lh_new_class(L, cls.rawValue, name, id, cachesFields ? 1 : 0, 0, nil, nil) == LH_OK else { throw memoryError("host") }
        return cls
    }

    /// Registers a class of host objects with declared fields: `object.name` for one of
    /// `fields` calls `index(object, .field(k))`, with `k` its position in `fields` (no string
    /// to compare), and any other key `index(object, .other(key))`. Each object keeps what
    /// `index` served for a declared field (strings, numbers, booleans, nil and host objects;
    /// tables are asked for every time) in a slot of its own until ``invalidateFieldCaches()``;
    /// other keys are asked every time. Static fields (``setStatic(_:_:_:)``) are read after
    /// the declared ones. At most 62 fields. Otherwise as
    /// ``registerClass(name:cachesFields:index:)``: read-only, interned, equal by class and id.
    public func registerClass(
        name: String, fields: [String], index: @escaping (LuaObject, LuaObjectKey) throws -> LuaValue
    ) throws -> LuaClassID {
        guard fields.count <= Int(LH_MAX_DECLARED_FIELDS) else {
            throw LuaHostError.invalidValue(reason: "a class declares at most \(LH_MAX_DECLARED_FIELDS) fields")
        }
        classCount += 1
        let cls = LuaClassID(rawValue: classCount)
        let id = Int64(functions.count)
        functions.append(.fields(index))
        functionNames.append(name + ".__index")
        let names = LuaFieldNames(fields)
        let code = names.withCStrings { pointers, lengths in
            lh_new_class(L, cls.rawValue, name, id, 0, Int32(fields.count), pointers, lengths)
        }
        guard code == LH_OK else { throw memoryError("host") }
        return cls
    }

    /// Declared fields of a class (``registerClass(name:fields:index:)``) that the runtime serves
    /// itself from the words each object was given (``setWords(_:_:)``), without asking `index`:
    /// `sources` maps a field's position in the class's `fields` to where its value comes from.
    /// A field whose object has no words in the current field epoch (they go with
    /// ``invalidateFieldCaches()``), or not that word, is asked of `index` as before, so the
    /// words must say what `index` would: they are a shortcut, not a second source of truth.
    public func setWordFields(_ classID: LuaClassID, _ sources: [Int: LuaWordField]) throws {
        var codes = [UInt8](repeating: 0, count: Int(LH_MAX_DECLARED_FIELDS))
        var classes = [Int32](repeating: 0, count: Int(LH_MAX_DECLARED_FIELDS))
        for (field, source) in sources {
            guard field >= 0, field < codes.count else { throw LuaHostError.invalidValue(reason: "no declared field \(field)") }
            let word: Int
            switch source {
            case let .integer(w): (word, codes[field]) = (w, UInt8(LH_WORD_INTEGER) << 4)
            case let .date(w): (word, codes[field]) = (w, UInt8(LH_WORD_DATE) << 4)
            case let .object(w, of: cls): (word, codes[field], classes[field]) = (w, UInt8(LH_WORD_OBJECT) << 4, cls.rawValue)
            }
            guard word >= 0, word < LuaObjectWords.count else {
                throw LuaHostError.invalidValue(reason: "an object has words 0 to \(LuaObjectWords.count - 1), not \(word)")
            }
            codes[field] |= UInt8(word)
        }
        let count = (sources.keys.max() ?? -1) + 1
        guard lh_class_set_word_fields(rt, classID.rawValue, Int32(count), codes, classes) == LH_OK else {
            throw LuaHostError.invalidValue(reason: "class \(classID.rawValue) does not declare \(count) fields")
        }
    }

    /// Gives an object its words until the field epoch ends (``invalidateFieldCaches()``): the
    /// fields of its class that ``setWordFields(_:_:)`` maps to them are then served from them.
    /// Set them just before the object is handed to Lua: they wait in a table in C (a store, no
    /// call into Lua) until the object is pushed, or read if it exists already, and takes them.
    public func setWords(_ object: LuaObject, _ words: LuaObjectWords) {
        var values = words.values
        withUnsafePointer(to: &values) { pointer in
            pointer.withMemoryRebound(to: Int64.self, capacity: LuaObjectWords.count) {
                lh_set_words(rt, object.classID.rawValue, object.id, words.mask, $0)
            }
        }
    }

    /// Keeps the objects of a class the runtime makes referenced until the field epoch ends
    /// (``invalidateFieldCaches()``), up to 1,024 of them in all such classes: an object Lua let go
    /// of and is handed again is then the same Lua value with the fields it cached, instead of a
    /// new one that asks `index` again. For classes with few objects that are read again and
    /// again (a schedule's shift types), not for those with many.
    public func keepObjects(of classID: LuaClassID) throws {
        guard lh_class_keep_objects(rt, classID.rawValue) == LH_OK else { throw memoryError("host") }
    }

    /// A field every object of the class shows, read before its `index` is asked (methods).
    /// Not a table: it would be one table shared by every plugin.
    public func setStatic(_ classID: LuaClassID, _ key: String, _ value: LuaValue) throws {
        if case .table = value { throw LuaHostError.invalidValue(reason: "a class's static field cannot be a table") }
        try store(key, value) { lh_class_set_static(L, classID.rawValue, $0, $1, $2) }
    }

    /// Every host object's cached fields are forgotten: the next read of each asks the
    /// class's `index` again (see ``registerClass(name:cachesFields:index:)``).
    public func invalidateFieldCaches() { lh_invalidate_fields(rt) }

    // MARK: - Internals

    private func checkOwner(_ r: LuaRef) throws {
        guard r.owner === owner else {
            throw LuaHostError.invalidValue(reason: "reference belongs to another runtime")
        }
    }

    private func memoryError(_ chunk: String) -> LuaHostError {
        .memoryExceeded(chunk: chunk, limit: configuration.memoryLimit)
    }

    /// Host-function dispatch, called by the C trampoline.
    fileprivate func dispatch(_ L: OpaquePointer, _ fnid: Int64, _ args: UnsafePointer<lh_value>?,
                              _ nargs: Int32, _ out: UnsafeMutablePointer<lh_tape>) -> Int32 {
        resultTape.reset()
        let a = LuaArguments(runtime: self, L: L, base: args, count: Int(nargs), functionIndex: Int(fnid))
        do {
            switch functions[Int(fnid)] {
            case let .many(body):
                try resultTape.encode(try body(a), owner: owner, maxDepth: configuration.maxTableDepth)
            case let .one(body):
                try resultTape.encodeTop(try body(a), owner: owner, maxDepth: configuration.maxTableDepth)
            case let .index(body):
                let value = try body(try a.object(0), try a.value(1))
                try resultTape.encodeTop(value, owner: owner, maxDepth: configuration.maxTableDepth)
            case let .fields(body):
                // A declared field comes with its position (1-based) as a third argument.
                let key: LuaObjectKey = nargs >= 3 ? .field(Int(args![2].i) - 1) : .other(try a.value(1))
                try resultTape.encodeTop(try body(try a.object(0), key), owner: owner, maxDepth: configuration.maxTableDepth)
            case .element, .column, .record:
                // A sequence's element and column functions, and a record function's record, are
                // only ever called by C.
                throw LuaScriptError("\(functionNames[Int(fnid)]) cannot be called")
            }
            out.pointee = resultTape.tape
            return 0
        } catch {
            return failure(error, out)
        }
    }

    /// What a callback returns for an error: 1, with `out` holding the message for C to raise.
    private func failure(_ error: any Error, _ out: UnsafeMutablePointer<lh_tape>) -> Int32 {
        resultTape.reset()
        resultTape.appendString((error as? LuaScriptError)?.message ?? "\(error)")
        out.pointee = resultTape.tape
        return 1
    }

    /// A sequence's element, called by C (`seq_index`).
    fileprivate func element(_ fnid: Int64, _ handle: Int64, _ index: Int64, _ out: UnsafeMutablePointer<lh_element>,
                             _ err: UnsafeMutablePointer<lh_tape>) -> Int32 {
        guard case let .element(body) = functions[Int(fnid)] else { return 1 }
        do {
            guard let element = try body(handle, Int(index)) else { return 0 }
            out.pointee.cls = element.object.classID.rawValue
            out.pointee.id = element.object.id
            out.pointee.fresh = element.isNew ? 1 : 0
            if let words = element.words {
                out.pointee.mask = words.mask
                withUnsafeMutableBytes(of: &out.pointee.words) { raw in
                    withUnsafeBytes(of: words.values) { raw.copyMemory(from: $0) }
                }
            }
            return 0
        } catch {
            return failure(error, err)
        }
    }

    /// A record function's record, called by C (`record_call`).
    fileprivate func record(_ L: OpaquePointer, _ fnid: Int64, _ fields: UnsafePointer<lh_value>, _ n: Int,
                            _ err: UnsafeMutablePointer<lh_tape>) -> Int32 {
        guard case let .record(names, body) = functions[Int(fnid)] else { return 1 }
        do {
            let arguments = LuaArguments(runtime: self, L: L, base: nil, count: 0, functionIndex: Int(fnid))
            try body(LuaFields(arguments: arguments, values: UnsafeMutablePointer(mutating: fields), names: names,
                               strayCount: 0, strayIndex: 0))
            return 0
        } catch {
            return failure(error, err)
        }
    }

    /// A sequence's integer column, called by C (`seq_index`).
    fileprivate func column(_ fnid: Int64, _ handle: Int64, _ column: Int, _ out: UnsafeMutableBufferPointer<Int64>,
                            _ err: UnsafeMutablePointer<lh_tape>) -> Int32 {
        guard case let .column(body) = functions[Int(fnid)] else { return 1 }
        do {
            try body(handle, column, out)
            return 0
        } catch {
            return failure(error, err)
        }
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

    private func makeError(_ code: Int32, fallbackChunk: String) -> LuaHostError {
        var info = lh_error_info()
        lh_error(rt, &info)
        var message = "unknown error"
        if let m = info.message {
            message = String(decoding: UnsafeRawBufferPointer(start: m, count: info.message_len), as: UTF8.self)
        }
        var traceback = ""
        if let t = info.traceback {
            traceback = String(decoding: UnsafeRawBufferPointer(start: t, count: info.traceback_len), as: UTF8.self)
        }
        message = Self.tidied(message)
        var chunk = info.chunk.map { String(cString: $0) } ?? ""
        var line = Int(info.line)
        if chunk.isEmpty { chunk = fallbackChunk.isEmpty ? "?" : fallbackChunk }
        switch code {
        case LH_ERR_SYNTAX:
            if let (c, l, rest) = Self.splitLocation(message) { return .syntax(chunk: c, line: l, message: rest) }
            return .syntax(chunk: fallbackChunk, line: 0, message: message)
        case LH_ERR_BUDGET:
            return .budgetExceeded(chunk: chunk, line: line, limit: configuration.instructionBudget)
        case LH_ERR_TIMEOUT:
            let c = configuration.timeLimit?.components
            let secs = c.map { Double($0.seconds) + Double($0.attoseconds) * 1e-18 } ?? 0
            return .timeLimitExceeded(chunk: chunk, line: line, seconds: secs)
        case LH_ERR_MEMORY:
            return .memoryExceeded(chunk: chunk, limit: configuration.memoryLimit)
        default:
            if let (c, l, rest) = Self.splitLocation(message) {
                chunk = c; line = l; message = rest
            }
            return .runtime(chunk: chunk, line: line, message: message, traceback: traceback)
        }
    }

    /// Error messages are shown as one line to a person: control characters (line breaks,
    /// terminal escapes) become spaces, a location prefix repeated by nested frames
    /// (`x.lua:4: x.lua:4: … C stack overflow`, from `coroutine.wrap`) is kept once, and the
    /// text is cut after 1000 characters.
    static func tidied(_ message: String) -> String {
        var text = String(String.UnicodeScalarView(message.unicodeScalars.map {
            $0.properties.generalCategory == .control ? " " : $0
        }))
        if let (chunk, line, rest) = splitLocation(text) {
            let prefix = "\(chunk):\(line): "
            var body = Substring(rest)
            while body.hasPrefix(prefix) { body = body.dropFirst(prefix.count) }
            text = prefix + body
        }
        if text.count > 1000 { text = text.prefix(1000) + "…" }
        return text
    }

    /// Splits `chunk:12: message` into its parts.
    static func splitLocation(_ message: String) -> (String, Int, String)? {
        let firstLine = message.prefix { $0 != "\n" }
        var search = firstLine.startIndex
        while let colon = firstLine[search...].firstIndex(of: ":") {
            var i = firstLine.index(after: colon)
            var digits = 0
            while i < firstLine.endIndex, let d = firstLine[i].wholeNumberValue, d < 10, firstLine[i].isASCII {
                digits += 1
                i = firstLine.index(after: i)
            }
            if digits > 0, i < firstLine.endIndex, firstLine[i] == ":" {
                let chunk = String(message[..<colon])
                let line = Int(firstLine[firstLine.index(after: colon)..<i]) ?? 0
                var rest = message[message.index(after: i)...]
                if rest.first == " " { rest = rest.dropFirst() }
                if !chunk.isEmpty { return (chunk, line, String(rest)) }
            }
            search = firstLine.index(after: colon)
        }
        return nil
    }
}

extension lh_value {
    /// `body` over a string value's bytes (the caller has checked it is one).
    @inlinable
    func withBytes<T>(_ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
        try body(UnsafeBufferPointer(start: UnsafeRawPointer(s)?.assumingMemoryBound(to: UInt8.self), count: len))
    }
}

/// Decodes Lua string bytes: ASCII (nearly every key and value a rule passes) without the
/// validating decoder's cost; other bytes validated as UTF-8 (nil when they are not).
@inline(__always)
func decodeUTF8(_ raw: UnsafeRawBufferPointer) -> String? {
    var isASCII = true
    for byte in raw where byte >= 0x80 {
        isASCII = false
        break
    }
    if isASCII { return String(decoding: raw, as: UTF8.self) }
    return String(validating: raw, as: UTF8.self)
}

/// The arguments of a host-function call. Valid only during the call.
/// Indices are 0-based (`value(0)` is Lua's first argument).
public struct LuaArguments {
    unowned(unsafe) let runtime: LuaRuntime
    let L: OpaquePointer
    let base: UnsafePointer<lh_value>?
    /// Number of arguments.
    public let count: Int
    /// Which host function this is (its name is looked up only for error messages).
    let functionIndex: Int
    /// Name the function was registered under (used in error messages).
    public var functionName: String { runtime.functionNames[functionIndex] }

    private func raw(_ i: Int) -> lh_value? {
        guard i >= 0 && i < count, let base else { return nil }
        return base[i]
    }

    private func bad(_ i: Int, _ expected: String) -> LuaScriptError {
        LuaScriptError("bad argument #\(i + 1) to '\(functionName)' (\(expected) expected, got \(typeName(i)))")
    }

    /// Lua type name of argument `i` ("no value" past the end).
    public func typeName(_ i: Int) -> String {
        guard let v = raw(i) else { return "no value" }
        switch Int32(v.kind) {
        case LH_NIL: return "nil"
        case LH_BOOLEAN: return "boolean"
        case LH_INTEGER, LH_NUMBER: return "number"
        case LH_STRING: return "string"
        case LH_TABLE: return "table"
        case LH_FUNCTION: return "function"
        case LH_OBJECT: return "userdata"
        default: return String(cString: lua_typename(L, lua_type(L, v.aux)))
        }
    }

    /// Converts argument `i` (tables are deep-copied; `.nil` past the end).
    public func value(_ i: Int) throws -> LuaValue {
        guard let v = raw(i) else { return .nil }
        return try convert(v, depth: 0)
    }

    /// Converts one value this call described (a table at `depth` of the nesting limit).
    func convert(_ v: lh_value, depth: Int) throws -> LuaValue {
        switch Int32(v.kind) {
        case LH_NIL: return .nil
        case LH_BOOLEAN: return .boolean(v.aux != 0)
        case LH_INTEGER: return .integer(v.i)
        case LH_NUMBER: return .number(v.n)
        case LH_STRING:
            let raw = UnsafeRawBufferPointer(start: v.s, count: v.len)
            if let s = decodeUTF8(raw) { return .string(s) }
            return .bytes(Array(raw))
        case LH_OBJECT:
            return .object(LuaObject(classID: LuaClassID(rawValue: v.aux), id: v.i))
        default:
            var entries = 0
            return try runtime.readValue(v.aux, depth: depth, entries: &entries, on: L)
        }
    }

    /// All arguments converted.
    public func values() throws -> [LuaValue] { try (0..<count).map { try value($0) } }

    /// Calls `body` with each key and value of table argument `i` (raw, no metamethods), without
    /// copying the table first: the cheap way to read an options table such as `{ person = p }`.
    /// Throws when argument `i` is not a table.
    public func forEachEntry(_ i: Int, _ body: (LuaValue, LuaValue) throws -> Void) throws {
        guard let v = raw(i), v.kind == LH_TABLE else { throw bad(i, "table") }
        try runtime.forEachEntry(L, v.aux, body)
    }

    /// True when argument `i` is a table.
    public func isTable(_ i: Int) -> Bool { raw(i)?.kind == LH_TABLE }

    public func isNil(_ i: Int) -> Bool {
        guard let v = raw(i) else { return true }
        return v.kind == LH_NIL
    }

    /// Lua truthiness of argument `i`.
    public func boolean(_ i: Int) -> Bool {
        guard let v = raw(i) else { return false }
        if v.kind == LH_NIL { return false }
        if v.kind == LH_BOOLEAN { return v.aux != 0 }
        return true
    }

    /// Argument `i` as an integer (floats with an exact integer value accepted).
    public func integer(_ i: Int) throws -> Int64 {
        guard let v = raw(i) else { throw bad(i, "number") }
        if v.kind == LH_INTEGER { return v.i }
        if v.kind == LH_NUMBER {
            if let x = Int64(exactly: v.n) { return x }
            throw LuaScriptError("bad argument #\(i + 1) to '\(functionName)' (number has no integer representation)")
        }
        throw bad(i, "number")
    }

    public func number(_ i: Int) throws -> Double {
        guard let v = raw(i) else { throw bad(i, "number") }
        if v.kind == LH_INTEGER { return Double(v.i) }
        if v.kind == LH_NUMBER { return v.n }
        throw bad(i, "number")
    }

    /// Argument `i` as a string (numbers are not converted).
    public func string(_ i: Int) throws -> String {
        guard let v = raw(i), v.kind == LH_STRING else { throw bad(i, "string") }
        return String(decoding: UnsafeRawBufferPointer(start: v.s, count: v.len), as: UTF8.self)
    }

    /// `body` over the bytes of string argument `i` (valid only inside it), nil when the argument
    /// is not a string: a value parsed from a string (a date) needs no Swift `String` made first.
    public func withBytes<T>(_ i: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T? {
        guard let v = raw(i), v.kind == LH_STRING else { return nil }
        return try v.withBytes(body)
    }

    /// Argument `i` as a host object (optionally of a given class).
    public func object(_ i: Int, of cls: LuaClassID? = nil) throws -> LuaObject {
        guard let v = raw(i), v.kind == LH_OBJECT, cls == nil || cls!.rawValue == v.aux else {
            throw bad(i, "host object")
        }
        return LuaObject(classID: LuaClassID(rawValue: v.aux), id: v.i)
    }
}
