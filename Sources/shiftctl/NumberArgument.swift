import ArgumentParser

/// Numbers on the command line. The parser would read `--limit -3` as a missing value followed
/// by an unknown option `-3`; these read the next word whatever it is (`parsing: .unconditional`)
/// and say what a value must be, so `-3` reaches the check that says "must be at least 1" and
/// `abc` is "not a whole number".
enum NumberArgument {
    struct NotANumber: Error, CustomStringConvertible {
        let description: String
    }

    static func whole(_ text: String) throws -> Int {
        guard let value = Int(text) else { throw NotANumber(description: "must be a whole number") }
        return value
    }

    static func decimal(_ text: String) throws -> Double {
        guard let value = Double(text), value.isFinite else { throw NotANumber(description: "must be a number") }
        return value
    }
}
