import Foundation
@testable import ShiftApp
import ShiftCore
import ShiftRules
import Testing

/// A roster with many findings still gets a report (issue 34, item 4): every finding counted and
/// scored, only the listing cut, exit 1; and a big import with one bad row names its line and
/// writes nothing.
@Suite struct ManyFindingsTests {
    /// Reports every shift twice: an error that weighs 2 and a penalty.
    static let everyShift = """
        return rule {
          id = "every_shift", summary = "Reports every shift.", severity = "error", on = { "shift" },
          check = function(change, schedule, report)
            report{ message = "looked at", shift = change.after, penalty = 2 }
            report{ message = "and weighed", shift = change.after, severity = "penalty", penalty = 0.5 }
          end,
        }

        """

    /// Alice works one day shift a day for `days` days, written without rules.
    func roster(days: Int) throws -> Sandbox {
        let sandbox = try Sandbox.withTeam()
        let start = LocalDate("2026-01-01")!
        try sandbox.write("date,type,person\n" + (0..<days).map { "\(start.adding(days: $0)),D,Alice\n" }.joined(), to: "roster.csv")
        let imported = try sandbox.run("--no-rules", "import", "roster.csv")
        #expect(imported.status == 0, "\(imported.stderr)")
        try sandbox.write(Self.everyShift, to: "strict/every_shift.lua")
        return sandbox
    }

    @Test func findingsPastTheLimitAreCountedAndScoredAndExitOne() throws {
        let sandbox = try roster(days: 300)
        let all = try sandbox.run("--rules", "strict", "validate", "--score", "--format", "json")
        let limited = try sandbox.run("--rules", "strict", "validate", "--score", "--limit", "5", "--format", "json")
        #expect(all.status == 1, "\(all.stderr)")
        #expect(limited.status == 1, "\(limited.stderr)")
        let whole = try json(all.stdout), cut = try json(limited.stdout)
        #expect(whole["errors"] as? Int == 300 && whole["penalties"] as? Int == 300)
        #expect((whole["violations"] as? [Any])?.count == 600 && whole["omitted"] as? Int == 0 && whole["omittedBecause"] == nil)
        #expect(cut["errors"] as? Int == 300 && cut["penalties"] as? Int == 300)
        #expect((cut["violations"] as? [Any])?.count == 5)
        #expect(cut["omitted"] as? Int == 595 && cut["omittedBecause"] as? String == "limit")
        let score = try #require(cut["score"] as? [String: Any])
        #expect(NSDictionary(dictionary: score) == NSDictionary(dictionary: try #require(whole["score"] as? [String: Any])))
        #expect(score["hardViolations"] as? Int == 300 && score["hardPenalty"] as? Double == 600 && score["softPenalty"] as? Double == 150)

        let text = try sandbox.run("--rules", "strict", "validate", "--score", "--limit", "5")
        #expect(text.status == 1)
        #expect(text.stdout.contains("… and 595 more (--limit)\n300 errors, 0 warnings, 300 penalties\n"), "\(text.stdout)")
        #expect(text.stdout.contains("  every_shift: 300 × error + 300 × penalty, penalty 750\n"), "\(text.stdout)")
    }

    @Test func pastTheListBoundTheReportSaysHowManyAreNotListed() {
        let violations = (0..<50).map { n in
            Violation(ruleID: "r", severity: n % 2 == 0 ? .error : .warning, message: "m\(n)", date: LocalDate("2026-03-01")!.adding(days: n))
        }
        let report = ViolationReport(violations: violations, schedule: nil, score: nil, rejected: false, listBound: 20)
        #expect(report.violations.count == 20 && report.omitted == 30 && report.omittedBecause == "memory")
        #expect(report.errors == 25 && report.warnings == 25)
        #expect(report.text().contains("… and 30 more (only the first 20 are listed; the counts cover all)\n25 errors, 25 warnings, 0 penalties\n"))
        let limited = ViolationReport(violations: violations, schedule: nil, score: nil, rejected: false, limit: 10, listBound: 20)
        #expect(limited.omitted == 40 && limited.omittedBecause == "limit")
        #expect(ViolationReport(violations: violations, schedule: nil, score: nil, rejected: false, limit: 30, listBound: 20).omittedBecause == "memory")
    }

    /// The first few in report order come from integer keys sorted, messages compared only
    /// within runs of equal keys: they must be what sorting everything by the full order and
    /// taking the first gives, ties in the order found.
    @Test(arguments: [0, 1, 7, 30, 149, 150, 600])
    func theFirstFindingsAreThoseOfAFullSort(count: Int) {
        var random = SystemRandomNumberGenerator()
        let violations = (0..<600).map { n in
            Violation(ruleID: ["a", "b", "c"].randomElement(using: &random)!, severity: Violation.Severity.allCases.randomElement(using: &random)!,
                      message: "m\(Int.random(in: 0..<4, using: &random))", date: Bool.random() ? nil : LocalDate("2026-03-01")!.adding(days: Int.random(in: 0..<9)),
                      line: Int32(n))
        }
        let sorted = violations.enumerated().sorted { a, b in
            let x = (a.element.date ?? .minimum, b.element.severity, a.element.ruleID, a.element.message, a.offset)
            let y = (b.element.date ?? .minimum, a.element.severity, b.element.ruleID, b.element.message, b.offset)
            return x < y
        }.map(\.element)
        #expect(ViolationReport.first(count, of: violations) == Array(sorted.prefix(count)))
    }

    /// A report names its findings through one namer that works each name out once; each
    /// finding named on its own (the plain path) must read the same, shifts of a rejected change
    /// found before the schedule's, and the score summed run by run must be the score summed
    /// finding by finding.
    @Test func namesAndScoresWorkedOutOnceAreThoseOfEachFindingAlone() throws {
        var random = SystemRandomNumberGenerator()
        let zone = "Europe/Berlin"
        let types = ["D", "N"].map { ShiftType(id: ShiftTypeID(UUID.random()), symbol: $0, title: $0, duration: ShiftDuration("07:00-15:00")!) }
        let people = (0..<6).map { Person(id: PersonID(UUID.random()), displayName: "P\($0)") }
        let start = LocalDate("2026-03-01")!
        let shifts = (0..<60).map { n in
            ScheduledShift(id: ShiftID(UUID.random()), shiftTypeID: types[n % 2].id, date: start.adding(days: n % 9), personID: n % 7 == 0 ? nil : people[n % 6].id)
        }
        let schedule = try Schedule(settings: StoreSettings(timeZoneIdentifier: zone), shiftTypes: types, people: people, shifts: shifts)
        // A rejected change's shifts: some new, one an existing shift as the change would leave it.
        var pending = (0..<5).map { n in ScheduledShift(id: ShiftID(UUID.random()), shiftTypeID: types[0].id, date: start.adding(days: 20 + n), personID: people[0].id) }
        pending.append(ScheduledShift(id: shifts[3].id, shiftTypeID: types[1].id, date: start.adding(days: 30), personID: people[1].id))
        let anyShift = shifts + pending
        let violations = (0..<400).map { n -> Violation in
            // Every 50th finding is about the shift the change moved, without a date of its own:
            // it must be named as the change would leave it.
            let aboutMoved = n % 50 == 7
            let shift = aboutMoved ? shifts[3] : Bool.random(using: &random) ? anyShift.randomElement(using: &random) : nil
            return Violation(
                ruleID: ["a", "b", "c"][n / 150], severity: Violation.Severity.allCases.randomElement(using: &random)!, message: "m\(n % 5)",
                penalty: Bool.random(using: &random) ? Double(n % 4) : nil, shiftID: shift?.id,
                personID: Bool.random(using: &random) ? people.randomElement(using: &random)!.id : nil,
                date: !aboutMoved && Bool.random(using: &random) ? start.adding(days: n % 11) : nil,
                relatedShiftIDs: Bool.random(using: &random) ? [shifts[n % 60].id] : [],
                source: ["/team/rules/a.lua", "/team/lib/util.lua", "/elsewhere/b.lua"][n % 3], line: Int32(n % 4),
                shiftTypeID: n % 13 == 0 ? types[1].id : nil)
        }
        let report = ViolationReport(violations: violations, schedule: schedule, pending: pending, score: nil, rejected: true, directory: "/team")
        let alone = ViolationReport.firstIndices(violations.count, of: violations).map {
            ViolationOutput(violations[$0], schedule: schedule, pending: pending, directory: "/team")
        }
        func fields(_ o: ViolationOutput) -> [String?] {
            [o.rule, o.severity, o.message, o.date, o.person, o.personID, o.type, o.shiftID, o.relatedShiftIDs.joined(separator: ","),
             o.penalty.map { "\($0)" }, o.source]
        }
        #expect(report.violations.map(fields) == alone.map(fields))
        #expect(report.violations.contains { $0.date == start.adding(days: 30).description && $0.shiftID == shifts[3].id.description })

        let score = ScoreSummary(violations.shuffled(using: &random))
        var byRule: [String: (count: Int, penalty: Double)] = [:]
        for v in violations {
            byRule[v.ruleID, default: (0, 0)].count += 1
            byRule[v.ruleID, default: (0, 0)].penalty += v.penalty ?? (v.severity == .penalty ? 1 : 0)
        }
        #expect(score.byRule.mapValues(\.count) == byRule.mapValues(\.count))
        #expect(score.byRule.mapValues(\.penalty) == byRule.mapValues(\.penalty))
        #expect(score.hardViolations == violations.filter { $0.severity == .error }.count)
    }

    @Test func aBigImportWithABadRowNamesItsLineAndWritesNothing() throws {
        let sandbox = try Sandbox.withTeam()
        let start = LocalDate("2026-01-01")!
        let rows = (2...52_000).map { line in "\(start.adding(days: line % 400)),\(line % 2 == 0 ? "D" : "N"),\(line == 50_000 ? "Nobody" : line % 3 == 0 ? "Alice" : "bob")\n" }
        try sandbox.write("date,type,person\n" + rows.joined(), to: "big.csv")
        let before = sandbox.bytes()
        let result = try sandbox.run("import", "big.csv")
        #expect(result.status == 2)
        #expect(result.stderr.contains("shiftctl: big.csv:50000: person: no person 'Nobody' in the store"), "\(result.stderr)")
        #expect(result.stderr.contains("big.csv: 1 problem; nothing was imported"), "\(result.stderr)")
        #expect(sandbox.bytes() == before)
    }

    /// A file wrong on every row lists its first problems, says how many more there are, and
    /// counts them all.
    @Test func anImportWrongOnEveryRowListsTheFirstProblems() throws {
        let sandbox = try Sandbox.withTeam()
        let rows = (2...1_001).map { line in "2026-01-0\(line % 9 + 1),D,Nobody \(line)\n" }
        try sandbox.write("date,type,person\n" + rows.joined(), to: "wrong.csv")
        let before = sandbox.bytes()
        let result = try sandbox.run("import", "wrong.csv")
        #expect(result.status == 2)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == App.importProblemsListed + 2, "\(result.stderr)")
        #expect(lines.first == "shiftctl: wrong.csv:2: person: no person 'Nobody 2' in the store (add them first: shiftctl person add)")
        #expect(lines.dropLast().last == "shiftctl: wrong.csv: … and 950 more (only the first 50 are listed)")
        #expect(lines.last == "shiftctl: wrong.csv: 1000 problems; nothing was imported")
        #expect(sandbox.bytes() == before)
    }
}
