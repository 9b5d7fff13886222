import Foundation
import ShiftCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The index file of a JSON store: `<folder>/.shiftscheduler-cache/<file>.index` (`StoreIndex`).
///
/// - It is derived data. The store file is the one source of truth: an index is used only when
///   its header names the store file's exact size and content hash, and its own bytes pass
///   their hash and bounds; anything else (missing, stale, damaged, another format) is ignored,
///   the store file read whole, and the index written again.
/// - It is written after every save of a store of `indexThreshold` shifts or more, and on an
///   open that had to read the file whole. Writing it is best effort: a folder the process may
///   not write leaves the store working as it does without one.
/// - Written to a temporary file and renamed, so a reader sees a whole index or none; two
///   processes racing leave one of their indexes, and a stale one is refused by its hash.
/// - The folder holds a `.gitignore` of `*`, so a store kept in git does not show it.
extension JSONFileRepository {
    /// The hidden folder beside a store that holds its index.
    public static let indexFolderName = ".shiftscheduler-cache"

    /// Where the index of the store at `path` lives.
    public static func indexPath(for path: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        return (folder.isEmpty ? "" : folder + "/") + indexFolderName + "/" + (path as NSString).lastPathComponent + ".index"
    }

    public var indexPath: String { Self.indexPath(for: path) }

    // MARK: Opening

    /// The schedule over the store's index, when the index holds the open file's bytes; nil when
    /// there is no usable index (the caller reads the file whole).
    func openThroughIndex(_ fd: Int32, size: Int) -> (Schedule, Int)? {
        let file = open(indexPath, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return nil }
        defer { close(file) }
        var info = stat()
        guard fstat(file, &info) == 0, Int(info.st_size) >= StoreIndex.headerSize else { return nil }
        // The header first: an index of another size is refused without hashing the store.
        var head = [UInt8](repeating: 0, count: StoreIndex.headerSize)
        guard (head.withUnsafeMutableBytes { readFully(file, into: $0, at: 0) }),
              let header = head.withUnsafeBytes({ StoreIndex.Header($0) }),
              header.storeSize == size, header.bodySize == Int(info.st_size) - StoreIndex.headerSize,
              (try? ContentHash.of(descriptor: fd, size: size)) == header.storeHash
        else { return nil }
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: Int(info.st_size), alignment: 16)
        guard readFully(file, into: storage, at: 0) else {
            storage.deallocate()
            return nil
        }
        guard let index = try? StoreIndex.reading(storage), index.columns.header == header else { return nil }
        do {
            let log = try changeLogSource(fd, index.columns.changeLog, version: header.storeVersion)
            return (try schedule(over: index, log: log), header.storeVersion)
        } catch {
            return nil
        }
    }

    /// A schedule whose catalog is the index's and whose shifts and log the index and the store
    /// file serve.
    /// - Throws: when the catalog does not decode or does not hold the people and types the
    ///   index's shifts name.
    func schedule(over index: StoreIndex, log: (any ChangeLogSource)?) throws -> Schedule {
        let catalog = try StoreFileCodec.decodeContent(Array(UnsafeRawBufferPointer(index.columns.catalog)), path: path)
        guard Set(catalog.people.map(\.id)) == Set(index.personIDs), Set(catalog.shiftTypes.map(\.id)) == Set(index.typeIDs) else {
            throw StoreIndexError.damaged("the catalog does not match the shifts")
        }
        let source = JSONScheduleSource(index: index, log: log)
        return try Schedule(
            settings: catalog.settings, locations: catalog.locations, shiftTypes: catalog.shiftTypes, people: catalog.people,
            demand: catalog.demand, availability: catalog.availability, requests: catalog.requests, source: source)
    }

    /// Makes the index of the store file just read whole (open as `fd`), writes it (best effort)
    /// and returns the schedule over it; nil when the content breaks an invariant, for the plain
    /// path to name.
    func rebuildIndex(_ content: StoreFileContent, of fd: Int32, stamp: StoreIndex.Stamp, log: (any ChangeLogSource)?) -> Schedule? {
        // The catalog, and the few shifts with notes, attributes or a calendar UID, checked as
        // the plain path checks them; the index checks the rest (types, people, unique ids).
        let special = content.shifts.filter { $0.notes != nil || !$0.attributes.isEmpty || $0.hasCustomEventIdentifier }
        guard let catalog = try? Schedule(
            settings: content.settings, locations: content.locations, shiftTypes: content.shiftTypes, people: content.people,
            shifts: special, demand: content.demand, availability: content.availability, requests: content.requests),
            let bytes = StoreIndex.encode(catalog: catalog, shifts: content.shifts, stamp: stamp),
            let index = try? StoreIndex.reading(bytes),
            let schedule = try? schedule(over: index, log: log)
        else { return nil }
        // A writer that replaced the file meanwhile wrote the index of its own: keep that one.
        if isStoreFile(fd) { writeIndexFile(bytes) }
        return schedule
    }

    /// Whether `fd` is the file at the store's path (not one a save has renamed over since).
    private func isStoreFile(_ fd: Int32) -> Bool {
        var open = stat()
        var current = stat()
        return fstat(fd, &open) == 0 && stat(path, &current) == 0 && open.st_dev == current.st_dev && open.st_ino == current.st_ino
    }

    // MARK: Writing

    /// Writes the index file (temporary file, then rename); any failure leaves things as they
    /// were, and the store works without it.
    func writeIndexFile(_ bytes: [UInt8]) {
        let target = indexPath
        let folder = (target as NSString).deletingLastPathComponent
        if mkdir(folder, 0o777) == 0 {
            // A store kept in git does not show its index.
            let ignore = open(folder + "/.gitignore", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            if ignore >= 0 {
                _ = "# ShiftScheduler's index files: made from the store files beside this folder, safe to delete.\n*\n"
                    .withCString { Glibc.write(ignore, $0, strlen($0)) }
                close(ignore)
            }
        } else if errno != EEXIST {
            return
        }
        let name = (target as NSString).lastPathComponent
        removeAbandonedIndexFiles(in: folder, name: name)
        let temporary = "\(folder)/.\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard fd >= 0 else { return }
        // As readable as the store itself: the index holds its catalog (names, attributes).
        var info = stat()
        if stat(path, &info) == 0 { fchmod(fd, info.st_mode & 0o666) }
        let written = (try? writeAll(fd, bytes)) != nil
        close(fd)
        if !written || rename(temporary, target) != 0 { unlink(temporary) }
    }

    /// Removes the store's index file, if any: a store below the threshold keeps none.
    func removeIndexFile() {
        unlink(indexPath)
    }

    /// Temporary index files left by processes that are gone (killed mid-write).
    private func removeAbandonedIndexFiles(in folder: String, name: String) {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for entry in entries where entry.hasPrefix(".\(name).") && entry.hasSuffix(".tmp") {
            let parts = entry.dropFirst(name.count + 2).split(separator: ".")
            guard let pid = parts.first.flatMap({ pid_t($0) }), kill(pid, 0) != 0, errno == ESRCH else { continue }
            unlink(folder + "/" + entry)
        }
    }

    // MARK: Reading

    private func readFully(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Bool {
        var done = 0
        while done < buffer.count {
            let count = pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            done += count
        }
        return true
    }
}
