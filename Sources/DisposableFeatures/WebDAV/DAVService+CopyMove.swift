import DisposableCore
import DisposablePlatform
import Foundation
import Hummingbird
import NIOCore

/// COPY and MOVE within the library's tree (RFC 4918 §9.8, §9.9): 412 when the destination exists and may not be
/// overwritten, 409 without the destination's folder, 403 onto itself, into itself or onto a folder that holds it
/// (replacing that folder would delete the source before it is read).
extension DAVService {
    /// MOVE: one statement renames the path and everything below; true when the destination is new.
    package func move(_ from: String, to: String, overwrite: Bool, for user: User) async throws -> Bool {
        let existed = try await checkDestination(from, to, overwrite: overwrite, for: user)
        let replaced = try await entries.move(userID: user.id, from: from, to: to, instance: pendingWrites.instance)
        try await cleanUp(replaced, keeping: nil, for: user)
        return !existed
    }

    /// COPY: folders made again, assets shown at the new paths too (no bytes copied), plain files copied; with
    /// `shallow` (Depth: 0) a folder without its members. True when the destination is new.
    package func copy(_ from: String, to: String, overwrite: Bool, shallow: Bool, for user: User) async throws -> Bool {
        let existed = try await checkDestination(from, to, overwrite: overwrite, for: user)
        if existed { try await delete(to, for: user) }
        var sources = try await entries.subtree(userID: user.id, at: from)
        if shallow { sources = sources.filter { $0.path == from } }
        let prefixLength = from.unicodeScalars.count
        let now = clock.now
        for source in sources {
            let suffix = String(String.UnicodeScalarView(source.path.unicodeScalars.dropFirst(prefixLength)))
            let path = to + suffix
            var filePrefix: String? = nil
            var endingWrite: LibraryFiles? = nil
            if source.kind == .file, let sourcePrefix = source.filePrefix {
                let prefix = "library/\(user.id)/files/\(newID())/"
                try await copyBytes(from: DAVEntry.fileKey(sourcePrefix), to: prefix)
                (filePrefix, endingWrite) = (prefix, DAVRepository.files(prefix))
            }
            let copy = DAVEntry(
                path: path, kind: source.kind, assetID: source.assetID, filePrefix: filePrefix, byteSize: source.byteSize,
                etag: source.kind == .folder ? "\"\(newID())\"" : source.etag, contentType: nil, createdAt: now, modifiedAt: now,
                properties: source.properties)
            if case .quotaExceeded = try await entries.put(
                copy, userID: user.id, replacing: false, endingWrite: endingWrite, instance: pendingWrites.instance)
            {
                if let endingWrite { try? await pendingWrites.abandon(endingWrite) }
                throw try await library.quotaExceeded(user.id)
            }
        }
        return !existed
    }

    /// Whether the destination exists (and may be replaced), after the checks both methods share.
    private func checkDestination(_ from: String, _ to: String, overwrite: Bool, for user: User) async throws -> Bool {
        guard !from.isEmpty, !to.isEmpty else { throw Self.notHere }
        guard try await entries.entry(userID: user.id, path: from) != nil else { throw Self.nothingHere }
        guard from != to, !LibraryPath.isWithin(to, from) else {
            throw Problem(.forbidden, "dav-same-place", title: "Into itself", detail: "A path cannot be copied or moved onto or into itself.")
        }
        guard !LibraryPath.isWithin(from, to) else {
            throw Problem(
                .forbidden, "dav-onto-ancestor", title: "Onto its own folder",
                detail: "A path cannot be copied or moved onto a folder that holds it.")
        }
        try await requireFolder(LibraryPath.parent(to), for: user)
        let existed = try await entries.entry(userID: user.id, path: to) != nil
        if existed, !overwrite {
            throw Problem(
                .preconditionFailed, "dav-destination-exists", title: "Destination exists",
                detail: "Something is at the destination and Overwrite is F.")
        }
        return existed
    }

    /// A plain file's bytes to a new folder, streamed (never whole in memory) and recorded as a pending write.
    private func copyBytes(from key: String, to prefix: String) async throws {
        let blobs = blobs
        let bytes = AsyncThrowingStream<ByteBuffer, any Error> { continuation in
            let task = Task {
                do {
                    try await blobs.read(key: key, range: nil) { continuation.yield($0) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
        let staged = try await ingest.stage(bytes, limit: .max)
        defer { staged.discard() }
        try await ingest.store(staged, key: DAVEntry.fileKey(prefix), as: .libraryRevision(DAVRepository.files(prefix)))
    }
}
