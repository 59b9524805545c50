import Crypto
import Foundation
import OpenAPIRuntime

extension DisposableClient {
    /// Uploads a photo file with tus (UP-4): in checked pieces that survive a dropped connection and a restart.
    ///
    /// The upload's id is given to `remember` as soon as the server makes it; pass it back as `resuming` (after a
    /// crash, a reboot, a lost network) and the upload goes on from the bytes the server already has. Within one
    /// call a dropped connection is retried from where the server stands, up to `attempts` times. Each piece is
    /// sent with its SHA-256, so what the server keeps is what was read here.
    /// - Returns: the photo, and whether the server already had it.
    @discardableResult
    public func uploadPhotoResumable(
        _ file: URL, to event: String, source: PhotoSource = .library, idempotencyKey: String? = nil, resuming: String? = nil,
        pieceSize: Int = 4 << 20, attempts: Int = 5, remember: (@Sendable (String) -> Void)? = nil, progress: Progress? = nil
    ) async throws -> (photo: Components.Schemas.Photo, alreadyThere: Bool) {
        let size = try FileBody.fileSize(file)
        let key = try idempotencyKey ?? Self.sha256(of: file)
        do {
            let photoID = try await call {
                var upload = try await resuming.asyncFlatMap { try await self.uploadOffset($0) }
                if upload == nil {
                    let metadata = ["event": event, "source": source.rawValue, "idempotencyKey": key, "filename": file.lastPathComponent]
                        .sorted { $0.key < $1.key }.map { "\($0.key) \(Data($0.value.utf8).base64EncodedString())" }.joined(separator: ",")
                    // Set as it is: the generated client would percent-encode the spaces tus puts between keys and values.
                    let created = try await RawHeaders.$fields.withValue(["Upload-Metadata": metadata]) {
                        try await api.createUpload(headers: .init(tusResumable: ._1_0_0, uploadLength: size)).created
                    }
                    guard let id = created.headers.location?.split(separator: "/").last.map(String.init) else {
                        throw DisposableProblem(status: 502, type: "about:blank", title: "No upload", detail: "The server made no upload.")
                    }
                    remember?(id)
                    upload = (id, 0, nil)
                }
                guard var (id, offset, photoID) = upload else { throw CancellationError() }
                var failures = 0
                while photoID == nil {
                    progress?(offset, size)
                    do {
                        (offset, photoID) = try await sendPiece(of: file, upload: id, at: offset, length: min(Int64(pieceSize), size - offset))
                        failures = 0
                    } catch  where DisposableProblem.exchangeFailure(error) != nil && failures + 1 < attempts {
                        // The connection dropped: ask where the server stands and go on from there.
                        failures += 1
                        try await Task.sleep(for: .milliseconds(200 * (1 << failures)))
                        guard let now = try await uploadOffset(id) else { throw error }
                        (offset, photoID) = (now.offset, now.photoID)
                    }
                }
                progress?(size, size)
                return photoID!
            }
            return (try await call { try await api.getPhoto(path: .init(id: photoID)).ok.body.json }, false)
        } catch let problem as DisposableProblem where problem.slug == "already-exists" && problem.extensions["existingId"] != nil {
            // The same bytes were there already, sent by us: that photo. (Someone else's is not named, and stays an error.)
            let existing = problem.extensions["existingId"]!
            return (try await call { try await api.getPhoto(path: .init(id: existing)).ok.body.json }, true)
        }
    }

    /// Where an upload stands: nil when it is gone (expired, ended), so a new one must begin.
    private func uploadOffset(_ id: String) async throws -> (id: String, offset: Int64, photoID: String?)? {
        do {
            let head = try await api.getUploadOffset(path: .init(id: id), headers: .init(tusResumable: ._1_0_0)).ok.headers
            return (id, head.uploadOffset ?? 0, head.xPhotoID)
        } catch  where DisposableProblem.from(error)?.status == 404 {
            return nil
        }
    }

    /// One piece, read, hashed and sent with its checksum; the server's new offset, and the photo once complete.
    private func sendPiece(of file: URL, upload id: String, at offset: Int64, length: Int64) async throws -> (Int64, String?) {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        let bytes = try handle.read(upToCount: Int(length)) ?? Data()
        let checksum = "sha256 " + Data(SHA256.hash(data: bytes)).base64EncodedString()
        let sent = try await RawHeaders.$fields.withValue(["Upload-Checksum": checksum]) {
            try await api.appendToUpload(
                path: .init(id: id), headers: .init(tusResumable: ._1_0_0, uploadOffset: offset),
                body: .applicationOffsetOctetStream(HTTPBody(bytes))
            ).noContent.headers
        }
        return (sent.uploadOffset ?? offset + Int64(bytes.count), sent.xPhotoID)
    }
}

extension Optional {
    fileprivate func asyncFlatMap<T>(_ transform: (Wrapped) async throws -> T?) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
