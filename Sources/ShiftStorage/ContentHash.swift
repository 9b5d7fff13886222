import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fast non-cryptographic 64-bit hash of bytes (the XXH64 algorithm, seed 0): what ties a
/// store's index file to the exact bytes of the store file it was made from.
///
/// Four independent lanes take 32 bytes a step, so a file in the page cache hashes at several
/// gigabytes a second. It finds accidental change (an edit, a truncation, a torn write), not a
/// forger: anyone who can write the index can write the store too.
struct ContentHash {
    private static let p1: UInt64 = 0x9E37_79B1_85EB_CA87
    private static let p2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private static let p3: UInt64 = 0x1656_67B1_9E37_79F9
    private static let p4: UInt64 = 0x85EB_CA77_C2B2_AE63
    private static let p5: UInt64 = 0x27D4_EB2F_1656_67C5

    private var v1 = p1 &+ p2
    private var v2 = p2
    private var v3: UInt64 = 0
    private var v4 = 0 &- p1
    private var length: UInt64 = 0
    /// Bytes given that do not fill a 32-byte stripe yet (fewer than 32).
    private var pending: [UInt8] = []

    init() {}

    /// The hash of `bytes`.
    static func of(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash = ContentHash()
        hash.add(bytes)
        return hash.value
    }

    static func of(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { of($0) }
    }

    /// Adds bytes; the hash of several calls is the hash of their concatenation.
    mutating func add(_ bytes: UnsafeRawBufferPointer) {
        guard var start = bytes.baseAddress, !bytes.isEmpty else { return }
        var count = bytes.count
        length &+= UInt64(count)
        if !pending.isEmpty {
            let taken = min(32 - pending.count, count)
            pending.append(contentsOf: UnsafeRawBufferPointer(start: start, count: taken))
            start += taken
            count -= taken
            guard pending.count == 32 else { return }
            pending.withUnsafeBytes { consumeStripes($0.baseAddress!, 1) }
            pending.removeAll(keepingCapacity: true)
        }
        let stripes = count / 32
        consumeStripes(start, stripes)
        pending.append(contentsOf: UnsafeRawBufferPointer(start: start + stripes * 32, count: count - stripes * 32))
    }

    private mutating func consumeStripes(_ start: UnsafeRawPointer, _ stripes: Int) {
        // Lanes in locals: the loop then keeps them in registers.
        var (a, b, c, d) = (v1, v2, v3, v4)
        var p = start
        let end = start + stripes * 32
        while p < end {
            a = Self.round(a, Self.word(p))
            b = Self.round(b, Self.word(p + 8))
            c = Self.round(c, Self.word(p + 16))
            d = Self.round(d, Self.word(p + 24))
            p += 32
        }
        (v1, v2, v3, v4) = (a, b, c, d)
    }

    /// The hash of everything added.
    var value: UInt64 {
        var h: UInt64
        if length >= 32 {
            h = Self.rotate(v1, 1) &+ Self.rotate(v2, 7) &+ Self.rotate(v3, 12) &+ Self.rotate(v4, 18)
            for lane in [v1, v2, v3, v4] {
                h ^= Self.round(0, lane)
                h = h &* Self.p1 &+ Self.p4
            }
        } else {
            h = Self.p5
        }
        h &+= length
        pending.withUnsafeBytes { tail in
            var offset = 0
            while offset + 8 <= tail.count {
                h ^= Self.round(0, Self.word(tail.baseAddress! + offset))
                h = Self.rotate(h, 27) &* Self.p1 &+ Self.p4
                offset += 8
            }
            if offset + 4 <= tail.count {
                let word = UInt64(UInt32(littleEndian: tail.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
                h ^= word &* Self.p1
                h = Self.rotate(h, 23) &* Self.p2 &+ Self.p3
                offset += 4
            }
            while offset < tail.count {
                h ^= UInt64(tail[offset]) &* Self.p5
                h = Self.rotate(h, 11) &* Self.p1
                offset += 1
            }
        }
        h ^= h >> 33
        h &*= Self.p2
        h ^= h >> 29
        h &*= Self.p3
        h ^= h >> 32
        return h
    }

    @inline(__always)
    private static func word(_ p: UnsafeRawPointer) -> UInt64 {
        UInt64(littleEndian: p.loadUnaligned(as: UInt64.self))
    }

    @inline(__always)
    private static func rotate(_ x: UInt64, _ bits: UInt64) -> UInt64 {
        (x << bits) | (x >> (64 - bits))
    }

    @inline(__always)
    private static func round(_ acc: UInt64, _ input: UInt64) -> UInt64 {
        rotate(acc &+ input &* p2, 31) &* p1
    }
}

extension ContentHash {
    /// How much of a file is read at a time, into one buffer: hashing a big store adds a
    /// megabyte to the process's memory, not the file (a copy from the page cache costs less
    /// than mapping and unmapping the pages).
    static let window = 1 << 20

    /// The hash of the first `size` bytes of an open file, read `window` bytes at a time.
    /// - Throws: the `errno` of a read that failed, or `EIO` when the file ends first.
    static func of(descriptor: Int32, size: Int, window: Int = window) throws(FileHashError) -> UInt64 {
        var hash = ContentHash()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: window, alignment: 64)
        defer { buffer.deallocate() }
        var offset = 0
        while offset < size {
            let count = pread(descriptor, buffer.baseAddress!, min(window, size - offset), off_t(offset))
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw FileHashError(code: count < 0 ? errno : EIO) }
            hash.add(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            offset += count
        }
        return hash.value
    }
}

/// A read that failed while hashing a file.
struct FileHashError: Error {
    var code: Int32
}
