import Foundation
import Testing

/// Error lines speak the user's language: no field paths of the code (`shiftType.symbol`), no
/// words of its architecture ("rule host", "mutation").
@Suite struct ErrorWordingTests {
    /// `shiftType.symbol`, `batch[3]`, "rule host", "mutation".
    static var internalWords: Regex<Substring> { /rule host|mutation|[a-z]+[A-Z][A-Za-z]*\.[a-z]|\.[a-z]+[A-Z]|batch\[/ }

    @Test func coreRefusalsNameFieldsInWords() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        let symbol = try sandbox.run("type", "add", "D", "--time", "08:00-16:00")
        #expect(symbol.stderr == "shiftctl: shift type symbol: symbol 'D' is already used by another shift type\n")
        let spaces = try sandbox.run("type", "update", "N", "--symbol", "N N")
        #expect(spaces.stderr == "shiftctl: shift type symbol: 'N N' must be 1 to 8 characters without spaces\n")
        let empty = try sandbox.run("location", "add", " ")
        #expect(empty.stderr == "shiftctl: location name: must not be empty\n")
        for result in [symbol, spaces, empty] {
            #expect(result.status == 2)
            #expect(result.stderr.firstMatch(of: Self.internalWords) == nil, "\(result.stderr)")
        }
    }

    @Test func aRuleThatFailsIsNamedByItsOwnMessage() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        try sandbox.write("return rule { id = \"boom\", summary = \"Fails.\", on = { \"shift\" },\n  check = function() error(\"boom\") end }\n",
                          to: "bad/boom.lua")
        let before = try #require(sandbox.bytes())
        let result = try sandbox.run("--rules", "bad", "schedule", "add", "--type", "D", "--date", "2026-03-02")
        #expect(result.status == 2)
        let line = try #require(result.stderr.split(separator: "\n").last.map(String.init))
        #expect(line.hasPrefix("shiftctl: the rules could not check the change, so nothing was written: "), "\(line)")
        #expect(line.hasSuffix("boom.lua:2: rule boom failed: boom"), "\(line)")
        #expect(line.firstMatch(of: Self.internalWords) == nil, "\(line)")
        #expect(sandbox.bytes() == before)
    }
}
