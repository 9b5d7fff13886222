import Foundation
import ShiftCore
import ShiftStorage
import Testing

/// Names that can be told apart: duplicates are refused on add, update and import, and a store
/// that holds them from before still opens and says how to tell them apart.
@Suite struct NameTests {
    @Test func addingOrRenamingToANameInUseIsOneLineAndWritesNothing() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        let before = try #require(sandbox.bytes())
        let bobID = try #require(try sandbox.schedule().people.first { $0.displayName == "Bob" }).id.description.prefix(8)
        let person = try sandbox.run("person", "add", "bob")
        #expect(person.status == 2)
        #expect(person.stderr == "shiftctl: person name: another person is already called 'Bob' (\(bobID)); give each person a name of their own\n")
        let rename = try sandbox.run("person", "update", "Alice", "--name", "Bob")
        #expect(rename.status == 2)
        #expect(rename.stderr == person.stderr)
        let location = try sandbox.run("location", "add", "Ward A")
        #expect(location.status == 2)
        #expect(location.stderr.hasPrefix("shiftctl: location name: another location is already called 'Ward A' ("), "\(location.stderr)")
        #expect(sandbox.bytes() == before)
    }

    @Test func anImportThatWouldDuplicateANameNamesTheFile() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        let file = try Schedule(settings: StoreSettings(timeZoneIdentifier: "UTC"),
                                people: [Person(id: PersonID(UUID()), displayName: "Alice")])
        try Data(StoreFileCodec.encode(file)).write(to: URL(fileURLWithPath: sandbox.path + "/people.json"))
        let before = try #require(sandbox.bytes())
        let result = try sandbox.run("import", "people.json")
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("shiftctl: people.json: person name: another person is already called 'Alice' ("), "\(result.stderr)")
        #expect(result.stderr.hasSuffix("; nothing was imported\n"))
        #expect(sandbox.bytes() == before)
    }

    @Test func aStoreWithDuplicatesOpensAndALookupSaysToUseTheID() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        let schedule = try sandbox.schedule()
        let twin = Person(id: PersonID(UUID(uuidString: "ffff0000-0000-4000-8000-000000000001")!), displayName: "Bob")
        let stored = try Schedule(settings: schedule.settings, locations: schedule.locations, shiftTypes: schedule.shiftTypes,
                                  people: schedule.people + [twin])
        try JSONFileRepository(path: sandbox.store).write(StoreFileCodec.encode(stored))

        let list = try sandbox.run("person", "list")
        #expect(list.status == 0, "\(list.stderr)")
        let bob = try #require(schedule.people.first { $0.displayName == "Bob" }).id.description.prefix(8)
        let lookup = try sandbox.run("schedule", "add", "--type", "D", "--date", "2026-03-02", "--person", "Bob")
        #expect(lookup.status == 2)
        let ids = [String(bob), "ffff0000"].sorted()
        #expect(lookup.stderr == "shiftctl: --person: 2 people are called 'Bob' (\(ids.joined(separator: ", "))); name one by its id, "
            + "and give each person a name of their own: shiftctl person update \(ids[1]) --name NEW\n")
        // What the message says works.
        #expect(try sandbox.run("schedule", "add", "--type", "D", "--date", "2026-03-02", "--person", "ffff0000").status == 0)
        let renamed = try sandbox.run("person", "update", "ffff0000", "--name", "Bob B")
        #expect(renamed.status == 0, "\(renamed.stderr)")
        #expect(try sandbox.run("schedule", "add", "--type", "N", "--date", "2026-03-04", "--person", "Bob").status == 0)
    }

    @Test func aCSVNamingAnUnknownPersonSuggestsTheClosest() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        try sandbox.write("date,type,person\n2026-03-02,D,Alcie\n2026-03-03,N,Zed\n", to: "shifts.csv")
        let before = try #require(sandbox.bytes())
        let result = try sandbox.run("import", "shifts.csv")
        #expect(result.status == 2)
        #expect(result.stderr == """
            shiftctl: shifts.csv:2: person: no person 'Alcie' in the store; did you mean: Alice
            shiftctl: shifts.csv:3: person: no person 'Zed' in the store (add them first: shiftctl person add)
            shiftctl: shifts.csv: 2 problems; nothing was imported

            """)
        #expect(sandbox.bytes() == before)
    }

    @Test func aCSVWithSemicolonsImports() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        try sandbox.write("date;type;person;notes\r\n2026-03-02;D;Alice;\"early; cover\"\r\n2026-03-03;N;Bob;\r\n", to: "shifts.csv")
        let result = try sandbox.run("import", "shifts.csv")
        #expect(result.status == 0, "\(result.stderr)")
        let shifts = try sandbox.schedule().shifts()
        #expect(shifts.count == 2)
        #expect(shifts.contains { $0.notes == "early; cover" })
    }
}

extension NameTests {
    @Test func aScriptThatAddsANameInUseFailsOnItsLine() throws {
        let sandbox = try Sandbox.withTeam()
        defer { sandbox.remove() }
        try sandbox.write("""
            return script { id = "hire", run = function(ctx, schedule, ops)
              ops.add_person{ name = "Carol" }
              ops.add_person{ name = "alice" }
            end }
            """, to: "hire.lua")
        let before = sandbox.bytes()
        let result = try sandbox.run("run", "hire.lua")
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("shiftctl: hire.lua:3: script hire failed: ops.add_person: person name: another person is already called 'Alice' ("),
                "\(result.stderr)")
        #expect(sandbox.bytes() == before)
    }
}
