import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird
import NIOCore

/// `/api/v1/library/…` (LIB-1, LIB-2, LIB-4, UP-7) and `POST /api/v1/photos/{id}/save-to-library` (LIB-6). Accounts
/// only: a guest's token gets 403, someone else's asset 404.
package struct LibraryController {
    package let library: LibraryService
    /// How often an idle stream sends a comment line.
    package let heartbeat: Duration
    package let streams: LiveStreamSlots
    /// Whether the stream's session still stands (signed out, deleted): checked after writes that may end it
    /// (`EventStream`).
    package let stillValid: @Sendable (Identity) async throws -> Bool
    /// Counts the writes that may end a grant (`EventStream`).
    package let writes: @Sendable () -> UInt64

    package init(
        library: LibraryService, heartbeat: Duration, streams: LiveStreamSlots, stillValid: @escaping @Sendable (Identity) async throws -> Bool,
        writes: @escaping @Sendable () -> UInt64
    ) {
        self.library = library
        self.heartbeat = heartbeat
        self.streams = streams
        self.stillValid = stillValid
        self.writes = writes
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.post("/api/v1/library/assets", use: upload)
        router.get("/api/v1/library/assets", use: timeline)
        router.get("/api/v1/library/assets/:id", use: metadata)
        router.delete("/api/v1/library/assets/:id", use: delete)
        router.post("/api/v1/library/assets/:id/restore", use: restore)
        router.put("/api/v1/library/assets/:id/original", use: replace)
        router.get("/api/v1/library/assets/:id/original", use: original)
        router.get("/api/v1/library/assets/:id/preview", use: preview)
        router.get("/api/v1/library/assets/:id/thumbnail", use: thumbnail)
        router.put("/api/v1/library/assets/:id/video", use: attachVideo)
        router.get("/api/v1/library/assets/:id/video", use: video)
        router.post("/api/v1/library/check", use: check)
        router.get("/api/v1/library/trash", use: trash)
        router.delete("/api/v1/library/trash", use: emptyTrash)
        router.get("/api/v1/library/changes", use: changes)
        router.post("/api/v1/photos/:id/save-to-library", use: save)
    }

    @Sendable package func upload(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        try UploadController.checkDeclaredType(request, videos: true)
        let upload = LibraryService.UploadRequest(
            idempotencyKey: try UploadController.idempotencyKey(request), takenAt: try takenAt(request), fileName: try fileName(request),
            declaredLength: request.headers[.contentLength].flatMap(Int64.init), caption: try caption(request))
        return try created(try await library.upload(upload, for: user, body: request.body))
    }

    private func created(_ uploaded: LibraryService.Uploaded) throws -> Response {
        switch uploaded {
        case .existing(let asset):
            return try jsonResponse(asset.json, status: .ok)
        case .created(let asset):
            var response = try jsonResponse(asset.json, status: .created)
            response.headers[.location] = "/api/v1/library/assets/\(asset.id)"
            return response
        }
    }

    /// `X-Taken-At`: an RFC 3339 time (percent-encoded or not), for files that do not carry their capture time.
    private func takenAt(_ request: Request) throws -> Date? {
        guard let raw = request.headers[.init("X-Taken-At")!] else { return nil }
        // Generated clients (swift-openapi-runtime) percent-encode header values: "18%3A30%3A00".
        let text = raw.contains("%") ? raw.removingPercentEncoding ?? raw : raw
        guard let date = Date(rfc3339: text), date > Date(timeIntervalSince1970: -2_208_988_800), date < Date(timeIntervalSince1970: 32_503_680_000)
        else {
            throw Problem.badRequest("X-Taken-At must be an RFC 3339 time between 1900 and 3000, such as 2023-05-14T18:30:00Z.", field: "X-Taken-At")
        }
        return date
    }

    /// `X-File-Name`: the file's name, percent-encoded UTF-8.
    private func fileName(_ request: Request) throws -> String? {
        guard let raw = request.headers[.init("X-File-Name")!] else { return nil }
        guard raw.utf8.count <= 1024, let name = raw.removingPercentEncoding else {
            throw Problem.badRequest("X-File-Name must be the file's name, percent-encoded, at most 1024 bytes.", field: "X-File-Name")
        }
        return name
    }

    /// `X-Caption`: the words an import brings with the file, percent-encoded UTF-8.
    private func caption(_ request: Request) throws -> String? {
        guard let raw = request.headers[.init("X-Caption")!] else { return nil }
        guard raw.utf8.count <= 4 * 3 * LibraryService.maxCaption, let text = raw.removingPercentEncoding else {
            throw Problem.badRequest(
                "X-Caption must be the caption, percent-encoded UTF-8, at most \(LibraryService.maxCaption) characters.", field: "X-Caption")
        }
        return try LibraryService.caption(text)
    }

    @Sendable package func timeline(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await page(.timeline, request, context)
    }

    @Sendable package func trash(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await page(.trash, request, context)
    }

    private func page(_ listing: LibraryService.Listing, _ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let query = request.uri.queryParameters
        let limit = try GalleryController.limit(query.get("limit") ?? "100")
        return try jsonResponse(try await library.page(listing, for: user, cursor: query.get("cursor"), limit: limit))
    }

    @Sendable package func metadata(_ request: Request, context: AppRequestContext) async throws -> Response {
        try jsonResponse(try await library.asset(try context.parameters.require("id"), for: try context.requireUser()).json)
    }

    @Sendable package func delete(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await library.delete(try context.parameters.require("id"), for: try context.requireUser())
        return Response(status: .noContent)
    }

    @Sendable package func restore(_ request: Request, context: AppRequestContext) async throws -> Response {
        try jsonResponse(try await library.restore(try context.parameters.require("id"), for: try context.requireUser()).json)
    }

    @Sendable package func emptyTrash(_ request: Request, context: AppRequestContext) async throws -> Response {
        try jsonResponse(TrashEmptied(deleted: try await library.emptyTrash(for: try context.requireUser())))
    }

    @Sendable package func replace(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        try UploadController.checkDeclaredType(request, videos: true)
        let asset = try await library.replace(
            try context.parameters.require("id"), for: user, body: request.body, declaredLength: request.headers[.contentLength].flatMap(Int64.init))
        return try jsonResponse(asset.json)
    }

    @Sendable package func check(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let body = try await request.decodeJSON(HashCheckRequest.self)
        return try jsonResponse(try await library.check(hashes: body.sha256, for: user))
    }

    @Sendable package func save(_ request: Request, context: AppRequestContext) async throws -> Response {
        try created(try await library.save(photoID: try context.parameters.require("id"), for: context.identity))
    }

    @Sendable package func attachVideo(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let asset = try await library.attachVideo(
            to: try context.parameters.require("id"), for: user, body: request.body,
            declaredLength: request.headers[.contentLength].flatMap(Int64.init))
        return try jsonResponse(asset.json)
    }

    // MARK: Bytes

    @Sendable package func preview(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await derivative(request, context, \.preview)
    }

    @Sendable package func thumbnail(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await derivative(request, context, \.thumbnail)
    }

    /// A revision's derivatives never change (an edit makes a new revision and new links): cached for a year.
    private func derivative(_ request: Request, _ context: AppRequestContext, _ key: KeyPath<LibraryFiles, String>) async throws -> Response {
        let asset = try await library.asset(try context.parameters.require("id"), for: try context.requireUser())
        guard asset.status == .ready else { throw Problem.notReady(asset.status) }
        let etag = "\"\(asset.id)-\(asset.fileRevision)-\(key == \.preview ? "preview" : "thumbnail")\""
        let headers: HTTPFields = [.contentType: "image/jpeg", .eTag: etag, .cacheControl: "private, max-age=31536000, immutable"]
        if request.headers[.ifNoneMatch] == etag { return Response(status: .notModified, headers: headers) }
        guard let bytes = try await library.blobs.contents(key: asset.files[keyPath: key]) else { throw LibraryService.notFound }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: bytes))
    }

    /// The original, byte for byte, as it was sent (it is the owner's own file: nothing is taken out). Supports Range.
    @Sendable package func original(_ request: Request, context: AppRequestContext) async throws -> Response {
        let asset = try await library.asset(try context.parameters.require("id"), for: try context.requireUser())
        return try await bytes(
            request, context, key: asset.files.original, start: 0, total: asset.byteSize, etag: "\"\(asset.sha256)\"",
            headers: [
                .contentType: asset.format.mimeType, .cacheControl: "private, max-age=3600", .contentDisposition: contentDisposition(asset.fileName),
            ])
    }

    /// LIB-3: a live photo's motion — a motion photo's MP4 (a range of its original) or the video stored beside the
    /// still. Supports Range (video players ask for it).
    @Sendable package func video(_ request: Request, context: AppRequestContext) async throws -> Response {
        let asset = try await library.asset(try context.parameters.require("id"), for: try context.requireUser())
        guard let motion = asset.motion else { throw Problem.notFound("This photo has no motion.") }
        let key = motion.kind == .embedded ? asset.files.original : asset.files.motion
        return try await bytes(
            request, context, key: key, start: motion.offset, total: motion.size, etag: "\"\(asset.sha256)-motion\"",
            headers: [.contentType: motion.contentType, .cacheControl: "private, max-age=3600"])
    }

    /// `total` bytes of the blob at `key` from `start`, whole or the requested range of them.
    private func bytes(
        _ request: Request, _ context: AppRequestContext, key: String, start: Int64, total: Int64, etag: String, headers: HTTPFields
    ) async throws -> Response {
        let blobs = library.blobs
        return try await RangedBody.response(request, context, total: total, etag: etag, headers: headers) { range, write in
            try await blobs.read(key: key, range: (start + range.lowerBound)...(start + range.upperBound), write)
        }
    }

    // MARK: The change feed (LIB-4)

    /// JSON pages after `since` for sync clients; with `Accept: text/event-stream`, the same entries as they happen.
    @Sendable package func changes(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let query = request.uri.queryParameters
        let resumeFrom = request.headers[.init("Last-Event-ID")!] ?? query.get("since")
        guard let since = Int64(resumeFrom ?? "0"), since >= 0 else {
            throw Problem.invalidField("since", "since must be a revision number (0 for the beginning).")
        }
        guard request.headers[.accept]?.contains("text/event-stream") == true else {
            let limit = try GalleryController.limit(query.get("limit") ?? "100")
            return try jsonResponse(try await library.changes(for: user, since: since, limit: limit))
        }
        let identity = try context.requireIdentity()
        let slot = try streams.open(for: identity.tokenHash)
        let stillValid = self.stillValid
        let source = LibraryChangeSource(library: library, user: user, last: since) { try await stillValid(identity) }
        return EventStream.response(source, opening: "library changes from \(since)", heartbeat: heartbeat, writes: writes) { slot.close() }
    }
}

/// A library's changes as they happen, after a revision.
package struct LibraryChangeSource: EventStreamSource {
    package let library: LibraryService
    package let user: User
    package var last: Int64
    package let stillValid: @Sendable () async throws -> Bool

    package func revoked() async throws -> String? {
        try await stillValid() ? nil : ""
    }

    package mutating func next() async throws -> EventStream.Next {
        let page = try await library.changes(for: user, since: last, limit: 200)
        guard !page.items.isEmpty else { return .idle }
        var text = ""
        for change in page.items {
            let data = String(decoding: try JSONEncoder.sorted.encode(change), as: UTF8.self)
            text += "id: \(change.revision)\nevent: \(change.kind.rawValue)\ndata: \(data)\n\n"
        }
        last = page.next
        return .send(text)
    }

    package func wait(timeout: Duration) async {
        await library.feed.wait(user.id, timeout: timeout)
    }
}
