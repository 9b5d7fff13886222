import Foundation

/// A fresh folder under the temporary directory for one test, removed by `remove()` or, at the
/// latest, when the last reference goes (a test that fails half-way leaves nothing behind).
public final class TemporaryFolder: Sendable {
    public let path: String

    /// `prefix` starts the folder's name, so a folder left by a crash says which tests made it.
    public init(prefix: String = "shift-test-") throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent(prefix + UUID().uuidString.prefix(8)).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { remove() }

    public func remove() { try? FileManager.default.removeItem(atPath: path) }

    /// The path of `name` in the folder.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Writes `text` to `name` (subfolders are made) and returns the file's path.
    @discardableResult
    public func write(_ text: String, to name: String) throws -> String {
        let file = file(name)
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }
}
