import Foundation

/// The stock rules that `init` copies beside a new store: the repository's `rules/` folder.
///
/// Looked up, in order: `$SHIFTCTL_STOCK_RULES`; `share/shiftscheduler/rules` beside or above the
/// executable (an installed layout); the `rules/` folder of the first ancestor of the
/// executable's folder that holds `Package.swift` (a build inside the repository).
public enum StockRules {
    public static func locate(environment: AppEnvironment) throws -> String {
        if let override = environment.variables["SHIFTCTL_STOCK_RULES"], !override.isEmpty {
            let path = environment.absolute(override)
            guard Workspace.isDirectory(path) else { throw AppError.rulesFolderMissing(path: override, origin: "SHIFTCTL_STOCK_RULES") }
            return path
        }
        var searched: [String] = []
        var folder = (environment.executablePath as NSString).deletingLastPathComponent
        while !folder.isEmpty {
            let installed = folder + "/share/shiftscheduler/rules"
            if Workspace.isDirectory(installed) { return installed }
            if FileManager.default.fileExists(atPath: folder + "/Package.swift"), Workspace.isDirectory(folder + "/rules") {
                return folder + "/rules"
            }
            searched.append(folder)
            if folder == "/" { break }
            folder = (folder as NSString).deletingLastPathComponent
        }
        throw AppError.stockRulesMissing(searched: searched.isEmpty ? ["(no executable path)"] : [searched.first!, "its parent folders"])
    }

    /// Copies the stock rules into `destination` unless it exists. Returns false when it was
    /// left as it was.
    @discardableResult
    public static func install(from source: String, to destination: String) throws -> Bool {
        guard !FileManager.default.fileExists(atPath: destination) else { return false }
        do {
            try FileManager.default.copyItem(atPath: source, toPath: destination)
        } catch {
            throw AppError.fileError(path: destination, reason: "cannot copy the stock rules from \(source): \(error.localizedDescription)")
        }
        return true
    }
}
