import CLua
import CLuaShim
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ownership checks and the errors a call into Lua ends with, tidied for one line.
extension LuaRuntime {
    // MARK: - Ownership and errors

    func checkOwner(_ r: LuaRef) throws {
        guard r.owner === owner else {
            throw LuaHostError.invalidValue(reason: "reference belongs to another runtime")
        }
    }

    func memoryError(_ chunk: String) -> LuaHostError {
        .memoryExceeded(chunk: chunk, limit: configuration.memoryLimit)
    }


    func makeError(_ code: Int32, fallbackChunk: String) -> LuaHostError {
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
