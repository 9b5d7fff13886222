import Foundation

/// A folder of rule files written by a test (name → Lua source, subfolders allowed), removed with
/// the value.
public final class RuleFolder: Sendable {
    private let folder: TemporaryFolder
    public var path: String { folder.path }

    public init(_ files: [String: String]) throws {
        folder = try TemporaryFolder(prefix: "rules-")
        for (name, text) in files { try folder.write(text, to: name) }
    }
}

/// Rules the tests of several targets share.
public enum SampleRules {
    /// `four_days`: everyone works four distinct days of the planning window, 10 a day off
    /// (soft) — a rule that wants more shifts than a small demand makes, for overstaffing.
    public static let fourDays = """
        return rule {
          id = "four_days",
          summary = "Everyone works four days of the week (soft).",
          severity = "penalty",
          validate_person = function(person, shifts, schedule, report)
            local days, seen = 0, {}
            for i = 1, shifts.n do
              if not seen[shifts.dates[i]] then seen[shifts.dates[i]] = true; days = days + 1 end
            end
            if days ~= 4 then
              report{ message = person.name .. " works " .. days .. " days", person = person, penalty = 10 * math.abs(4 - days) }
            end
          end,
        }
        """
}
