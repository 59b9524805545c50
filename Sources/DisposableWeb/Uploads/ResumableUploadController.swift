import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import HTTPTypes
import Hummingbird

/// tus 1.0 at `/api/v1/uploads` (UP-4): core, creation, creation-with-upload, checksum, termination, expiration.
/// Translates the protocol's headers; the rules are `ResumableUploadService`'s. Errors stay problem+json, with the
/// status codes tus clients act on (409 offset, 412 version, 415 media type, 423 locked, 460 checksum).
package struct ResumableUploadController {
    package let uploads: ResumableUploadService

    package init(uploads: ResumableUploadService) {
        self.uploads = uploads
    }

    package static let version = "1.0.0"
    package static let extensions = "creation,creation-with-upload,checksum,termination,expiration"
    package static let offsetStream = "application/offset+octet-stream"

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.on("/api/v1/uploads", method: .options, use: options)
        router.post("/api/v1/uploads", use: create)
        router.head("/api/v1/uploads/:id", use: head)
        router.patch("/api/v1/uploads/:id", use: append)
        router.delete("/api/v1/uploads/:id", use: terminate)
        router.put("/api/v1/uploads/:id/first-look", use: firstLook)
    }

    /// What the server supports: no session needed.
    @Sendable package func options(_ request: Request, context: AppRequestContext) async throws -> Response {
        var response = Response(status: .noContent)
        response.headers[.tusVersion] = Self.version
        response.headers[.tusExtension] = Self.extensions
        response.headers[.tusMaxSize] = String(uploads.maxBytes)
        response.headers[.tusChecksumAlgorithm] = "sha1,sha256"
        response.headers[.tusResumable] = Self.version
        return response
    }

    @Sendable package func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        try checkVersion(request)
        let identity = try context.requireIdentity()
        if request.headers[.uploadDeferLength] != nil {
            throw Problem.badRequest("Say the upload's length up front (Upload-Length); deferring it is not supported.", field: "Upload-Defer-Length")
        }
        guard let raw = request.headers[.uploadLength], let length = Int64(raw), length >= 0 else {
            throw Problem.badRequest("Upload-Length must be the file's size in bytes.", field: "Upload-Length")
        }
        let upload = try await uploads.create(
            length: length, metadataHeader: request.headers[.uploadMetadata], for: identity, client: context.clientAddress)
        var response = Response(status: .created)
        response.headers[.location] = "/api/v1/uploads/\(upload.id)"
        // creation-with-upload: the first bytes may come with the creation.
        if isOffsetStream(request), (request.headers[.contentLength].flatMap(Int64.init) ?? 1) > 0 {
            let progress = try await uploads.append(
                upload.id, offset: 0, body: request.body, checksum: try checksum(request), for: identity)
            describe(progress, in: &response)
        } else {
            response.headers[.uploadOffset] = "0"
            response.headers[.uploadExpires] = HTTPDate.format(upload.expiresAt)
        }
        response.headers[.tusResumable] = Self.version
        return response
    }

    /// Where the upload stands: its offset is what the server has kept (a PATCH still running is stopped first).
    @Sendable package func head(_ request: Request, context: AppRequestContext) async throws -> Response {
        try checkVersion(request)
        let upload = try await uploads.current(try context.parameters.require("id"), for: context.identity)
        var response = Response(status: .ok)
        response.headers[.uploadOffset] = String(upload.received)
        response.headers[.uploadLength] = String(upload.length)
        if !upload.metadata.isEmpty { response.headers[.uploadMetadata] = upload.metadata }
        response.headers[.uploadExpires] = HTTPDate.format(upload.expiresAt)
        response.headers[.cacheControl] = "no-store"
        if let made = uploads.made(upload) {
            // A client whose last PATCH lost its answer learns here what its upload became.
            response.headers[.photoID] = made.id
            response.headers[.mediaID] = made.id
            response.headers[.contentLocation] = made.location
        }
        response.headers[.tusResumable] = Self.version
        return response
    }

    @Sendable package func append(_ request: Request, context: AppRequestContext) async throws -> Response {
        try checkVersion(request)
        let identity = try context.requireIdentity()
        guard isOffsetStream(request) else {
            throw Problem(
                .unsupportedMediaType, "not-an-offset-stream", title: "Wrong media type",
                detail: "Send the upload's bytes with Content-Type: \(Self.offsetStream).")
        }
        guard let raw = request.headers[.uploadOffset], let offset = Int64(raw), offset >= 0 else {
            throw Problem.badRequest("Upload-Offset must say where these bytes go.", field: "Upload-Offset")
        }
        let progress = try await uploads.append(
            try context.parameters.require("id"), offset: offset, body: request.body, checksum: try checksum(request), for: identity)
        var response = Response(status: .noContent)
        describe(progress, in: &response)
        response.headers[.tusResumable] = Self.version
        return response
    }

    /// An event photo's first look (`FirstLook`), sent before its last byte: a JPEG body of at most 100 KB.
    @Sendable package func firstLook(_ request: Request, context: AppRequestContext) async throws -> Response {
        try checkVersion(request)
        let identity = try context.requireIdentity()
        let tooLarge = Problem.firstLookRefusedBeside("it is larger than \(FirstLook.maxBytes / 1024) KB")
        if let length = request.headers[.contentLength].flatMap(Int.init), length > FirstLook.maxBytes { throw tooLarge }
        let jpeg: ByteBuffer
        do {
            jpeg = try await request.body.collect(upTo: FirstLook.maxBytes)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw tooLarge
        }
        try await uploads.setFirstLook(try context.parameters.require("id"), jpeg: Data(buffer: jpeg), for: identity)
        var response = Response(status: .noContent)
        response.headers[.tusResumable] = Self.version
        return response
    }

    @Sendable package func terminate(_ request: Request, context: AppRequestContext) async throws -> Response {
        try checkVersion(request)
        try await uploads.terminate(try context.parameters.require("id"), for: try context.requireIdentity())
        var response = Response(status: .noContent)
        response.headers[.tusResumable] = Self.version
        return response
    }

    private func describe(_ progress: ResumableUploadService.Progress, in response: inout Response) {
        response.headers[.uploadOffset] = String(progress.upload.received)
        response.headers[.uploadExpires] = HTTPDate.format(progress.upload.expiresAt)
        if let made = progress.made {
            // The photo or asset the upload became, for clients that want it without asking again.
            response.headers[.photoID] = made.id
            response.headers[.mediaID] = made.id
            response.headers[.contentLocation] = made.location
        }
    }

    private func checkVersion(_ request: Request) throws {
        guard let version = request.headers[.tusResumable], version != Self.version else { return }
        var problem = Problem(
            .preconditionFailed, "tus-version", title: "Unsupported tus version", detail: "This server speaks tus \(Self.version).")
        problem.headers[.tusVersion] = Self.version
        throw problem
    }

    private func isOffsetStream(_ request: Request) -> Bool {
        request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() == Self.offsetStream
    }

    private func checksum(_ request: Request) throws -> ResumableUploadService.Checksum? {
        try request.headers[.uploadChecksum].flatMap { try ResumableUploadService.Checksum(header: $0) }
    }
}

extension HTTPField.Name {
    package static let tusResumable = Self("Tus-Resumable")!
    package static let tusVersion = Self("Tus-Version")!
    package static let tusExtension = Self("Tus-Extension")!
    package static let tusMaxSize = Self("Tus-Max-Size")!
    package static let tusChecksumAlgorithm = Self("Tus-Checksum-Algorithm")!
    package static let uploadLength = Self("Upload-Length")!
    package static let uploadOffset = Self("Upload-Offset")!
    package static let uploadMetadata = Self("Upload-Metadata")!
    package static let uploadExpires = Self("Upload-Expires")!
    package static let uploadChecksum = Self("Upload-Checksum")!
    package static let uploadDeferLength = Self("Upload-Defer-Length")!
    package static let photoID = Self("X-Photo-ID")!
    /// SPEC's name for what the upload became (a photo or a library asset); `X-Photo-ID` stays for older clients.
    package static let mediaID = Self("Disposable-Media-Id")!
}

/// `Upload-Expires` is an HTTP date (RFC 9110), e.g. `Wed, 25 Jun 2026 18:30:00 GMT`.
package enum HTTPDate {
    package static func format(_ date: Date) -> String {
        date.formatted(
            Date.VerbatimFormatStyle(
                format:
                    "\(weekday: .abbreviated), \(day: .twoDigits) \(month: .abbreviated) \(year: .defaultDigits) \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\(second: .twoDigits) GMT",
                locale: Locale(identifier: "en_US_POSIX"), timeZone: .gmt, calendar: Calendar(identifier: .gregorian)))
    }
}
