import Foundation

/// The repository root (holds Package.swift), found above this source file.
public let repositoryRoot: String = {
    var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    while url.path != "/" {
        if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url.path }
        url = url.deletingLastPathComponent()
    }
    return FileManager.default.currentDirectoryPath
}()

/// The package's stock Lua rules.
public let stockRules = repositoryRoot + "/rules"
