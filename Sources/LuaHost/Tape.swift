import CLuaShim

/// A reusable buffer of `lh_value`s plus a string arena, written by Swift and
/// pushed onto the Lua stack by C (see `lh_tape` in luahost_shim.h).
/// Its properties are marked `@exclusivity(unchecked)`: a tape belongs to one runtime, used by one
/// thread at a time, and no access to one overlaps another, so Swift's dynamic exclusivity
/// checks (a call into the runtime per access of a class's stored property, on every call from
/// Lua) would find nothing.
final class Tape {
    @exclusivity(unchecked) private(set) var values: UnsafeMutablePointer<lh_value>
    @exclusivity(unchecked) private var capacity: Int
    @exclusivity(unchecked) private(set) var count = 0
    @exclusivity(unchecked) private var arena: UnsafeMutablePointer<CChar>
    @exclusivity(unchecked) private var arenaCapacity: Int
    @exclusivity(unchecked) private var arenaCount = 0
    @exclusivity(unchecked) private(set) var ntop: Int32 = 0

    init() {
        capacity = 32
        values = .allocate(capacity: capacity)
        arenaCapacity = 1024
        arena = .allocate(capacity: arenaCapacity)
    }

    deinit {
        values.deallocate()
        arena.deallocate()
    }

    func reset() {
        count = 0
        arenaCount = 0
        ntop = 0
    }

    var tape: lh_tape {
        lh_tape(values: UnsafePointer(values), count: Int32(count), ntop: ntop, arena: UnsafePointer(arena))
    }

    private func append(_ v: lh_value) {
        if count == capacity {
            let n = capacity * 2
            let nv = UnsafeMutablePointer<lh_value>.allocate(capacity: n)
            nv.moveInitialize(from: values, count: count)
            values.deallocate()
            values = nv
            capacity = n
        }
        (values + count).initialize(to: v)
        count += 1
    }

    private func appendBytes(_ buf: UnsafeRawBufferPointer) -> Int {
        let need = arenaCount + buf.count
        if need > arenaCapacity {
            var n = arenaCapacity * 2
            while n < need { n *= 2 }
            let na = UnsafeMutablePointer<CChar>.allocate(capacity: n)
            na.moveInitialize(from: arena, count: arenaCount)
            arena.deallocate()
            arena = na
            arenaCapacity = n
        }
        let off = arenaCount
        if let base = buf.baseAddress, buf.count > 0 {
            UnsafeMutableRawPointer(arena + off).copyMemory(from: base, byteCount: buf.count)
        }
        arenaCount = need
        return off
    }

    func appendString(_ s: String) {
        var s = s
        s.withUTF8 { u in
            let off = appendBytes(UnsafeRawBufferPointer(u))
            append(lh_value(kind: Int32(LH_STRING), aux: 0, i: Int64(off), n: 0, s: nil, len: u.count))
        }
    }

    /// Appends top-level values.
    func encode(_ list: [LuaValue], owner: LuaRefOwner, maxDepth: Int) throws {
        for v in list {
            try encode(v, owner: owner, depth: 0, maxDepth: maxDepth)
            ntop += 1
        }
    }

    func encodeTop(_ v: LuaValue, owner: LuaRefOwner, maxDepth: Int) throws {
        try encode(v, owner: owner, depth: 0, maxDepth: maxDepth)
        ntop += 1
    }

    private func encode(_ v: LuaValue, owner: LuaRefOwner, depth: Int, maxDepth: Int) throws {
        switch v {
        case .nil:
            append(lh_value(kind: Int32(LH_NIL), aux: 0, i: 0, n: 0, s: nil, len: 0))
        case .boolean(let b):
            append(lh_value(kind: Int32(LH_BOOLEAN), aux: b ? 1 : 0, i: 0, n: 0, s: nil, len: 0))
        case .integer(let i):
            append(lh_value(kind: Int32(LH_INTEGER), aux: 0, i: i, n: 0, s: nil, len: 0))
        case .number(let d):
            append(lh_value(kind: Int32(LH_NUMBER), aux: 0, i: 0, n: d, s: nil, len: 0))
        case .string(let s):
            appendString(s)
        case .bytes(let b):
            b.withUnsafeBytes { raw in
                let off = appendBytes(raw)
                append(lh_value(kind: Int32(LH_STRING), aux: 0, i: Int64(off), n: 0, s: nil, len: raw.count))
            }
        case .function(let r), .reference(let r):
            guard r.owner === owner else {
                throw LuaHostError.invalidValue(reason: "reference belongs to another runtime")
            }
            append(lh_value(kind: Int32(LH_REF), aux: 0, i: Int64(r.ref), n: 0, s: nil, len: 0))
        case .object(let o):
            append(lh_value(kind: Int32(LH_OBJECT), aux: o.classID.rawValue, i: o.id, n: 0, s: nil, len: 0))
        case .integers(let list):
            // Copied into the arena (8-byte aligned), pushed by C in one loop.
            arenaCount = (arenaCount + 7) & ~7
            let offset = list.withUnsafeBytes { appendBytes($0) }
            append(lh_value(kind: Int32(LH_INTARRAY), aux: 0, i: Int64(offset), n: 0, s: nil, len: list.count))
        case .table(let t):
            guard depth < maxDepth else {
                throw LuaHostError.invalidValue(reason: "table nested deeper than \(maxDepth) levels")
            }
            append(lh_value(kind: Int32(LH_NEWTABLE), aux: Int32(t.array.count), i: 0, n: 0, s: nil,
                            len: t.hash.count))
            for e in t.array { try encode(e, owner: owner, depth: depth + 1, maxDepth: maxDepth) }
            for (k, e) in t.hash {
                if case .nil = k { throw LuaHostError.invalidValue(reason: "table key is nil") }
                if case .number(let d) = k, d.isNaN { throw LuaHostError.invalidValue(reason: "table key is NaN") }
                try encode(k, owner: owner, depth: depth + 1, maxDepth: maxDepth)
                try encode(e, owner: owner, depth: depth + 1, maxDepth: maxDepth)
            }
        }
    }
}
