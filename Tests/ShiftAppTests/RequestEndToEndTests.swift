import Foundation
import ShiftCore
import ShiftStorage
import Testing

/// `shiftctl request …` end to end: making each kind, the colleague's acceptance, approval
/// through the rules, refusals that leave the store as it was, and stale requests.
@Suite struct RequestEndToEndTests {
    /// Alice, Bob and Bobby with a shift each far ahead, and one open shift.
    private func team() throws -> (Sandbox, bob: String, alice: String, open: String) {
        let sandbox = try Sandbox.withTeam()
        func add(_ type: String, _ date: String, _ person: String?) throws -> String {
            var arguments = ["schedule", "add", "--type", type, "--date", date, "--format", "json"]
            if let person { arguments += ["--person", person] }
            let result = try sandbox.run(arguments: arguments)
            #expect(result.status == 0, "\(result.stderr)")
            return try #require(json(result.stdout)["id"] as? String)
        }
        return (sandbox, try add("D", "2031-03-03", "Bob"), try add("N", "2031-03-04", "Alice"), try add("D", "2031-03-05", nil))
    }

    private func made(_ result: CLIResult) throws -> String {
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(json(result.stdout)["id"] as? String)
    }

    @Test func aSwapIsAcceptedByTheColleagueThenApprovedThroughTheRules() throws {
        let (sandbox, bob, alice, _) = try team()
        let id = try made(try sandbox.run("request", "swap", String(bob.prefix(8)), "--with", "Alice", "--for", alice,
                                          "--reason", "a wedding", "--as", "Bob", "--format", "json"))
        let early = try sandbox.run("request", "approve", id, "--as", "Carla")
        #expect(early.status == 2)
        #expect(early.stderr.contains("is a swap with a colleague, who has to accept it before it is approved"), "\(early.stderr)")

        #expect(try sandbox.run("request", "accept", id, "--as", "Alice").status == 0)
        let approved = try sandbox.run("request", "approve", id, "--as", "Carla", "--reason", "fine")
        #expect(approved.status == 0, "\(approved.stderr)")
        #expect(approved.stdout.hasPrefix("approved swap request Bob: D 2031-03-03 to Alice for N 2031-03-04"), "\(approved.stdout)")

        let schedule = try sandbox.schedule()
        let people = Dictionary(uniqueKeysWithValues: schedule.people.map { ($0.displayName, $0.id) })
        #expect(schedule.shift(ShiftID(bob)!)?.personID == people["Alice"])
        #expect(schedule.shift(ShiftID(alice)!)?.personID == people["Bob"])
        let request = try #require(schedule.request(RequestID(id)!))
        #expect(request.history.map(\.state) == [.pending, .accepted, .approved])
        #expect(request.history.map(\.userId) == ["Bob", "Alice", "Carla"])
        #expect(request.history.map(\.reason) == ["a wedding", nil, "fine"])
        #expect(schedule.changeLog.suffix(2).allSatisfy { $0.reason == "request \(id.prefix(8)): swap approved" })

        let shown = try sandbox.run("request", "show", String(id.prefix(6)))
        #expect(shown.stdout.contains("state: approved"), "\(shown.stdout)")
        let again = try sandbox.run("request", "cancel", id, "--as", "Bob")
        #expect(again.status == 2)
        #expect(again.stderr == "shiftctl: ID: request \(id.prefix(8)) is already approved; only a pending or accepted request can be cancelled\n")
    }

    @Test func theLogShowsEveryStateChangeOfARequestWithWhoAndWhy() throws {
        let (sandbox, bob, alice, _) = try team()
        let swap = try made(try sandbox.run("request", "swap", bob, "--with", "Alice", "--for", alice, "--reason", "a wedding", "--as", "Bob", "--format", "json"))
        #expect(try sandbox.run("request", "accept", swap, "--as", "Alice").status == 0)
        #expect(try sandbox.run("request", "approve", swap, "--as", "Carla", "--reason", "fine").status == 0)
        let offer = try made(try sandbox.run("request", "offer", bob, "--as", "Alice", "--format", "json"))
        #expect(try sandbox.run("request", "cancel", offer, "--as", "Alice", "--reason", "kept it").status == 0)

        // Columns are padded: compare each row with its spaces collapsed.
        let rows = try sandbox.run("log").stdout.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        for row in [
            "Bob swap made 2031-03-03 - pending request \(swap.prefix(8)): a wedding",
            "Alice swap accepted 2031-03-03 pending accepted request \(swap.prefix(8))",
            "Carla swap approved 2031-03-03 accepted approved request \(swap.prefix(8)): fine",
            "Carla reassigned 2031-03-03 D Bob D Alice request \(swap.prefix(8)): swap approved",
            "Alice offer made 2031-03-03 - pending request \(offer.prefix(8))",
            "Alice offer cancelled 2031-03-03 pending cancelled request \(offer.prefix(8)): kept it",
        ] {
            #expect(rows.contains { $0.hasSuffix(row) }, "\(row) in \(rows)")
        }
        #expect(rows.firstIndex { $0.contains("offer cancelled") }! < rows.firstIndex { $0.contains("swap made") }!, "newest first")

        let log = try json(try sandbox.run("log", "--format", "json").stdout)
        let events = try #require(log["requestEvents"] as? [[String: Any]])
        let swapEvents = events.filter { $0["requestID"] as? String == swap }
        #expect(swapEvents.map { $0["event"] as? String } == ["approved", "accepted", "made"])
        #expect(swapEvents.map { $0["previousState"] as? String } == ["accepted", "pending", nil])
        #expect(swapEvents.map { $0["userId"] as? String } == ["Carla", "Alice", "Bob"])
        #expect(swapEvents.first?["summary"] as? String == "D 2031-03-03 to Alice for N 2031-03-04")
        #expect(swapEvents.first?["requester"] as? String == "Bob")
        #expect(swapEvents.first?["date"] as? String == "2031-03-03")
        #expect(events.first?["event"] as? String == "cancelled")
        #expect((log["entries"] as? [[String: Any]])?.filter { $0["changeType"] as? String == "reassigned" }.count == 2)

        let two = try json(try sandbox.run("log", "--limit", "2", "--format", "json").stdout)
        #expect((two["entries"] as? [Any] ?? []).count + (two["requestEvents"] as? [Any] ?? []).count == 2, "--limit counts both")
    }

    @Test func anApprovalTheRulesRefuseLeavesTheRequestPendingAndShowsWhy() throws {
        let (sandbox, bob, _, open) = try team()
        // Bob works a night on the open shift's day: claiming its day shift too breaks
        // one_shift_per_day.
        _ = try made(try sandbox.run("schedule", "add", "--type", "N", "--date", "2031-03-05", "--person", "Bob", "--format", "json"))
        let id = try made(try sandbox.run("request", "claim", open, "--as", "bob", "--format", "json"))
        let before = sandbox.bytes()
        let refused = try sandbox.run("request", "approve", id, "--as", "Carla")
        #expect(refused.status == 1, "\(refused.stdout)\(refused.stderr)")
        #expect(refused.stderr.hasSuffix("nothing was written; request \(id.prefix(8)) stays pending\n"), "\(refused.stderr)")
        #expect(!refused.stdout.isEmpty)
        #expect(sandbox.bytes() == before)
        #expect(try sandbox.schedule().request(RequestID(id)!)?.state == .pending)
        _ = bob
    }

    @Test func approvedTimeOffBecomesUnavailabilityAndOpensTheShifts() throws {
        let (sandbox, bob, _, _) = try team()
        let id = try made(try sandbox.run("request", "time-off", "--from", "2031-03-03", "--to", "2031-03-04", "--as", "Bob",
                                          "--reason", "holiday", "--format", "json"))
        let approved = try sandbox.run("request", "approve", id, "--as", "Carla")
        #expect(approved.status == 0, "\(approved.stderr)")
        let schedule = try sandbox.schedule()
        let bobID = try #require(schedule.people.first { $0.displayName == "Bob" }?.id)
        #expect(schedule.shift(ShiftID(bob)!)?.personID == nil)
        #expect(schedule.availability(of: bobID).map { [$0.from, $0.to] } == [[LocalDate("2031-03-03")!, LocalDate("2031-03-04")!]])
    }

    @Test func anOfferOpensTheShiftAndAClaimTakesIt() throws {
        let (sandbox, bob, _, _) = try team()
        let offer = try made(try sandbox.run("request", "offer", bob, "--as", "Bob", "--format", "json"))
        #expect(try sandbox.run("request", "approve", offer, "--as", "Carla").status == 0)
        let claim = try made(try sandbox.run("request", "claim", bob, "--person", "Bobby", "--format", "json"))
        #expect(try sandbox.run("request", "approve", claim, "--as", "Carla").status == 0)
        let schedule = try sandbox.schedule()
        #expect(schedule.shift(ShiftID(bob)!)?.personID == schedule.people.first { $0.displayName == "Bobby" }?.id)
        let list = try json(try sandbox.run("request", "list", "--format", "json").stdout)
        #expect((list["requests"] as? [[String: Any]])?.map { $0["state"] as? String } == ["approved", "approved"])
    }

    @Test func autoApprovalApprovesAClaimThatPassesEveryRule() throws {
        let (sandbox, _, _, open) = try team()
        #expect(try sandbox.run("request", "auto-approve", "on").status == 0)
        // Alice's night ends when the open day shift starts: no rest, so hers waits.
        let waits = try sandbox.run("request", "claim", open, "--as", "Alice")
        #expect(waits.status == 0, "\(waits.stderr)")
        #expect(waits.stdout.hasPrefix("made claim request"), "\(waits.stdout)")
        #expect(waits.stderr.contains("not approved automatically: the rules refuse the change (1 violation: min_rest_between_shifts)"), "\(waits.stderr)")
        let result = try sandbox.run("request", "claim", open, "--as", "Bobby")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("made and approved claim request"), "\(result.stdout)")
        let schedule = try sandbox.schedule()
        #expect(schedule.shift(ShiftID(open)!)?.personID == schedule.people.first { $0.displayName == "Bobby" }?.id)
        #expect(schedule.requests.map(\.state) == [.pending, .approved])
    }

    @Test func aRequestOnAShiftThatChangedCannotBeApproved() throws {
        let (sandbox, bob, _, _) = try team()
        let id = try made(try sandbox.run("request", "offer", bob, "--as", "Bob", "--format", "json"))
        #expect(try sandbox.run("switch", bob, "--to", "N").status == 0)
        #expect(try sandbox.run("request", "list").stdout.contains("pending"))
        let before = sandbox.bytes()
        let refused = try sandbox.run("request", "approve", id, "--as", "Carla")
        #expect(refused.status == 2)
        #expect(refused.stderr == "shiftctl: request shift: the shift changed since it was read: D on 2031-03-03 for Bob is now N on 2031-03-03 for Bob; look again and make the request anew\n")
        #expect(sandbox.bytes() == before)
        #expect(try sandbox.run("request", "show", id).stdout.contains("note:"))
    }

    @Test(arguments: [
        (["request", "offer", "ffffffff", "--as", "Bob"], "shiftctl: SHIFT: no shift 'ffffffff'"),
        (["request", "approve", "ffffffff"], "shiftctl: ID: no request 'ffffffff'"),
        (["request", "time-off", "--from", "2020-01-01", "--as", "Bob"], "shiftctl: --from: 2020-01-01 is in the past"),
        (["request", "time-off", "--from", "2031-03-05", "--to", "2031-03-01", "--as", "Bob"], "shiftctl: --to:"),
        (["request", "offer", "ALICE", "--as", "Bob"], "shiftctl: SHIFT: the N shift on 2031-03-04 is Alice's, not Bob's"),
        (["request", "claim", "ALICE", "--as", "Bob"], "shiftctl: SHIFT: the N shift on 2031-03-04 is Alice's, not open"),
        (["request", "offer", "BOB", "--as", "nobody-here"], "shiftctl: --as: the acting user 'nobody-here' is nobody in the schedule"),
    ])
    func badInputIsOneLineAndWritesNothing(_ arguments: [String], _ start: String) throws {
        let (sandbox, bob, alice, _) = try team()
        let before = sandbox.bytes()
        let resolved = arguments.map { $0 == "ALICE" ? alice : $0 == "BOB" ? bob : $0 }
        let result = try sandbox.run(arguments: resolved)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix(start), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(sandbox.bytes() == before)
    }

    /// The calendar and the roster mark what waits for a decision: the shift of an offer, the
    /// open shift of a claim, the days of a time-off request; and nothing once it is decided.
    @Test func theCalendarAndTheRosterMarkPendingRequests() throws {
        let (sandbox, bob, _, open) = try team()
        let offer = try made(try sandbox.run("request", "offer", bob, "--as", "Bob", "--format", "json"))
        let claim = try made(try sandbox.run("request", "claim", open, "--as", "Alice", "--format", "json"))
        let off = try made(try sandbox.run("request", "time-off", "--from", "2031-03-04", "--to", "2031-03-04", "--as", "Bobby", "--format", "json"))

        let week = try sandbox.run("calendar", "week", "--from", "2031-03-03")
        #expect(week.status == 0, "\(week.stderr)")
        let lines = week.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("  D ") && $0.contains(" Bob ") && $0.hasSuffix("  ? offered by Bob, pending (\(offer.prefix(8)))") },
                "\(week.stdout)")
        #expect(lines.contains { $0.contains("(open)") && $0.hasSuffix("  ? claim by Alice, pending (\(claim.prefix(8)))") }, "\(week.stdout)")
        #expect(lines.contains { $0.hasPrefix("  ? ") && $0.hasSuffix("time off for Bobby, pending (\(off.prefix(8)))") }, "\(week.stdout)")
        #expect(week.stdout.hasSuffix("? a request waiting for a decision (shiftctl request list --pending)\n"), "\(week.stdout)")

        let days = try #require(json(try sandbox.run("calendar", "week", "--from", "2031-03-03", "--format", "json").stdout)["days"] as? [[String: Any]])
        let asked = days.map { ($0["requests"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String } }
        #expect(asked.prefix(3).map { $0 } == [[offer], [off], [claim]])
        #expect(days.dropFirst(3).allSatisfy { ($0["requests"] as? [Any])?.isEmpty == true })

        let roster = try sandbox.run("calendar", "roster", "--from", "2031-03-03", "--days", "3")
        let rows = roster.stdout.split(separator: "\n").map(String.init)
        #expect(rows.contains { $0.hasPrefix("Bob ") && $0.contains("D?") }, "\(roster.stdout)")
        #expect(rows.contains { $0.hasPrefix("Bobby") && $0.contains("?") }, "\(roster.stdout)")
        #expect(rows.contains { $0.hasPrefix("(open)") && $0.contains("D?") }, "\(roster.stdout)")
        #expect(rows.contains { $0.hasPrefix("Alice") && !$0.contains("?") }, "\(roster.stdout)")
        #expect(roster.stdout.contains("? a request waiting for a decision"), "\(roster.stdout)")
        let rosterJSON = try #require(json(try sandbox.run("calendar", "roster", "--from", "2031-03-03", "--days", "3", "--format", "json").stdout)["rows"] as? [[String: Any]])
        let bobRow = try #require(rosterJSON.first { $0["person"] as? String == "Bob" })
        #expect(bobRow["requests"] as? [[String]] == [[offer], [], []])

        // Decided or cancelled, nothing is marked.
        for (id, who) in [(offer, "Bob"), (claim, "Alice"), (off, "Bobby")] {
            #expect(try sandbox.run("request", "cancel", id, "--as", who).status == 0)
        }
        let after = try sandbox.run("calendar", "roster", "--from", "2031-03-03", "--days", "3")
        #expect(!after.stdout.contains("?"), "\(after.stdout)")
        #expect(!(try sandbox.run("calendar", "week", "--from", "2031-03-03").stdout.contains("?")))
    }
}
