import Foundation
import ShiftCore
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The embedded default store: one human-readable JSON file.
///
/// - Saves are atomic: the new content goes to a temporary file in the same folder, is flushed
///   to disk (`fsync`), renamed over the old file, and the folder is flushed, so a crash at any
///   point leaves either the old file or the new one, never a mix.
/// - Writers exclude each other with an advisory lock (`flock`) on `<file>.lock`; readers need
///   no lock because a rename replaces the file whole.
/// - A file that cannot be read or parsed is reported with its line and column and is never
///   written over (the store refuses to open).
/// - Files of an older format version are read and rewritten in the current version on the next
///   save; the original is kept once as `<file>.v<N>.bak`.
public final class JSONFileRepository: ScheduleRepository {
    public let path: String
    public var location: String { path }
    private let createIfMissing: Bool
    private let initialSettings: StoreSettings
    private let writeLock: FileLock
    /// The version of the file as last read, to back it up before the first save migrates it.
    private let loadedVersion = Mutex<Int?>(nil)

    /// - Parameters:
    ///   - path: the store file (`schedule.json`).
    ///   - createIfMissing: when the file does not exist, `load()` returns an empty schedule with
    ///     `initialSettings` (and the first save creates the file) instead of throwing `.notFound`.
    public init(path: String, createIfMissing: Bool = false, initialSettings: StoreSettings = StoreSettings()) {
        self.path = path
        self.createIfMissing = createIfMissing
        self.initialSettings = initialSettings
        self.writeLock = FileLock(storePath: path)
    }

    public func load() throws -> (Schedule, StoreRevision) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT {
                guard createIfMissing else { throw StorageError.notFound(path: path) }
                do {
                    return (try Schedule(settings: initialSettings), StoreRevision("absent"))
                } catch {
                    throw StorageError.invalidContent(path: path, reason: "\(error)")
                }
            }
            throw StorageError.unreadable(path: path, reason: String(cString: strerror(code)))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StorageError.unreadable(path: path, reason: String(cString: strerror(errno))) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw StorageError.unreadable(path: path, reason: "not a regular file") }
        let (schedule, version) = try decode(fd, size: Int(info.st_size))
        loadedVersion.withLock { $0 = version }
        return (schedule, Self.revision(of: info))
    }

    /// The schedule in the open file. The file is mapped, not copied, and its change log is
    /// stepped over: a `JSONChangeLogSource` over a second descriptor decodes it when asked.
    private func decode(_ fd: Int32, size: Int) throws -> (Schedule, Int) {
        guard size > 0 else { return try StoreFileCodec.decode([], path: path) }
        guard let mapping = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), mapping != MAP_FAILED else {
            let bytes = try readAll(fd, size: size)
            return try StoreFileCodec.decode(consume bytes, path: path)
        }
        let (content, logRange) = try {
            defer { munmap(mapping, size) }
            let buffer = UnsafeBufferPointer(start: mapping.assumingMemoryBound(to: UInt8.self), count: size)
            return try StoreFileCodec.decodeContentDeferringLog(buffer, path: path)
        }()
        var source: JSONChangeLogSource?
        if let logRange, logRange.count > 2 {
            let copy = dup(fd)
            guard copy >= 0 else { throw StorageError.unreadable(path: path, reason: String(cString: strerror(errno))) }
            source = JSONChangeLogSource(descriptor: copy, range: logRange, path: path, version: content.version)
        }
        return (try content.schedule(path: path, changeLogSource: source), content.version)
    }

    public func revision() throws -> StoreRevision {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT { return StoreRevision("absent") }
            throw StorageError.unreadable(path: path, reason: String(cString: strerror(code)))
        }
        return Self.revision(of: info)
    }

    public func tryLockForWriting() throws -> Bool {
        try writeLock.tryLock()
    }

    public func unlockForWriting() {
        writeLock.unlock()
    }

    public func save(_ schedule: Schedule, summary: CommitSummary) throws -> StoreRevision {
        // The log left unread on opening is read now: a damaged one fails the save, it is never
        // written over as empty.
        try schedule.changeLog.prepare()
        return try write(StoreFileCodec.encode(schedule))
    }

    /// Writes bytes as the new store file, atomically. Public for tools that convert stores.
    @discardableResult
    public func write(_ bytes: [UInt8]) throws -> StoreRevision {
        let directory = (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        removeStaleTemporaryFiles(in: directory, name: name)
        try backUpOlderVersion()

        let temporary = "\(directory)/.\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StorageError.writeFailed(path: path, reason: String(cString: strerror(errno))) }
        var renamed = false
        var closed = false
        defer {
            if !closed { close(fd) }
            if !renamed { unlink(temporary) }
        }
        try writeAll(fd, bytes)
        guard fsync(fd) == 0 else { throw StorageError.writeFailed(path: path, reason: "fsync: " + String(cString: strerror(errno))) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StorageError.writeFailed(path: path, reason: String(cString: strerror(errno))) }
        close(fd)
        closed = true
        guard rename(temporary, path) == 0 else {
            throw StorageError.writeFailed(path: path, reason: "rename: " + String(cString: strerror(errno)))
        }
        renamed = true
        syncDirectory(directory)
        loadedVersion.withLock { $0 = StoreFileCodec.currentVersion }
        return Self.revision(of: info)
    }

    // MARK: Helpers

    private static func revision(of info: stat) -> StoreRevision {
        StoreRevision("\(info.st_dev):\(info.st_ino):\(info.st_size):\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)")
    }

    private func readAll(_ fd: Int32, size: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: max(size, 0))
        var total = 0
        while total < bytes.count {
            let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + total, $0.count - total) }
            if count < 0 {
                if errno == EINTR { continue }
                throw StorageError.unreadable(path: path, reason: String(cString: strerror(errno)))
            }
            if count == 0 { break }
            total += count
        }
        bytes.removeLast(bytes.count - total)
        return bytes
    }

    private func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if count < 0 {
                if errno == EINTR { continue }
                throw StorageError.writeFailed(path: path, reason: String(cString: strerror(errno)))
            }
            written += count
        }
    }

    private func syncDirectory(_ directory: String) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    /// Temporary files left by a writer that was killed mid-save. Safe to remove: we hold the
    /// write lock, so no other writer is using one.
    private func removeStaleTemporaryFiles(in directory: String, name: String) {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for entry in entries where entry.hasPrefix(".\(name).") && entry.hasSuffix(".tmp") {
            unlink("\(directory)/\(entry)")
        }
    }

    /// Before the first save over a file of an older version, keep a copy of it.
    private func backUpOlderVersion() throws {
        guard let version = loadedVersion.withLock({ $0 }), version < StoreFileCodec.currentVersion else { return }
        let backup = "\(path).v\(version).bak"
        if access(backup, F_OK) != 0 {
            do {
                try FileManager.default.copyItem(atPath: path, toPath: backup)
            } catch {
                throw StorageError.writeFailed(path: path, reason: "could not keep a backup of the version \(version) file at \(backup): \(error.localizedDescription)")
            }
        }
    }
}
