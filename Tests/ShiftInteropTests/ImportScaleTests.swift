import Foundation
import ShiftCore
@testable import ShiftInterop
import TestSupport
import Testing

/// Imports resolve names and symbols through dictionaries made once, and skip looking up the ids
/// they just made (issue 34, item 1). These compare those fast paths with the plain scans they
/// replace, and check that a bad row deep in a big file is still named by its line.
@Suite struct ImportScaleTests {
    let f = InteropFixture()

    enum Found: Equatable {
        case person(PersonID), shared, unknown
    }

    /// What the lookup did before it was indexed: a scan of every person.
    private func scanned(_ name: String, in schedule: Schedule) -> Found {
        let people = schedule.people
        let exact = people.filter { $0.displayName == name }
        if exact.count == 1 { return .person(exact[0].id) }
        let folded = exact.isEmpty ? people.filter { $0.displayName.lowercased() == name.lowercased() } : exact
        if folded.count == 1 { return .person(folded[0].id) }
        return folded.count > 1 ? .shared : .unknown
    }

    @Test func indexedNamesFindWhatAScanOfEveryoneFinds() throws {
        // Names that differ only in case (Ann, ANN) resolve exactly, and ignoring case not at all.
        let names = ["Ann", "ANN", "Bob", "Zoë \"Zo\" Müller, Jr.; ß", "Carl"]
        let people = names.enumerated().map { Person(id: PersonID(uuid(200 + $0.offset)), displayName: $0.element) }
        let schedule = try Schedule(
            settings: StoreSettings(timeZoneIdentifier: "UTC"), locations: [f.ward], shiftTypes: [f.day, f.night, f.office], people: people)
        let lookup = NameLookup(schedule: schedule)
        for name in names + ["ann", "bob", "BOB", "zoë \"zo\" müller, jr.; ß", "Nobody", "", "carl "] {
            let indexed: Found
            do throws(NameProblem) {
                indexed = .person(try lookup.person(name).id)
            } catch {
                indexed = error.message.contains("is the name of") ? .shared : .unknown
            }
            #expect(indexed == scanned(name, in: schedule), "\(name)")
        }
        for symbol in ["D", "d", "N", "n", "O", "o", "X", ""] {
            let scan = schedule.shiftType(symbol: symbol)
                ?? schedule.shiftTypes.filter { $0.symbol.lowercased() == symbol.lowercased() }.first
            #expect(lookup.shiftType(symbol: symbol)?.id == scan?.id, "\(symbol)")
        }
    }

    @Test func rowsWithoutIdsAreAddedAsTheLookupOfEachWouldAddThem() throws {
        let schedule = try f.schedule()
        let known = f.shifts[1]
        let text = "date,type,person,id\n2026-05-01,D,Bob,\n2026-05-02,N,bob,\n2026-05-03,O,,\n\(known.date),N,,\(known.id)\n"
        let counter = Counter()
        let plan = try ShiftCSV.plan(text, into: schedule, makeID: { ShiftID(counter.next()) })
        let plain = ShiftImportPlan(merging: plan.added + plan.updated, into: schedule)
        #expect(plan.added.count == 3 && plan.updated.count == 1)
        #expect(plan == plain)
    }

    @Test func aBadRowDeepInABigFileIsNamedByItsLine() throws {
        var text = "date,type,person\n"
        let start = date("2026-01-01")
        for row in 2...60_000 {
            text += "\(start.adding(days: row % 700)),\(row % 3 == 0 ? "N" : "D"),\(row == 50_000 ? "Nobody" : row % 2 == 0 ? "Bob" : "bob")\n"
        }
        #expect {
            try ShiftCSV.plan(text, into: try f.emptySchedule())
        } throws: { error in
            guard let failure = error as? ImportFailure else { return false }
            return failure.problems.count == 1 && failure.problems[0].line == 50_000
                && failure.problems[0].message.hasPrefix("person: no person 'Nobody' in the store")
        }
    }
}
