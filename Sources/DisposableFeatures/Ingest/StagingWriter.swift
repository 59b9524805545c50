import DisposableCore
import DisposablePlatform
import Foundation
import NIOCore
import NIOPosix

/// Writes an upload's bytes to its staging file in batches, from a thread of the pool (a write never blocks the
/// receiving task's thread).
///
/// Where the store keeps this very file (`direct`), whole batches go past the page cache (`O_DIRECT`): the kernel
/// copies nothing and allocates no cache page, and the fsync that follows has no dirty page to write back: writing and
/// syncing a 12 MP photo went from 1.6 ms of the server's CPU to 0.7 on the way from its arrival to everyone seeing it.
/// The server's renders, which follow when the machine has time, read the original from the disk instead of the cache.
/// A filesystem without direct writes, or one refusing a write, gets ordinary writes.
package final class StagingWriter: @unchecked Sendable {
    /// Bytes gathered before each write, so the thread pool is asked once per half megabyte, not per packet.
    package static let batchSize = 512 * 1024
    /// What direct writes are aligned to: a page, which every filesystem's block size divides.
    private static let alignment = 4096

    private let fd: Int32
    private let batch: UnsafeMutableRawBufferPointer
    private var count = 0
    private var direct: Bool

    /// `fd` is left open: the caller closes it.
    package init(fd: Int32, direct: Bool) {
        self.fd = fd
        batch = .allocate(byteCount: Self.batchSize, alignment: Self.alignment)
        // Set on the open file, where the filesystem says whether it can: opening with the flag could fail after
        // creating the file.
        self.direct = direct && Self.directFlag != 0 && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | Self.directFlag) == 0
    }

    deinit { batch.deallocate() }

    /// Takes `chunk`'s bytes, writing each batch as it fills.
    package func append(_ chunk: ByteBuffer) async throws {
        var chunk = chunk
        while chunk.readableBytes > 0 {
            let taken = min(chunk.readableBytes, batch.count - count)
            chunk.withUnsafeReadableBytes { (batch.baseAddress! + count).copyMemory(from: $0.baseAddress!, byteCount: taken) }
            chunk.moveReaderIndex(forwardBy: taken)
            count += taken
            if count == batch.count { try await flush() }
        }
    }

    /// Writes what is left, then fsyncs the file when `sync`.
    package func finish(sync: Bool) async throws {
        try await NIOThreadPool.singleton.runIfActive {
            let aligned = self.direct ? self.count / Self.alignment * Self.alignment : self.count
            try self.write(UnsafeRawBufferPointer(rebasing: self.batch[0..<aligned]))
            // The last bytes, short of a whole page, go through the cache.
            self.endDirectWrites()
            try DurableFiles.writeAll(self.fd, UnsafeRawBufferPointer(rebasing: self.batch[aligned..<self.count]))
            self.count = 0
            if sync { try DurableFiles.check(fsync(self.fd), "fsync") }
        }
    }

    private func flush() async throws {
        try await NIOThreadPool.singleton.runIfActive {
            try self.write(UnsafeRawBufferPointer(self.batch))
            self.count = 0
        }
    }

    /// A whole number of pages from the batch's start, directly where the filesystem takes it.
    private func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard direct else { return try DurableFiles.writeAll(fd, bytes) }
        var offset = 0
        while offset < bytes.count {
            let written = Foundation.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0, errno == EINTR { continue }
            if written < 0, errno == EINVAL {
                // Refused as a direct write (alignment, a filesystem that took the flag but not the write): the
                // rest goes through the cache.
                endDirectWrites()
                return try DurableFiles.writeAll(fd, UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            }
            if written < 0 { throw DurableFiles.error("write") }
            offset += written
            // A short direct write leaves the file's end unaligned: no more direct writes after it.
            if written % Self.alignment != 0 { endDirectWrites() }
        }
    }

    private func endDirectWrites() {
        guard direct else { return }
        direct = false
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~Self.directFlag)
    }

    /// `O_DIRECT`, which Glibc shows Swift only under `_GNU_SOURCE`: its value differs between architectures.
    #if arch(x86_64)
        private static let directFlag: Int32 = 0o40000
    #elseif arch(arm64)
        private static let directFlag: Int32 = 0o200000
    #else
        private static let directFlag: Int32 = 0
    #endif
}
