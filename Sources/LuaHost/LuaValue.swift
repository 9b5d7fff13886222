import CLuaShim
import Synchronization

/// A Lua value as seen from Swift.
///
/// Plain data (`nil`, booleans, numbers, strings, tables of plain data) is
/// copied. Functions and other values that cannot be copied are held in the
/// runtime's registry and carried as a ``LuaRef``.
public enum LuaValue: Sendable, Hashable {
    case `nil`
    case boolean(Bool)
    case integer(Int64)
    case number(Double)
    /// A Lua string that is valid UTF-8.
    case string(String)
    /// A Lua string that is not valid UTF-8 (raw bytes).
    case bytes([UInt8])
    /// A deep copy of a Lua table (raw access, no metamethods). Pushing it
    /// to Lua creates a new table.
    case table(LuaTable)
    /// A sequence of integers, pushed to Lua as a new table `{ v1, v2, … }`: the fast way to
    /// hand over a column of numbers (one copy, no per-element boxing). Values read back from
    /// Lua are never of this case; such a table reads as `.table`.
    case integers([Int64])
    /// A Lua function held in the registry.
    case function(LuaRef)
    /// Any other Lua value held in the registry (a table by reference,
    /// a coroutine, ...). Pushing it to Lua pushes that very value.
    case reference(LuaRef)
    /// A lightweight view of a host object (userdata whose `__index` is a
    /// Swift callback, see ``LuaRuntime/registerClass(name:cachesFields:index:)``).
    case object(LuaObject)

    public var isNil: Bool { if case .nil = self { return true } else { return false } }

    /// The string value (also for `.bytes`, decoded leniently).
    public var stringValue: String? {
        switch self {
        case .string(let s): return s
        case .bytes(let b): return String(decoding: b, as: UTF8.self)
        default: return nil
        }
    }

    /// The integer value (also for floats with an exact integer value).
    public var integerValue: Int64? {
        switch self {
        case .integer(let i): return i
        case .number(let d): return Int64(exactly: d)
        default: return nil
        }
    }

    public var numberValue: Double? {
        switch self {
        case .integer(let i): return Double(i)
        case .number(let d): return d
        default: return nil
        }
    }

    public var boolValue: Bool? { if case .boolean(let b) = self { return b } else { return nil } }
    public var tableValue: LuaTable? { if case .table(let t) = self { return t } else { return nil } }

    /// Lua truthiness: everything except `nil` and `false` is true.
    public var isTruthy: Bool {
        switch self {
        case .nil: return false
        case .boolean(let b): return b
        default: return true
        }
    }

    /// Field of a copied table (`.nil` otherwise).
    public subscript(key: String) -> LuaValue {
        if case .table(let t) = self { return t[key] }
        return .nil
    }

    /// The Lua type name of the value.
    public var typeName: String {
        switch self {
        case .nil: return "nil"
        case .boolean: return "boolean"
        case .integer, .number: return "number"
        case .string, .bytes: return "string"
        case .table, .integers: return "table"
        case .function: return "function"
        case .reference: return "reference"
        case .object: return "userdata"
        }
    }
}

extension LuaValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .nil }
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: LuaValue...) { self = .table(LuaTable(array: elements)) }
    public init(dictionaryLiteral elements: (String, LuaValue)...) {
        var t = LuaTable()
        for (k, v) in elements { t.hash[.string(k)] = v }
        self = .table(t)
    }
}

/// A copied Lua table: the sequence `t[1] ... t[n]` (up to the first nil) in
/// `array`, every other key in `hash`.
public struct LuaTable: Sendable, Hashable {
    public var array: [LuaValue]
    public var hash: [LuaValue: LuaValue]

    public init(array: [LuaValue] = [], hash: [LuaValue: LuaValue] = [:]) {
        self.array = array
        self.hash = hash
    }

    public subscript(key: String) -> LuaValue { hash[.string(key)] ?? .nil }

    /// 1-based, like Lua.
    public subscript(index: Int) -> LuaValue {
        if index >= 1 && index <= array.count { return array[index - 1] }
        return hash[.integer(Int64(index))] ?? .nil
    }
}

/// What `object[key]` asks of a class registered with declared fields
/// (``LuaRuntime/registerClass(name:fields:index:)``).
public enum LuaObjectKey: Sendable, Hashable {
    /// The declared field at this position of the class's `fields`.
    case field(Int)
    /// Any other key: a name the class does not declare, a number, ….
    case other(LuaValue)
}

/// Identifies a class of host objects registered with
/// ``LuaRuntime/registerClass(name:cachesFields:index:)``.
public struct LuaClassID: Sendable, Hashable {
    public let rawValue: Int32
}

/// A host object as seen by Lua: a class and an opaque 64-bit id that the
/// host maps to its own data.
public struct LuaObject: Sendable, Hashable {
    public let classID: LuaClassID
    public let id: Int64
    public init(classID: LuaClassID, id: Int64) {
        self.classID = classID
        self.id = id
    }
}

/// Where the runtime takes a declared field's value from when it serves it itself
/// (``LuaRuntime/setWordFields(_:_:)``): one of the object's words (``LuaObjectWords``).
public enum LuaWordField: Sendable, Hashable {
    /// The word as an integer.
    case integer(word: Int)
    /// The word as a day number (days since 1970-01-01), shown as the string `YYYY-MM-DD`
    /// (years 1 to 9999; any other day is asked of the class's `index`).
    case date(word: Int)
    /// The host object of class `of` whose id is the word; a word of 0 is `nil`.
    case object(word: Int, of: LuaClassID)
}

/// Up to five 64-bit words given to one host object (``LuaRuntime/setWords(_:_:)``); a word
/// not set is absent, and a field taken from it is asked of the class's `index`.
public struct LuaObjectWords: Sendable {
    /// An object has this many words (LH_OBJECT_WORDS; the runtime checks they agree).
    public static let count = 5
    @usableFromInline var mask: UInt32 = 0
    @usableFromInline var values: (Int64, Int64, Int64, Int64, Int64) = (0, 0, 0, 0, 0)

    @inlinable public init() {}

    /// Every word present: word j is the j-th value.
    @inlinable public init(_ w0: Int64, _ w1: Int64, _ w2: Int64, _ w3: Int64, _ w4: Int64) {
        mask = 0b11111
        values = (w0, w1, w2, w3, w4)
    }

    // Inlinable: a host sets a view's words every time it hands one over.
    @inlinable public subscript(word: Int) -> Int64? {
        get {
            guard word >= 0, word < Self.count, mask >> UInt32(word) & 1 == 1 else { return nil }
            return withUnsafeBytes(of: values) { $0.load(fromByteOffset: word * 8, as: Int64.self) }
        }
        set {
            precondition(word >= 0 && word < Self.count, "an object has words 0 to \(Self.count - 1)")
            guard let newValue else {
                mask &= ~(1 << UInt32(word))
                return
            }
            mask |= 1 << UInt32(word)
            withUnsafeMutableBytes(of: &values) { $0.storeBytes(of: newValue, toByteOffset: word * 8, as: Int64.self) }
        }
    }
}

/// An element of a host sequence (``LuaRuntime/makeSequenceConstructor(name:element:integerColumns:column:field:)``):
/// its object, and the words to give it (none: its fields are the class's `index`'s, or the
/// words it was given already in this field epoch).
public struct LuaElement: Sendable {
    public var object: LuaObject
    public var words: LuaObjectWords?
    /// The host made the object just now: it was never handed to Lua, so the runtime does not
    /// look for a live one to reuse. Set it only when that is certain (an object handed over
    /// twice as fresh is two Lua values, no longer raw-equal).
    public var isNew: Bool

    public init(_ object: LuaObject, words: LuaObjectWords? = nil, isNew: Bool = false) {
        self.object = object
        self.words = words
        self.isNew = isNew
    }
}

/// Shared between a runtime and its references: dropped references are queued
/// here (from any thread) and released by the runtime at its next call.
final class LuaRefOwner: Sendable {
    let pending = Mutex<[Int32]>([])
    /// Whether `pending` may hold slots: set and cleared under its lock, read without it, so a
    /// call with nothing to release takes no lock.
    let hasPending = Atomic<Bool>(false)
}

/// A Lua value held in the runtime's registry.
///
/// Dropping the last Swift reference queues the registry slot for release;
/// the runtime frees queued slots at the start of its next `call`/`loadPlugin`.
/// A `LuaRef` may be passed between threads but can only be used with the
/// runtime that created it.
public final class LuaRef: Sendable, Hashable, CustomStringConvertible {
    let ref: Int32
    let owner: LuaRefOwner

    init(ref: Int32, owner: LuaRefOwner) {
        self.ref = ref
        self.owner = owner
    }

    deinit {
        if ref > 0 {
            let r = ref
            owner.pending.withLock {
                $0.append(r)
                owner.hasPending.store(true, ordering: .releasing)
            }
        }
    }

    public static func == (a: LuaRef, b: LuaRef) -> Bool { a === b }
    public func hash(into h: inout Hasher) { h.combine(ObjectIdentifier(self)) }
    public var description: String { "LuaRef(\(ref))" }
}
