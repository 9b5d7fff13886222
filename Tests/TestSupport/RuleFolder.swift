import Foundation

/// A folder of rule files written by a test (name → Lua source, subfolders allowed), removed with
/// the value.
public final class RuleFolder: Sendable {
    public let path: String

    public init(_ files: [String: String]) throws {
        path = NSTemporaryDirectory() + "rules-" + UUID().uuidString.prefix(8)
        for (name, text) in files {
            let file = path + "/" + name
            try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: file, atomically: true, encoding: .utf8)
        }
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
