import Foundation
import TestSupport
import Synchronization
import Testing
import ShiftCore
import ShiftStorage
@testable import ShiftRules

/// The hostile-script corpus (`Fixtures/hostile/*.lua`): every script runs once at load time (the
/// top level of a rule file) and once inside a rule's `check`, beside a sentinel rule that uses a
/// shared module, the string library and `cal`. Each must end with a clear message naming the
/// script, within bounded time (and the sandbox's memory cap), with the JSON store byte-for-byte
/// untouched; afterwards the next change is accepted and the sentinel still rejects what it
/// guards, so no script can switch another rule off. (LuaHostTests covers the runtime alone.)
///
/// A fixture starts with `-- attack:` (what it tries), `-- expect:` (substrings of the error,
/// `|`-separated; `accepted` when the script does no harm and the change goes through;
/// `rejected` when it reports a violation, which must come out as one printable line) and
/// optionally `-- expect-load:` (the same for the load-time run), then defines
/// `local function attack(change, schedule, report, params)`.
@Suite struct HostileRuleTests {
    struct Fixture: CustomTestStringConvertible, Sendable {
        let name: String
        let attack: String
        let expect: String
        let expectAtLoad: String
        let source: String
        var testDescription: String { name }
    }

    enum Phase: String, CaseIterable, Sendable { case load, check }

    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/hostile")

    static let fixtures: [Fixture] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".lua") }.sorted().map { name in
            let source = (try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)) ?? ""
            func header(_ key: String) -> String? {
                source.split(separator: "\n").first { $0.hasPrefix("-- \(key): ") }.map { String($0.dropFirst(key.count + 5)) }
            }
            let expect = header("expect") ?? "?"
            return Fixture(name: String(name.dropLast(4)), attack: header("attack") ?? "?", expect: expect,
                           expectAtLoad: header("expect-load") ?? expect, source: source)
        }
    }()

    static let sentinelRules: [String: String] = [
        "lib/guard.lua": """
            local M = { forbidden = { ["2026-03-04"] = true } }
            function M.is_forbidden(date)
              return M.forbidden[date] == true and cal.weekday(date) == 3 and string.format("%s", date):sub(1, 4) == "2026"
            end
            return M
            """,
        "sentinel.lua": """
            local guard = require("lib.guard")
            return rule {
              id = "sentinel", summary = "No shifts on 2026-03-04.", on = { "shift" },
              check = function(change, schedule, report)
                local s = change.after
                if s ~= nil and guard.is_forbidden(s.date) then
                  report{ message = ("sentinel: %s is closed"):format(s.date), shift = s }
                end
              end,
            }
            """,
    ]

    static func hostileFile(_ fixture: Fixture, _ phase: Phase) -> String {
        switch phase {
        case .load:
            return fixture.source + """

                local result = attack(nil, nil, nil, nil)
                if result ~= nil then return result end
                return rule { id = "hostile", summary = "Loads after misbehaving.", on = { "shift" }, check = function() end }
                """
        case .check:
            return fixture.source + """

                return rule {
                  id = "hostile", summary = "Misbehaves on one date.", on = { "shift" },
                  check = function(change, schedule, report, params)
                    if change.after ~= nil and change.after.date == "2026-03-02" then
                      return attack(change, schedule, report, params)
                    end
                  end,
                }
                """
        }
    }

    @Test func theCorpusIsLargeAndEveryScriptSaysWhatItAttacks() {
        #expect(Self.fixtures.count >= 40)
        for fixture in Self.fixtures {
            #expect(fixture.attack != "?" && fixture.expect != "?", "\(fixture.name) needs -- attack: and -- expect: headers")
        }
    }

    @Test(arguments: fixtures, Phase.allCases)
    func aHostileScriptIsStoppedAndTheStoreUntouched(_ fixture: Fixture, _ phase: Phase) async throws {
        var files = Self.sentinelRules
        files["hostile.lua"] = Self.hostileFile(fixture, phase)
        let folder = try RuleFolder(files)
        let world = World()
        let storePath = folder.path + ".json"
        defer {
            // The store and the lock file the repository keeps beside it.
            for file in [storePath, storePath + ".lock"] { try? FileManager.default.removeItem(atPath: file) }
        }
        let plain = try ScheduleStore(
            repository: JSONFileRepository(path: storePath, createIfMissing: true,
                                           initialSettings: StoreSettings(timeZoneIdentifier: "Europe/Berlin")),
            actingUser: UserProfile(userId: "t", displayName: "T"), environment: testEnvironment())
        try await plain.apply(world.setup)
        let storeBefore = FileManager.default.contents(atPath: storePath)
        let label = "\(fixture.name) (\(phase))"
        let expected = phase == .load ? fixture.expectAtLoad : fixture.expect
        let clock = ContinuousClock()
        let start = clock.now

        let printed = Mutex<[String]>([])
        defer {
            for line in printed.withLock({ $0 }) {
                #expect(!line.unicodeScalars.contains { $0.properties.generalCategory == .control && $0 != "\n" && $0 != "\t" },
                        "\(label): printed a control character: \(line.debugDescription)")
            }
        }
        let engine: RuleEngine
        do {
            engine = try RuleEngine(RuleEngineConfiguration(
                directories: [folder.path], now: { fixedNow }, log: { _, message in printed.withLock { $0.append(message) } },
                limits: .init(memoryLimit: 32 << 20, instructionBudget: 5_000_000, timeLimit: .seconds(2))))
            if phase == .load && expected != "accepted" && expected != "rejected" {
                Issue.record("\(label): the rules loaded")
                return
            }
        } catch {
            #expect(clock.now - start < .seconds(10), "\(label) was not stopped in time")
            #expect(phase == .load && expected != "accepted" && expected != "rejected", "\(label): did not load: \(error)")
            Self.expectMessage("\(error)", expected, label)
            #expect(FileManager.default.contents(atPath: storePath) == storeBefore, "\(label): nothing written")
            return
        }

        let store = try ScheduleStore(
            repository: JSONFileRepository(path: storePath), validators: [engine],
            actingUser: UserProfile(userId: "t", displayName: "T"), environment: testEnvironment())
        do {
            try await store.apply(.scheduleShift(world.shift(1, world.day, "2026-03-02", world.bob)))
            #expect(expected == "accepted" || phase == .load, "\(label): the change was accepted")
        } catch let ScheduleError.rejected(violations) {
            #expect(expected == "rejected", "\(label): rejected by \(violations)")
            #expect(violations.map(\.ruleID) == ["hostile"], "\(label)")
            for violation in violations {
                #expect(violation.message.count <= EngineState.maxMessageLength + 1, "\(label): the message is cut")
                #expect(!violation.message.unicodeScalars.contains { $0.properties.generalCategory == .control },
                        "\(label): one printable line: \(violation.message.debugDescription)")
            }
            #expect(FileManager.default.contents(atPath: storePath) == storeBefore, "\(label): nothing written")
        } catch let ScheduleError.validatorFailed(_, message) {
            #expect(expected != "accepted" && expected != "rejected", "\(label): refused: \(message)")
            Self.expectMessage(message, expected, label)
            #expect(FileManager.default.contents(atPath: storePath) == storeBefore, "\(label): nothing written")
        }
        #expect(clock.now - start < .seconds(10), "\(label) was not stopped in time")

        // The next change still works, and the sentinel still guards its date.
        try await store.apply(.scheduleShift(world.shift(2, world.day, "2026-03-03", world.bob)))
        do {
            try await store.apply(.scheduleShift(world.shift(3, world.day, "2026-03-04", world.carol)))
            Issue.record("\(label): the sentinel rule was switched off")
        } catch let ScheduleError.rejected(violations) {
            #expect(violations.map(\.ruleID) == ["sentinel"], "\(label)")
        } catch {
            Issue.record("\(label): the sentinel failed: \(error)")
        }
        let saved = try JSONFileRepository(path: storePath).load().0
        #expect(saved.shifts().map(\.date.description).filter { $0 != "2026-03-02" } == ["2026-03-03"], "\(label)")
    }

    static func expectMessage(_ message: String, _ expected: String, _ label: String) {
        if ProcessInfo.processInfo.environment["HOSTILE_VERBOSE"] != nil { print("HOSTILE \(label): \(message)") }
        #expect(message.contains("hostile.lua") || message.contains("rule hostile"), "\(label): \(message)")
        let alternatives = expected.lowercased().split(separator: "|")
        #expect(alternatives.contains { message.lowercased().contains($0) }, "\(label): \(message)")
        #expect(!message.unicodeScalars.contains { $0.properties.generalCategory == .control },
                "\(label): one printable line: \(message.prefix(200).debugDescription)")
        #expect(message.count < 1_500, "\(label): a readable length (\(message.count) characters)")
    }
}
