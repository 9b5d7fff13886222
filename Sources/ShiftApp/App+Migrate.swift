import Foundation
import ShiftCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What `migrate` copied.
public struct MigrateOutput: Encodable, Sendable {
    public let from: String
    public let to: String
    public let backend: String
    public let locations: Int
    public let shiftTypes: Int
    public let people: Int
    public let shifts: Int
    public let demand: Int
    public let availability: Int
    public let changeLogEntries: Int
}

extension App {
    /// How long `migrate` waits for another writer to finish before it copies.
    static let migrateLockWait: Duration = .seconds(30)

    /// Copies the store to a new store at `destination`, whose extension picks the backend
    /// (`.json`, `.sqlite`): every entity with its id and attributes, the settings and the whole
    /// change log. The copy is read back and compared with the original before the command
    /// succeeds; on any failure nothing is left at `destination`. The original is not changed.
    public func migrate(to destination: String) async throws -> CommandResult {
        guard let kind = StoreKind(path: destination) else {
            throw AppError.invalidValue(option: "--to", message: "\(destination): unsupported store type; name the new store with one of \(StoreKind.extensionsText)")
        }
        let target = kind == .postgres ? destination : environment.absolute(destination)
        guard (target as NSString).standardizingPath != (workspace.absoluteStorePath as NSString).standardizingPath else {
            throw AppError.invalidValue(option: "--to", message: "\(destination) is the store itself; name a new file")
        }
        guard try !workspace.translatingStorageErrors({ try kind.exists(at: target) }) else {
            throw AppError.invalidValue(option: "--to", message: "\(destination) already exists; migrate writes a new store (remove it or name another file)")
        }

        guard try workspace.translatingStorageErrors({ try workspace.storeKind().exists(at: workspace.absoluteStorePath) }) else {
            throw AppError.storeMissing(path: workspace.storePath)
        }
        // Hold the store's write lock while reading it, so no writer commits halfway through.
        let repository = try workspace.translatingStorageErrors { try workspace.repository() }
        try await repository.lockForWriting(timeout: Self.migrateLockWait)
        defer { repository.unlockForWriting() }
        let original = try workspace.translatingStorageErrors { try repository.load().0 }
        let schedule = try original.materialized()
        if let failure = original.source?.takeFailure() { throw failure }

        // A server's store has no folder: its rule folders are relative to the current one.
        let folder = kind == .postgres ? environment.currentDirectory : (target as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw AppError.fileError(path: folder, reason: "cannot create the folder: \(error.localizedDescription)")
        }
        try kind.create(schedule, at: target, progress: migrateProgress())
        do {
            let copy = try kind.repository(path: target).load().0
            let identical = copy == schedule
            if let failure = copy.source?.takeFailure() { throw failure }
            guard identical else {
                throw AppError.fileError(path: destination, reason: "the copy did not read back identical to the store; nothing was kept")
            }
        } catch {
            kind.removeFiles(at: target)
            throw error
        }

        let output = MigrateOutput(
            from: workspace.storePath, to: destination, backend: kind.rawValue, locations: schedule.locationCount,
            shiftTypes: schedule.shiftTypeCount, people: schedule.personCount, shifts: schedule.shiftCount,
            demand: schedule.demand.count, availability: schedule.availability.count, changeLogEntries: schedule.changeLog.count)
        var text = "migrated \(workspace.storePath) to \(destination) (\(kind.rawValue)): \(output.shifts) shift\(output.shifts == 1 ? "" : "s"), "
            + "\(output.people) \(output.people == 1 ? "person" : "people"), \(output.shiftTypes) shift type\(output.shiftTypes == 1 ? "" : "s"), "
            + "\(output.locations) location\(output.locations == 1 ? "" : "s"), \(output.changeLogEntries) change-log entr\(output.changeLogEntries == 1 ? "y" : "ies")\n"
        text += "the original is unchanged; use the new store with --store \(destination) (or SHIFTCTL_STORE)\n"
        if folder != workspace.storeFolder, Workspace.configuredRuleFolders(schedule.settings).contains(where: { !$0.hasPrefix("/") && !Workspace.isDirectory(folder + "/" + $0) }) {
            text += "note: the store's rules.directories are relative to its folder and are not found beside \(destination); copy the rules folder there or pass --rules\n"
        }
        return CommandResult(text: text, json: output)
    }

    /// Rows written so far, on stderr when it is a terminal: `migrate: 40% (400000 of 1000000 rows)`,
    /// each whole percent once, the line rewritten in place.
    private func migrateProgress() -> (@Sendable (Int, Int) -> Void)? {
        guard isatty(STDERR_FILENO) == 1 else { return nil }
        let diagnostics = environment.diagnostics
        let shown = Mutex(-1)
        return { done, total in
            let percent = total == 0 ? 100 : done * 100 / total
            guard shown.withLock({ old in defer { old = percent }; return old != percent }) else { return }
            diagnostics("\rmigrate: \(percent)% (\(done) of \(total) rows)" + (done == total ? "\n" : ""))
        }
    }
}
