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
    var rt: OpaquePointer!
    var L: OpaquePointer { lh_state(rt) }
    let owner = LuaRefOwner()
    /// Host function bodies by id. A function that returns exactly one value (an object class's
    /// `__index`, most host functions) is kept apart and dispatched without a results array.
    enum HostBody {
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
    @exclusivity(unchecked) var functions: [HostBody] = []
    var functionNames: [String] = []
    var classCount: Int32 = 0
    let argTape = Tape()
    let resultTape = Tape()
    /// Where ``LuaArguments/withFields(_:_:_:)`` reads a table's fields.
    let fieldScratch = FieldScratch()
    /// `makeRef`'s own (an engine makes a reference or two on every evaluation).
    let refTape = Tape()
    @exclusivity(unchecked) var evaluating = false

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
}
