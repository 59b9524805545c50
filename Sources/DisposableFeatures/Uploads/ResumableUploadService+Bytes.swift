import Crypto
import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import Hummingbird
import NIOCore
import NIOPosix

/// The bytes of a resumable upload: appended one PATCH at a time at the offset the server has, fsynced before the
/// new offset is recorded, checked against a checksum when one is sent, and handed over whole once complete.
extension ResumableUploadService {
    /// Appends a PATCH's body at `offset`: one PATCH at a time (423), at the offset the server has (409), checked
    /// against `checksum` when given (460, nothing kept). Bytes are fsynced before the new offset is recorded; a body
    /// cut short keeps what arrived (without a checksum). The last byte makes the photo.
    package func append(_ id: String, offset: Int64, body: RequestBody, checksum: Checksum?, for identity: Identity?) async throws -> Progress {
        let (upload, destination) = try await owned(id, by: identity)
        let stopper = Stopper()
        guard let token = await locks.acquire(id, stop: stopper.stop) else {
            throw Problem(
                .init(code: 423, reasonPhrase: "Locked"), "upload-locked", title: "Upload busy",
                detail: "This upload is receiving bytes from another request; ask where it stands (HEAD) and continue from there.")
        }
        do {
            let progress = try await appendLocked(upload, destination, offset: offset, body: body, checksum: checksum, stopper: stopper)
            await locks.release(id, token: token)
            return progress
        } catch {
            await locks.release(id, token: token)
            throw error
        }
    }

    private func appendLocked(
        _ upload: ResumableUpload, _ destination: Destination, offset: Int64, body: RequestBody, checksum: Checksum?, stopper: Stopper
    ) async throws -> Progress {
        guard upload.photoID == nil, !upload.isComplete else {
            throw Problem(.conflict, "upload-complete", title: "Upload complete", detail: "This upload already has all its bytes.")
        }
        guard offset == upload.received else {
            throw Problem(
                .conflict, "upload-offset-mismatch", title: "Wrong offset",
                detail: "This upload has \(upload.received) bytes; send from there (Upload-Offset: \(upload.received)).")
        }
        // Room on the staging disk for as much of the rest as the caps leave; given back to what arrived after.
        let held = try await grant(upload)
        // The body is read by a task of its own, which a HEAD may cancel (`UploadLocks.stopHolder`).
        let task = Task { try await self.receive(body, into: upload, upTo: held, checksum: checksum) }
        stopper.set { task.cancel() }
        let count: Int64
        do {
            count = try await task.value
        } catch {
            try await release(upload.id, received: upload.received, createdAt: upload.createdAt)
            throw error
        }
        let received = upload.received + count
        try await release(upload.id, received: received, createdAt: upload.createdAt)
        let updated = try await find(upload.id) ?? upload
        guard updated.isComplete else { return Progress(upload: updated, made: nil) }
        return try await finish(updated, destination)
    }

    /// Records what is durable, and what the upload holds from now: only that — the next PATCH asks for room
    /// again under the caps, so uploads left a byte short hold no room they do not use.
    private func release(_ id: String, received: Int64, createdAt: Date) async throws {
        try await rows.recordReceived(
            id, received: received, held: received, expiresAt: Self.expiry(createdAt: createdAt, now: clock.now))
    }

    /// Writes the body after the durable bytes, up to `held` bytes in all; returns how many it kept (all of them,
    /// fsynced).
    private func receive(_ body: RequestBody, into upload: ResumableUpload, upTo held: Int64, checksum: Checksum?) async throws -> Int64 {
        let path = file(upload.id).path
        let start = upload.received
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw Problem.uploadGone }
        defer { close(fd) }
        let sealing = StagedSealing.of(fd, received: start, sealing)
        // Where the acknowledged bytes end in the file (sealed, each record is longer than its bytes).
        let end = try sealing.map { try $0.fileOffset(of: start, in: fd) } ?? start
        // Bytes past the recorded offset were never acknowledged (a crash between write and record): drop them.
        try DurableFiles.check(ftruncate(fd, off_t(end)), "ftruncate")
        guard lseek(fd, off_t(end), SEEK_SET) >= 0 else { throw DurableFiles.error("lseek") }
        // What is written: the bytes as they came, or sealed into records from where they start.
        let uploadID = upload.id
        var written = start
        func stored(_ batch: ByteBuffer) throws -> Data {
            defer { written += Int64(batch.readableBytes) }
            guard let sealing else { return Data(batch.readableBytesView) }
            return try sealing.records(Data(batch.readableBytesView), uploadID: uploadID, offset: written)
        }
        var sha1 = Insecure.SHA1()
        var sha256 = SHA256()
        var count: Int64 = 0
        var pending = ByteBuffer()
        var interrupted: (any Error)? = nil
        // A PATCH that streams for long keeps its upload from expiring.
        var extendedAt = clock.now
        do {
            for try await chunk in body {
                if Task.isCancelled { break }
                if clock.now.timeIntervalSince(extendedAt) >= 60 {
                    extendedAt = clock.now
                    try await rows.extend(upload.id, until: Self.expiry(createdAt: upload.createdAt, now: extendedAt))
                }
                count += Int64(chunk.readableBytes)
                guard start + count <= upload.length else {
                    throw Problem(
                        .contentTooLarge, "upload-too-long", title: "More than announced",
                        detail: "This upload was announced as \(upload.length) bytes; the body goes past that.")
                }
                guard start + count <= held else { throw Self.stagingFull }
                if let checksum {
                    switch checksum {
                    case .sha1: chunk.withUnsafeReadableBytes { sha1.update(bufferPointer: $0) }
                    case .sha256: chunk.withUnsafeReadableBytes { sha256.update(bufferPointer: $0) }
                    }
                }
                pending.writeImmutableBuffer(chunk)
                if pending.readableBytes >= 512 * 1024 {
                    let batch = try stored(pending)
                    try await NIOThreadPool.singleton.runIfActive { try batch.withUnsafeBytes { try DurableFiles.writeAll(fd, $0) } }
                    pending.clear()
                }
            }
        } catch let problem as Problem {
            try? DurableFiles.check(ftruncate(fd, off_t(end)), "ftruncate")
            throw problem
        } catch {
            interrupted = error  // the connection dropped: keep what arrived, as tus allows
        }
        if let checksum {
            let matches: Bool
            switch checksum {
            case .sha1(let expected): matches = interrupted == nil && Data(sha1.finalize()) == expected
            case .sha256(let expected): matches = interrupted == nil && Data(sha256.finalize()) == expected
            }
            guard matches else {
                try DurableFiles.check(ftruncate(fd, off_t(end)), "ftruncate")
                throw Problem(
                    .init(code: 460, reasonPhrase: "Checksum Mismatch"), "checksum-mismatch", title: "Checksum mismatch",
                    detail: "The bytes received do not match Upload-Checksum; nothing of this request was kept. Send them again.")
            }
        }
        // Written and fsynced even when a HEAD cancelled this task: what arrived is kept (a task of its own, which
        // nothing cancels, since the thread pool refuses work from a cancelled one).
        let rest = try stored(pending)
        try await Task {
            try await NIOThreadPool.singleton.runIfActive {
                try rest.withUnsafeBytes { try DurableFiles.writeAll(fd, $0) }
                try DurableFiles.check(fsync(fd), "fsync")
            }
        }.value
        return count
    }

    /// The whole file, hashed, as a staged upload (moved into the staging folder, beside the store; opened there
    /// for the ingest when sealed, as a plain upload's body is staged).
    package func stage(_ upload: ResumableUpload) async throws -> StagedUpload {
        let source = file(upload.id).path
        let target = staging.directory.appendingPathComponent(UUID().uuidString)
        let keySealing = sealing
        return try await NIOThreadPool.singleton.runIfActive {
            var hasher = SHA256()
            var structure = JPEGStructure()
            var head: [UInt8] = []
            func feed(_ chunk: Data) {
                hasher.update(data: chunk)
                chunk.withUnsafeBytes { structure.feed($0) }
                if head.count < ImageFormat.sniffLength { head += chunk.prefix(ImageFormat.sniffLength - head.count) }
            }
            let input = open(source, O_RDONLY | O_CLOEXEC)
            try DurableFiles.check(input, "open upload file")
            defer { close(input) }
            if let sealing = StagedSealing.of(input, received: upload.length, keySealing) {
                let output = open(target.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
                try DurableFiles.check(output, "open staged file")
                defer { close(output) }
                try sealing.open(input, uploadID: upload.id, length: upload.length) { plain in
                    feed(plain)
                    try plain.withUnsafeBytes { try DurableFiles.writeAll(output, $0) }
                }
                try DurableFiles.check(fsync(output), "fsync")
                unlink(source)
                return StagedUpload(
                    file: target, sha256: hasher.finalize().hex, byteSize: upload.length, head: head, isWholeJPEG: structure.verdict == true)
            }
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: source))
            defer { try? handle.close() }
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { feed(chunk) }
            if rename(source, target.path) != 0 {
                // Another file system: copy (the original stays until the photo is recorded).
                try DurableFiles.write(try Data(contentsOf: URL(fileURLWithPath: source)), to: target.path)
            }
            return StagedUpload(
                file: target, sha256: hasher.finalize().hex, byteSize: upload.length, head: head, isWholeJPEG: structure.verdict == true)
        }
    }
}
