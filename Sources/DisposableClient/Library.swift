import Foundation
import OpenAPIRuntime

/// The personal library (LIB-1, LIB-2, LIB-4): what `disposable sync` and native apps need beyond the generated calls.
extension DisposableClient {
    public typealias LibraryAsset = Components.Schemas.LibraryAsset
    public typealias LibraryChange = Components.Schemas.LibraryChange

    /// Adds a file to my library, streamed from disk. The key defaults to the file's SHA-256, so sending it again
    /// returns the first asset. The same bytes already there (perhaps in the trash) throw a 409 ``DisposableProblem``
    /// whose `extensions["existingId"]` names the asset.
    @discardableResult
    public func uploadToLibrary(
        _ file: URL, fileName: String? = nil, takenAt: Date? = nil, caption: String? = nil, idempotencyKey: String? = nil,
        progress: Progress? = nil
    ) async throws -> (asset: LibraryAsset, alreadyThere: Bool) {
        let key = try idempotencyKey ?? Self.sha256(of: file)
        let body = try FileBody.body(of: file, progress: progress)
        return try await call {
            let output = try await api.uploadLibraryAsset(
                // The runtime percent-encodes header values, as X-File-Name wants.
                headers: .init(idempotencyKey: key, xTakenAt: takenAt, xFileName: fileName ?? file.lastPathComponent, xCaption: caption),
                body: .binary(body))
            if case .ok(let ok) = output { return (try ok.body.json, true) }
            return (try output.created.body.json, false)
        }
    }

    /// Replaces an asset with an edited file: same id, next file revision.
    public func replaceInLibrary(_ asset: String, with file: URL) async throws -> LibraryAsset {
        let body = try FileBody.body(of: file, progress: nil)
        return try await call { try await api.replaceLibraryAsset(path: .init(id: asset), body: .binary(body)).ok.body.json }
    }

    /// Makes an asset a live photo: its video (MP4 or QuickTime), kept beside the still (LIB-3).
    public func attachVideo(to asset: String, file: URL) async throws -> LibraryAsset {
        let body = try FileBody.body(of: file, progress: nil)
        return try await call { try await api.attachLibraryAssetVideo(path: .init(id: asset), body: .binary(body)).ok.body.json }
    }

    /// The largest file the server takes (tus's `Tus-Max-Size`): an importer need not unpack one larger.
    public func largestUpload() async throws -> Int64? {
        try await call { try await api.getUploadCapabilities().noContent.headers.tusMaxSize }
    }

    public func libraryAsset(_ id: String) async throws -> LibraryAsset {
        try await call { try await api.getLibraryAsset(path: .init(id: id)).ok.body.json }
    }

    /// Moves an asset to the trash (an asset already there would be deleted for good: check ``LibraryAsset/trashedAt``).
    public func trashLibraryAsset(_ id: String) async throws {
        _ = try await call { try await api.deleteLibraryAsset(path: .init(id: id)).noContent }
    }

    /// Of these SHA-256 (hex), the ones my library does not hold yet (UP-7).
    public func missingLibraryHashes(_ hashes: [String]) async throws -> Set<String> {
        var missing: Set<String> = []
        for start in stride(from: 0, to: hashes.count, by: 1000) {
            let batch = Array(hashes[start..<min(start + 1000, hashes.count)])
            missing.formUnion(try await call { try await api.checkLibraryHashes(body: .json(.init(sha256: batch))).ok.body.json }.missing)
        }
        return missing
    }

    /// Every change after `since`, page after page: each asset once, at its latest revision, oldest change first.
    public func libraryChanges(since: Int64) async throws -> (changes: [LibraryChange], next: Int64) {
        var changes: [LibraryChange] = []
        var next = since
        while true {
            let page = try await call {
                try await api.getLibraryChanges(query: .init(since: next, limit: 100), headers: .init(accept: [.init(contentType: .json)])).ok.body
                    .json
            }
            changes += page.items
            next = page.next
            if !page.hasMore { return (changes, next) }
        }
    }

    /// Writes an asset's original into `file`: beside it first, synced, then moved into place — an interrupted
    /// download never leaves a file that looks whole.
    @discardableResult
    public func downloadOriginal(ofAsset id: String, to file: URL) async throws -> Int64 {
        let partial = file.deletingLastPathComponent().appendingPathComponent(".\(file.lastPathComponent).part")
        _ = FileManager.default.createFile(atPath: partial.path, contents: nil)
        let handle = try FileHandle(forWritingTo: partial)
        var written: Int64 = 0
        do {
            let output = try await call { try await api.getLibraryAssetOriginal(path: .init(id: id)).ok.body }
            let body: HTTPBody =
                switch output {
                case .image_Ast_(let body): body
                case .video_Ast_(let body): body
                case .binary(let body): body
                }
            for try await chunk in body {
                try handle.write(contentsOf: chunk)
                written += Int64(chunk.count)
            }
            try handle.synchronize()
            try handle.close()
            // rename(2) replaces a file already there (an edit coming down) in one step.
            guard rename(partial.path, file.path) == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path]) }
            return written
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(at: partial)
            throw DisposableProblem.from(error) ?? error
        }
    }
}
