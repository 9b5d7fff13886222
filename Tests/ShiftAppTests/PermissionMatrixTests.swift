import Foundation
import ShiftApp
import ShiftCore
import ShiftStorage
import TestSupport
import Testing

/// Every cell of the permissions matrix (role × action, docs/requests.md) through the commands,
/// on a JSON store (the acting user is `--as`) and on PostgreSQL (the acting user is the login
/// role each one connects as, and the database checks the writes too). An allowed action
/// commits; a refused one is one line naming who and what, exit 2, and nothing changes.
@Suite struct PermissionMatrixTests {
    @Test(arguments: MatrixAction.fileStoreActions)
    func onAFileStoreEveryRoleMayDoWhatTheMatrixSays(_ action: MatrixAction) async throws {
        let folder = try TemporaryFolder(prefix: "matrix-")
        defer { folder.remove() }
        for who in RoleTeam.Who.allCases {
            let path = folder.file("\(who.rawValue).json")
            try StoreKind.json.create(try RoleTeam.schedule(), at: path)
            let before = FileManager.default.contents(atPath: path)
            let outcome = await RoleTeam.run(RoleTeam.app(store: path, user: who.user, folder: folder.path)) { try await action.run($0, "") }
            check(outcome, of: action, by: who)
            if !action.allowed.contains(who) { #expect(FileManager.default.contents(atPath: path) == before, "\(who): nothing written") }
        }
    }

    @Test(.enabled(if: PostgresTestServer.enabled, PostgresTestServer.skipReason), arguments: MatrixAction.all)
    func onPostgreSQLEveryDatabaseRoleMayDoWhatTheMatrixSays(_ action: MatrixAction) async throws {
        let team = try PostgresTeam()
        defer { team.remove() }
        let folder = try TemporaryFolder(prefix: "matrix-")
        defer { folder.remove() }
        var changed = false
        // The refused first, on one schedule; each allowed one on the team's schedule as it was.
        for who in RoleTeam.Who.allCases.sorted(by: { !action.allowed.contains($0) && action.allowed.contains($1) }) {
            if changed { try team.reset() }
            let before = try team.digest()
            let outcome = await RoleTeam.run(RoleTeam.app(store: try team.url(who), user: nil, folder: folder.path)) {
                try await action.run($0, team.prefix)
            }
            check(outcome, of: action, by: who)
            let after = try team.digest()
            if action.allowed.contains(who) {
                changed = after != before
            } else {
                #expect(after == before, "\(who): nothing written")
            }
        }
    }

    private func check(_ outcome: CommandRunner.Outcome, of action: MatrixAction, by who: RoleTeam.Who) {
        if action.allowed.contains(who) {
            #expect(outcome.status == .ok, "\(who) may \(action.name): \(outcome.stderr)")
            return
        }
        #expect(outcome.status == .badInput, "\(who) may not \(action.name): \(outcome.stdout)")
        #expect(outcome.stderr.split(separator: "\n").count == 1, "one line: \(outcome.stderr)")
        if who == .stranger {
            #expect(outcome.stderr.contains("nobody in the schedule"), "\(outcome.stderr)")
        } else {
            #expect(outcome.stderr.hasPrefix("shiftctl: permission denied: "), "\(outcome.stderr)")
            #expect(outcome.stderr.contains(" may not \(action.refusal);"), "\(who): \(outcome.stderr)")
        }
    }
}
