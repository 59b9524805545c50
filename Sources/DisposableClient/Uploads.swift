import Crypto
import Foundation
import OpenAPIRuntime

extension DisposableClient {
    /// Called as a file's bytes leave: bytes sent so far, and the file's size.
    public typealias Progress = @Sendable (_ sent: Int64, _ total: Int64) -> Void

    /// Uploads a photo file into an event, streamed from disk.
    ///
    /// The idempotency key defaults to the file's SHA-256, so sending the same file again — after a dropped
    /// connection, or from a script run twice — returns the first photo and never takes a second shot.
    /// `firstLook`: the app's own small JPEG of the photo (at most 640 px and 100 KB, upright, no metadata, the photo's
    /// shape): everyone sees the photo with it at once, until the server's renders replace it. A first look the server
    /// refuses refuses the upload (422); send the photo again without it.
    /// - Returns: the photo, and whether the server already had it.
    @discardableResult
    public func uploadPhoto(
        _ file: URL, to event: String, source: PhotoSource = .library, idempotencyKey: String? = nil, firstLook: Data? = nil,
        progress: Progress? = nil
    ) async throws -> (photo: Components.Schemas.Photo, alreadyThere: Bool) {
        let key = try idempotencyKey ?? Self.sha256(of: file)
        let photo = try FileBody.body(of: file, progress: progress)
        return try await call {
            typealias Part = Operations.UploadPhoto.Input.Body.MultipartFormPayload
            let body: Operations.UploadPhoto.Input.Body =
                if let firstLook {
                    .multipartForm(
                        MultipartBody([
                            Part.firstLook(.init(payload: .init(body: HTTPBody(firstLook)), filename: "first-look.jpg")),
                            Part.photo(.init(payload: .init(body: photo), filename: file.lastPathComponent)),
                        ]))
                } else {
                    .binary(photo)
                }
            let output = try await api.uploadPhoto(
                path: .init(id: event), headers: .init(idempotencyKey: key, xPhotoSource: source.payload), body: body)
            switch output {
            case .created(let created): return (try created.body.json, false)
            case .ok(let ok): return (try ok.body.json, true)
            default: return (try output.created.body.json, false)
            }
        }
    }

    /// Of these SHA-256 (hex), the ones the event does not have yet (UP-7): send only those.
    public func missingHashes(_ hashes: [String], in event: String) async throws -> Set<String> {
        var missing: Set<String> = []
        // The server reads at most 1,000 hashes a request.
        for start in stride(from: 0, to: hashes.count, by: 1000) {
            let batch = Array(hashes[start..<min(start + 1000, hashes.count)])
            let result = try await call {
                try await api.checkPhotoHashes(path: .init(id: event), body: .json(.init(sha256: batch))).ok.body.json
            }
            missing.formUnion(result.missing)
        }
        return missing
    }

    /// The SHA-256 of a file as lowercase hex, read in chunks.
    public static func sha256(of file: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(data: chunk) }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}

/// How a photo reached the client: taken in the app's camera, or picked from a library.
public enum PhotoSource: String, Sendable {
    case camera, library

    var payload: Operations.UploadPhoto.Input.Headers.XPhotoSourcePayload {
        self == .camera ? .camera : .library
    }
}

/// A file's bytes as a request body, read a chunk at a time as the transport asks for them (never the whole file
/// in memory).
struct FileBody: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    static let chunkSize = 256 << 10

    let file: URL
    let offset: Int64
    let size: Int64
    let progress: DisposableClient.Progress?

    static func body(of file: URL, from offset: Int64 = 0, progress: DisposableClient.Progress?) throws -> HTTPBody {
        let size = try fileSize(file)
        return HTTPBody(
            FileBody(file: file, offset: offset, size: size, progress: progress), length: .known(size - offset), iterationBehavior: .single)
    }

    static func fileSize(_ file: URL) throws -> Int64 {
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        return (attributes[.size] as? NSNumber)?.int64Value ?? 0
    }

    func makeAsyncIterator() -> Reader { Reader(body: self) }

    final class Reader: AsyncIteratorProtocol {
        let body: FileBody
        var handle: FileHandle?
        var sent: Int64

        init(body: FileBody) {
            self.body = body
            sent = body.offset
        }

        deinit { try? handle?.close() }

        func next() async throws -> ArraySlice<UInt8>? {
            guard sent < body.size else { return nil }
            if handle == nil {
                let opened = try FileHandle(forReadingFrom: body.file)
                try opened.seek(toOffset: UInt64(body.offset))
                handle = opened
            }
            let wanted = Int(Swift.min(Int64(FileBody.chunkSize), body.size - sent))
            guard let chunk = try handle?.read(upToCount: wanted), !chunk.isEmpty else {
                throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "\(body.file.path) got shorter while it was sent."])
            }
            sent += Int64(chunk.count)
            body.progress?(sent, body.size)
            return ArraySlice(chunk)
        }
    }
}
