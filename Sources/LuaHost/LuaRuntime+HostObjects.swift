import CLua
import CLuaShim
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Host functions, classes and objects, and the calls from C that reach them.
extension LuaRuntime {
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

    func makeFunction(name: String, _ body: HostBody) throws -> LuaRef {
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


    /// Host-function dispatch, called by the C trampoline.
    func dispatch(_ L: OpaquePointer, _ fnid: Int64, _ args: UnsafePointer<lh_value>?,
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
    func element(_ fnid: Int64, _ handle: Int64, _ index: Int64, _ out: UnsafeMutablePointer<lh_element>,
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
    func record(_ L: OpaquePointer, _ fnid: Int64, _ fields: UnsafePointer<lh_value>, _ n: Int,
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
    func column(_ fnid: Int64, _ handle: Int64, _ column: Int, _ out: UnsafeMutableBufferPointer<Int64>,
                            _ err: UnsafeMutablePointer<lh_tape>) -> Int32 {
        guard case let .column(body) = functions[Int(fnid)] else { return 1 }
        do {
            try body(handle, column, out)
            return 0
        } catch {
            return failure(error, err)
        }
    }
}
