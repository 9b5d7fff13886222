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
/// - A store of `indexThreshold` shifts or more keeps an index file beside it
///   (`.shiftscheduler-cache/<file>.index`, see `JSONFileRepository+Index.swift`): its shifts in
///   columns, tied to the store file's exact bytes by their hash. Opened through it, the schedule
///   reads shifts on demand (`JSONScheduleSource`) instead of decoding the whole file. An index
///   that is missing, stale or damaged is never used: the store file is read and the index
///   written again.
public final class JSONFileRepository: ScheduleRepository {
    public let path: String
    public var location: String { path }
    private let createIfMissing: Bool
    private let initialSettings: StoreSettings
    private let writeLock: FileLock
    /// The version of the file as last read, to back it up before the first save migrates it.
    private let loadedVersion = Mutex<Int?>(nil)
    /// From how many shifts on the store keeps an index file; nil: never (the plain path, which
    /// reads the whole file on every open).
    public let indexThreshold: Int?

    /// The index threshold of stores opened by `shiftctl` and the dependency clients: below it a
    /// store opens in a few tens of milliseconds without one.
    public static let defaultIndexThreshold = 20_000

    /// - Parameters:
    ///   - path: the store file (`schedule.json`).
    ///   - createIfMissing: when the file does not exist, `load()` returns an empty schedule with
    ///     `initialSettings` (and the first save creates the file) instead of throwing `.notFound`.
    ///   - indexThreshold: from how many shifts on to keep an index file (nil: never).
    public init(
        path: String, createIfMissing: Bool = false, initialSettings: StoreSettings = StoreSettings(),
        indexThreshold: Int? = JSONFileRepository.defaultIndexThreshold
    ) {
        self.path = path
        self.createIfMissing = createIfMissing
        self.initialSettings = initialSettings
        self.writeLock = FileLock(storePath: path)
        self.indexThreshold = indexThreshold
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

    /// The schedule in the open file: through its index when the index holds these bytes, else
    /// read whole. The file is mapped, not copied, and its change log is stepped over: a
    /// `JSONChangeLogSource` over a second descriptor decodes it when asked.
    private func decode(_ fd: Int32, size: Int) throws -> (Schedule, Int) {
        guard size > 0 else { return try StoreFileCodec.decode([], path: path) }
        if indexThreshold != nil, let opened = openThroughIndex(fd, size: size) { return opened }
        guard let mapping = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), mapping != MAP_FAILED else {
            let bytes = try readAll(fd, size: size)
            return try StoreFileCodec.decode(consume bytes, path: path)
        }
        let (content, logRange, hash) = try {
            defer { munmap(mapping, size) }
            let buffer = UnsafeBufferPointer(start: mapping.assumingMemoryBound(to: UInt8.self), count: size)
            let (content, logRange) = try StoreFileCodec.decodeContentDeferringLog(buffer, path: path)
            // Hashed while the bytes are at hand, for the index this store is due.
            let indexed = indexThreshold.map { content.shifts.count >= $0 } ?? false
            return (content, logRange, indexed ? ContentHash.of(UnsafeRawBufferPointer(buffer)) : nil)
        }()
        let source = try changeLogSource(fd, logRange, version: content.version)
        if let hash {
            let stamp = StoreIndex.Stamp(storeVersion: content.version, storeSize: size, storeHash: hash, changeLog: logRange)
            if let schedule = rebuildIndex(content, of: fd, stamp: stamp, log: source) { return (schedule, content.version) }
        } else if indexThreshold != nil {
            removeIndexFile()
        }
        return (try content.schedule(path: path, changeLogSource: source), content.version)
    }

    /// A source for a change-log section (nil when there is none or it is empty), over a
    /// descriptor of its own.
    func changeLogSource(_ fd: Int32, _ range: Range<Int>?, version: Int) throws -> JSONChangeLogSource? {
        guard let range, range.count > 2 else { return nil }
        let copy = dup(fd)
        guard copy >= 0 else { throw StorageError.unreadable(path: path, reason: String(cString: strerror(errno))) }
        return JSONChangeLogSource(descriptor: copy, range: range, path: path, version: version)
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
        let source = schedule.source as? JSONScheduleSource
        guard indexThreshold != nil || source != nil else { return try write(StoreFileCodec.encode(schedule)) }
        let shifts = Self.shifts(of: schedule)
        // The index is made before anything is written: a schedule over an index must read what
        // was saved once it drops its changes (`ScheduleStore` rebases it on the source). All of
        // it but the stamp is made on another core while the store file is encoded.
        let keepsFile = indexThreshold.map { shifts.count >= $0 } ?? false
        let makesIndex = keepsFile || source != nil
        let ((bytes, logRange), prepared) = Self.bothAtOnce(
            { StoreFileCodec.encode(schedule, shifts: shifts) },
            { makesIndex ? StoreIndex.Prepared(catalog: schedule, shifts: shifts) : nil })
        var index: (bytes: [UInt8], opened: StoreIndex)?
        if makesIndex {
            guard let prepared else {
                throw StorageError.writeFailed(path: path, reason: "the schedule's shifts refer to types or people it does not have")
            }
            let stamp = StoreIndex.Stamp(
                storeVersion: StoreFileCodec.currentVersion, storeSize: bytes.count, storeHash: ContentHash.of(bytes), changeLog: logRange)
            let indexBytes = prepared.bytes(stamp: stamp)
            index = (indexBytes, try indexed(indexBytes))
        }
        // The index file is written (best effort) while the store file is written and flushed: a
        // reader that sees it before the store file is renamed finds it stale by its hash.
        let indexFile = keepsFile ? index?.bytes : nil
        let (written, _) = Self.bothAtOnce(
            { Result { try write(bytes, keepingDescriptor: source != nil) } },
            { [self] in if let indexFile { writeIndexFile(indexFile) } })
        let (revision, descriptor) = try written.get()
        if !keepsFile, indexThreshold != nil { removeIndexFile() }
        if let source, let index, let descriptor {
            // The new file's log, read through the descriptor of what was written.
            var log: JSONChangeLogSource?
            if logRange.count > 2 {
                log = JSONChangeLogSource(descriptor: descriptor, range: logRange, path: path, version: StoreFileCodec.currentVersion)
            } else {
                close(descriptor)
            }
            source.replace(index: index.opened, log: log)
        }
        return revision
    }

    /// Every shift of the schedule in query order; a large schedule's two halves (by date) are
    /// read at the same time.
    static func shifts(of schedule: Schedule) -> [ScheduledShift] {
        guard schedule.shiftCount >= 20_000, let range = schedule.shiftDateRange, range.lowerBound < range.upperBound else {
            return schedule.shifts()
        }
        let middle = range.lowerBound.adding(days: range.lowerBound.days(to: range.upperBound) / 2)
        let (early, late) = bothAtOnce(
            { schedule.shifts(ShiftQuery(to: middle)) },
            { schedule.shifts(ShiftQuery(from: middle.adding(days: 1))) })
        return early + late
    }

    /// `first` here and `second` on another thread at the same time; both results.
    private static func bothAtOnce<A, B: Sendable>(_ first: () -> A, _ second: @escaping @Sendable () -> B) -> (A, B) {
        let result = Mutex<B?>(nil)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global(qos: .userInitiated).async {
            let value = second()
            result.withLock { $0 = value }
            done.signal()
        }
        let a = first()
        done.wait()
        return (a, result.withLock { $0.take()! })
    }

    private func indexed(_ bytes: [UInt8]) throws -> StoreIndex {
        do {
            return try StoreIndex.reading(bytes)
        } catch {
            throw StorageError.writeFailed(path: path, reason: "the index made for the schedule does not read back (\(error))")
        }
    }

    /// Writes bytes as the new store file, atomically. Public for tools that convert stores.
    @discardableResult
    public func write(_ bytes: [UInt8]) throws -> StoreRevision {
        let (revision, _) = try write(bytes, keepingDescriptor: false)
        return revision
    }

    /// Writes bytes as the new store file, atomically; with `keepingDescriptor`, also returns a
    /// descriptor of the new file open for reading, which the caller closes.
    private func write(_ bytes: [UInt8], keepingDescriptor: Bool) throws -> (StoreRevision, Int32?) {
        let directory = (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        removeStaleTemporaryFiles(in: directory, name: name)
        try backUpOlderVersion()

        let temporary = "\(directory)/.\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let fd = open(temporary, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
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
        let kept = keepingDescriptor ? dup(fd) : -1
        guard !keepingDescriptor || kept >= 0 else { throw StorageError.writeFailed(path: path, reason: String(cString: strerror(errno))) }
        close(fd)
        closed = true
        guard rename(temporary, path) == 0 else {
            if kept >= 0 { close(kept) }
            throw StorageError.writeFailed(path: path, reason: "rename: " + String(cString: strerror(errno)))
        }
        renamed = true
        syncDirectory(directory)
        loadedVersion.withLock { $0 = StoreFileCodec.currentVersion }
        return (Self.revision(of: info), kept >= 0 ? kept : nil)
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

    func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws {
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
