import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Who made a change and why, as the change log records it.
@Suite struct ChangeLogAttributionTests {
    private func lastEntry(_ sandbox: Sandbox) throws -> [String: Any] {
        try #require((try json(try sandbox.run("log", "--limit", "1", "--format", "json").stdout)["entries"] as? [[String: Any]])?.first)
    }

    @Test func withoutUSERTheLoginNameOfTheProcessIsRecorded() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        let login = String(cString: try #require(getpwuid(geteuid())?.pointee.pw_name))
        let added = try sandbox.run(arguments: ["schedule", "add", "--type", "D", "--date", "2026-03-02"], launcher: ["/usr/bin/env", "-u", "USER"])
        #expect(added.status == 0, "\(added.stderr)")
        let entry = try lastEntry(sandbox)
        #expect(entry["userId"] as? String == login)
        #expect(entry["userId"] as? String != "unknown")
    }

    @Test func aRotationRecordsItsReason() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        let given = try sandbox.run("rotate", "pitman", "--team", "A=Alice", "--from", "2026-03-02", "--to", "2026-03-15",
                                    "--reason", "spring roster")
        #expect(given.status == 0, "\(given.stderr)")
        #expect(try lastEntry(sandbox)["reason"] as? String == "spring roster")

        let other = try sandbox.run("rotate", "pitman", "--team", "B=Bob", "--from", "2026-03-02", "--to", "2026-03-15")
        #expect(other.status == 0, "\(other.stderr)")
        #expect(try lastEntry(sandbox)["reason"] as? String == "rotation pitman")
    }
}
