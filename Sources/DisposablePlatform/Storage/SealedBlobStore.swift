import Crypto
import DisposableCore
import Foundation
import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#endif

/// Photos encrypted at rest (`--storage-key-file`): every blob written through this store is sealed (`SealedBlob`)
/// before it reaches the folder or the bucket, and opened again on the way out — whole, or only the segments a
/// Range needs. Blobs written before encryption was on stay readable as they are (`disposable storage encrypt`
/// seals them). Above it, the memory cache and the fast path hold opened bytes; below it, nothing readable.
package struct SealedBlobStore: BlobStore {
    package let inner: any BlobStore
    package let storageKey: StorageKey

    package init(inner: any BlobStore, storageKey: StorageKey) {
        self.inner = inner
        self.storageKey = storageKey
    }

    package func checkHealth() async throws { try await inner.checkHealth() }

    /// The sealed copy is what is synced, not the plain file.
    package var keepsGivenFiles: Bool { false }

    package func put(file: URL, key: String, sha256: String, size: Int64) async throws {
        let sealed = file.deletingLastPathComponent().appendingPathComponent(".sealed-\(UUID().uuidString)")
        defer { unlink(sealed.path) }
        // The folder renames what it is given and needs no digest; a bucket signs it.
        let (digest, sealedSize) = try await seal(file: file, size: size, key: key, into: sealed, digest: !(inner is LocalBlobStore))
        try await inner.put(file: sealed, key: key, sha256: digest, size: sealedSize)
    }

    package func put(data: Data, key: String) async throws {
        try await inner.put(data: try seal(data, key: key), key: key)
    }

    package func contents(key: String) async throws -> ByteBuffer? {
        guard let stored = try await inner.contents(key: key) else { return nil }
        guard let opened = try SealedBlob.opened(Array(stored.readableBytesView), storageKey: storageKey, key: key) else { return stored }
        return ByteBuffer(data: opened)
    }

    package func read(key: String, range: ClosedRange<Int64>?, _ consume: (ByteBuffer) async throws -> Void) async throws {
        var header: [UInt8] = []
        try await inner.read(key: key, range: 0...Int64(SealedBlob.headerSize - 1)) { header += $0.readableBytesView }
        guard let blob = SealedBlob.opening(header, storageKey: storageKey, key: key) else {
            return try await inner.read(key: key, range: range, consume)  // written before encryption was on
        }
        guard blob.length > 0 else { return }
        let wanted = range.map { $0.clamped(to: 0...(blob.length - 1)) } ?? 0...(blob.length - 1)
        let first = wanted.lowerBound / Int64(SealedBlob.segmentSize)
        let last = wanted.upperBound / Int64(SealedBlob.segmentSize)
        let start = blob.span(of: first).offset
        let end = blob.span(of: last).offset + Int64(blob.span(of: last).count) - 1
        var index = first
        var pending = ByteBuffer()
        var received: Int64 = 0
        // Each segment is opened as soon as it is whole, and only its wanted part passed on.
        func deliver(_ segment: Data) async throws {
            let base = index * Int64(SealedBlob.segmentSize)
            let from = Int(max(0, wanted.lowerBound - base))
            let to = Int(min(Int64(segment.count), wanted.upperBound - base + 1))
            if from < to { try await consume(ByteBuffer(bytes: segment[from..<to])) }
            index += 1
        }
        try await inner.read(key: key, range: start...end) { chunk in
            var chunk = chunk
            received += Int64(chunk.readableBytes)
            pending.writeBuffer(&chunk)
            while index <= last, pending.readableBytes >= blob.span(of: index).count {
                let sealed = pending.readBytes(length: blob.span(of: index).count)!
                try await deliver(try blob.open(sealed, index: index))
            }
            pending.discardReadBytes()
        }
        // Fewer bytes than the header promised: cut short.
        guard index > last, received == end - start + 1 else { throw SealedBlob.Unreadable() }
    }

    /// libvips reads files: the opened blob in a temporary file. From the folder, in one trip to the thread pool
    /// (segment by segment, by position); a blob not sealed is lent as it is.
    package func withLocalFile<T: Sendable>(key: String, _ body: (String) async throws -> T) async throws -> T {
        let copy = Self.scratchFolder() + "/disposable-\(UUID().uuidString)"
        defer { unlink(copy) }
        if let local = inner as? LocalBlobStore {
            let (path, storageKey) = (local.path(key), storageKey)
            let sealed = try await NIOThreadPool.singleton.runIfActive { try Self.openSealed(path, key: key, storageKey: storageKey, into: copy) }
            return try await body(sealed ? copy : path)
        }
        try await self.copy(key: key, toNewFile: copy)
        return try await body(copy)
    }

    /// Where opened copies go: memory (`/dev/shm`) while it has a gigabyte free — the opened photo never reaches a
    /// disk, and the renders read it at memory speed — else the temporary folder.
    package static func scratchFolder() -> String {
        var info = statvfs()
        if statvfs("/dev/shm", &info) == 0, UInt64(info.f_bavail) * UInt64(info.f_frsize) > 1 << 30 { return "/dev/shm" }
        return FileManager.default.temporaryDirectory.path
    }

    /// Opens the sealed file at `path` into `target`; false (nothing written) when the file is not sealed.
    private static func openSealed(_ path: String, key: String, storageKey: StorageKey, into target: String) throws -> Bool {
        let input = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        try DurableFiles.check(input, "open blob")
        defer { close(input) }
        func bytes(at offset: Int64, _ count: Int) throws -> [UInt8] { try SealedBlob.read(input, at: offset, count) }
        var info = stat()
        guard fstat(input, &info) == 0 else { throw DurableFiles.error("fstat") }
        guard info.st_size >= SealedBlob.headerSize,
            let blob = SealedBlob.opening(try bytes(at: 0, SealedBlob.headerSize), storageKey: storageKey, key: key)
        else { return false }
        guard Int64(info.st_size) == blob.sealedSize else { throw SealedBlob.Unreadable() }
        let output = Glibc.open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        try DurableFiles.check(output, "open temporary file")
        defer { close(output) }
        for index in 0..<blob.segmentCount {
            let span = blob.span(of: index)
            let opened = try blob.open(try bytes(at: span.offset, span.count), index: index)
            try opened.withUnsafeBytes { try DurableFiles.writeAll(output, $0) }
        }
        return true
    }

    package func delete(key: String) async throws { try await inner.delete(key: key) }
    package func delete(prefix: String) async throws { try await inner.delete(prefix: prefix) }

    package func list(prefix: String, after: String?, limit: Int) async throws -> [String] {
        try await inner.list(prefix: prefix, after: after, limit: limit)
    }

    // MARK: Sealing

    package func seal(_ data: Data, key: String) throws -> Data {
        try SealedBlob.sealed(data, storageKey: storageKey, key: key)
    }

    /// Seals `file` into `target`, synced; the sealed file's SHA-256 (when `digest`) and size.
    package func seal(file: URL, size: Int64, key: String, into target: URL, digest: Bool = true) async throws -> (String, Int64) {
        let storageKey = storageKey
        return try await NIOThreadPool.singleton.runIfActive {
            let (blob, header) = SealedBlob.new(storageKey: storageKey, key: key, length: size)
            let input = try FileHandle(forReadingFrom: file)
            defer { try? input.close() }
            let fd = open(target.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            try DurableFiles.check(fd, "open sealed file")
            defer { close(fd) }
            var hasher = SHA256()
            func write(_ bytes: some DataProtocol) throws {
                let data = Data(bytes)
                if digest { hasher.update(data: data) }
                try data.withUnsafeBytes { try DurableFiles.writeAll(fd, $0) }
            }
            try write(header)
            for index in 0..<blob.segmentCount {
                let expected = blob.span(of: index).count - SealedBlob.tagSize
                let plain = try input.read(upToCount: expected) ?? Data()
                guard plain.count == expected else { throw DurableFiles.error("read a file shorter than announced") }
                try write(try blob.seal(plain, index: index))
            }
            try DurableFiles.check(fsync(fd), "fsync")
            return (digest ? hasher.finalize().hex : "", blob.sealedSize)
        }
    }

    /// Whether the blob under `key` is sealed already (`storage encrypt` skips it); nil when there is none.
    package func isSealed(key: String) async throws -> Bool? {
        var header: [UInt8] = []
        do {
            try await inner.read(key: key, range: 0...Int64(SealedBlob.headerSize - 1)) { header += $0.readableBytesView }
        } catch {
            if try await inner.contents(key: key) == nil { return nil }
            throw error
        }
        return SealedBlob.isSealed(header)
    }
}
