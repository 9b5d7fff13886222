import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The advisory lock (`flock`) on `<store>.lock` that excludes writers of one store, across
/// processes and across repository instances in one process (each instance opens its own
/// descriptor, and `flock` locks belong to the open file, not to the process).
///
/// The lock file is never removed: removing it while another writer waits on it would let two
/// writers each lock a different file.
package final class FileLock: Sendable {
    /// The store the lock guards (errors name it).
    package let storePath: String
    private let descriptor = Mutex<Int32?>(nil)

    package init(storePath: String) {
        self.storePath = storePath
    }

    deinit { unlock() }

    /// Whether this instance holds the lock.
    package var isHeld: Bool { descriptor.withLock { $0 != nil } }

    /// Takes the lock without waiting; false when another holder has it (or this instance does).
    package func tryLock() throws(StorageError) -> Bool {
        try descriptor.withLock { (held: inout Int32?) throws(StorageError) -> Bool in
            if held != nil { return false }
            let fd = open(storePath + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw .lockFailed(path: storePath, reason: String(cString: strerror(errno))) }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                let code = errno
                close(fd)
                if code == EWOULDBLOCK || code == EINTR { return false }
                throw .lockFailed(path: storePath, reason: String(cString: strerror(code)))
            }
            held = fd
            return true
        }
    }

    /// Takes the lock, waiting at most `timeout` for another holder to release it.
    package func lock(timeout: Duration) throws(StorageError) {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while try !tryLock() {
            guard clock.now < deadline else {
                throw .lockFailed(path: storePath, reason: "another writer held it for longer than \(timeout)")
            }
            usleep(5_000)
        }
    }

    /// Releases the lock (nothing happens when this instance does not hold it).
    package func unlock() {
        descriptor.withLock { held in
            guard let fd = held else { return }
            flock(fd, LOCK_UN)
            close(fd)
            held = nil
        }
    }
}
