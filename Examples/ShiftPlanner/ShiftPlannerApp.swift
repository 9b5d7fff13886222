import Dependencies
import Foundation
import ShiftCore
import ShiftDependencies

/// `ShiftPlannerExample [--store PATH] [--rules DIR]… [--user ID] [--time-zone TZ]`
///
/// Without `--store`, it plans on the sample schedule in memory. Commands come from standard
/// input, one a line (`help` lists them), so it also runs from a script:
///
///     printf 'sample\nadd E Alice\nlog\n' | swift run ShiftPlannerExample --store /tmp/plan.json --rules rules
@main
struct ShiftPlannerApp {
    struct Options: Equatable {
        var store: String?
        var rules: [String] = []
        var user: String?
        var timeZone: String?
    }

    enum OptionsError: Error, CustomStringConvertible {
        case missingValue(String), unknown(String)
        var description: String {
            switch self {
            case let .missingValue(option): "\(option) needs a value"
            case let .unknown(option): "unknown option \(option) (options: --store PATH, --rules DIR, --user ID, --time-zone TZ)"
            }
        }
    }

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var remaining = arguments[...]
        while let option = remaining.popFirst() {
            guard ["--store", "--rules", "--user", "--time-zone"].contains(option) else { throw OptionsError.unknown(option) }
            guard let value = remaining.popFirst() else { throw OptionsError.missingValue(option) }
            switch option {
            case "--store": options.store = value
            case "--rules": options.rules.append(value)
            case "--user": options.user = value
            default: options.timeZone = value
            }
        }
        return options
    }

    /// The connection the options describe: a JSON file (created when missing), or the sample
    /// schedule in memory.
    static func configuration(_ options: Options, environment: [String: String]) -> ScheduleConfiguration {
        let userID = options.user ?? environment["USER"] ?? "planner"
        let profile = UserProfile(userId: userID, displayName: userID)
        guard let path = options.store else {
            var preview = ScheduleConfiguration.preview(rulesDirectories: options.rules)
            preview.defaultProfile = profile
            return preview
        }
        let settings = StoreSettings(timeZoneIdentifier: options.timeZone ?? TimeZone.current.identifier)
        return ScheduleConfiguration(
            backend: .jsonFile(path: path, createIfMissing: true, initialSettings: settings),
            rulesDirectories: options.rules, defaultProfile: profile,
            ruleLog: { source, message in FileHandle.standardError.write(Data("\(source): \(message)\n".utf8)) })
    }

    static func main() async {
        let options: Options
        do {
            options = try parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            FileHandle.standardError.write(Data("ShiftPlannerExample: \(error)\n".utf8))
            exit(2)
        }
        prepareDependencies {
            $0.scheduleConnection = ScheduleConnection(configuration(options, environment: ProcessInfo.processInfo.environment))
        }
        await run(input: { readLine() }, output: { print($0) })
    }

    /// The read–send–print loop.
    @MainActor
    static func run(input: () -> String?, output: (String) -> Void) async {
        let feature = PlannerFeature()
        let store = FeatureStore(initialState: PlannerFeature.State(), reduce: feature.reduce)
        await store.send(.start)
        output(TextUI.render(store.state))
        while let line = input() {
            guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
            switch TextUI.parse(line, today: store.state.today) {
            case .quit: return
            case .help: output(TextUI.help)
            case let .invalid(message): output(message)
            case let .action(action):
                await store.send(action)
                if case .showLog = action { output(TextUI.render(log: store.state.log)) } else { output(TextUI.render(store.state)) }
            }
        }
    }
}
