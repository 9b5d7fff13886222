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
