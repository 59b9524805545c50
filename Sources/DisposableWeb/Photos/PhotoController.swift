import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird
import NIOCore

/// One photo: its metadata, its bytes (DL-1, MED-2), its deletion (GAL-3, ORG-3) and its approval (ORG-4).
package struct PhotoController {
    package let photos: PhotoService

    package init(photos: PhotoService) {
        self.photos = photos
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/api/v1/photos/:id", use: metadata)
        router.delete("/api/v1/photos/:id", use: delete)
        router.patch("/api/v1/photos/:id", use: edit)
        router.post("/api/v1/photos/:id/approve", use: approve)
        router.get("/api/v1/photos/:id/original", use: original)
        router.get("/api/v1/photos/:id/preview", use: preview)
        router.get("/api/v1/photos/:id/thumbnail", use: thumbnail)
        router.get("/api/v1/photos/:id/video", use: video)
    }

    @Sendable package func metadata(_ request: Request, context: AppRequestContext) async throws -> Response {
        let grant = try await photos.photo(try context.parameters.require("id"), for: context.identity)
        return try jsonResponse(try await photos.json(grant.photo, viewerID: grant.viewerID))
    }

    @Sendable package func delete(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await photos.delete(try context.parameters.require("id"), for: context.identity)
        return Response(status: .noContent)
    }

    @Sendable package func edit(_ request: Request, context: AppRequestContext) async throws -> Response {
        let edit = try await request.decodeJSON(PhotoEdit.self)
        return try jsonResponse(try await photos.setCaption(edit.caption, of: try context.parameters.require("id"), for: context.identity))
    }

    @Sendable package func approve(_ request: Request, context: AppRequestContext) async throws -> Response {
        try jsonResponse(try await photos.approve(try context.parameters.require("id"), for: context.identity))
    }

    @Sendable package func preview(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await derivative(request, context, key: BlobKey.preview, name: "preview")
    }

    @Sendable package func thumbnail(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await derivative(request, context, key: BlobKey.thumbnail, name: "thumbnail")
    }

    /// Derivatives never change: cached for a year by the browser (private: they need a session).
    private func derivative(
        _ request: Request, _ context: AppRequestContext, key: (String, String) -> String, name: String
    ) async throws -> Response {
        let grant = try await photos.photo(try context.parameters.require("id"), for: context.identity)
        guard grant.photo.status == .ready else { throw Problem.notReady(grant.photo.status) }
        if grant.photo.showsFirstLook || (name == "preview" && grant.photo.previewPending) {
            // Shown before its preview is made (or before both are, by the phone's first look): the picture shown stands
            // in, and is not kept as what it stands in for.
            let shown = grant.photo.showsFirstLook ? BlobKey.firstLook : BlobKey.thumbnail
            guard let bytes = try await photos.blobs.contents(key: shown(grant.photo.eventID, grant.photo.id)) else {
                throw PhotoService.notFound
            }
            return Response(
                status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: "private, no-store"], body: ResponseBody(byteBuffer: bytes))
        }
        let etag = "\"\(grant.photo.id)-\(name)\""
        let headers: HTTPFields = [
            .contentType: "image/jpeg", .eTag: etag, .cacheControl: "private, max-age=31536000, immutable",
            .lastModified: grant.photo.uploadedAt.httpDate,
        ]
        if request.headers[.ifNoneMatch] == etag { return Response(status: .notModified, headers: headers) }
        guard let bytes = try await photos.blobs.contents(key: key(grant.photo.eventID, grant.photo.id)) else { throw PhotoService.notFound }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: bytes))
    }

    /// SOC-4: a video post's playable copy (H.264/AAC MP4, no metadata), for whoever sees the post. Supports Range:
    /// players ask for it.
    @Sendable package func video(_ request: Request, context: AppRequestContext) async throws -> Response {
        let grant = try await photos.photo(try context.parameters.require("id"), for: context.identity)
        guard grant.photo.kind == .video else { throw Problem.notFound("This post is not a video.") }
        guard grant.photo.status == .ready, let total = grant.photo.videoBytes else { throw Problem.notReady(grant.photo.status) }
        let (blobs, key) = (photos.blobs, BlobKey.video(grant.photo.eventID, grant.photo.id))
        return try await RangedBody.response(
            request, context, total: total, etag: "\"\(grant.photo.id)-video\"",
            headers: [
                .contentType: "video/mp4", .cacheControl: "private, max-age=31536000, immutable", .lastModified: grant.photo.uploadedAt.httpDate,
            ]
        ) { range, write in try await blobs.read(key: key, range: range, write) }
    }

    /// The original, byte for byte — except GPS, removed for anyone but the shooter (MED-2). Supports Range.
    /// `?download`: a download link (counted once, on its first bytes), not the viewer showing it.
    @Sendable package func original(_ request: Request, context: AppRequestContext) async throws -> Response {
        let range = request.headers[.range]
        let saving = request.uri.queryParameters.get("download") != nil && (range == nil || range?.hasPrefix("bytes=0-") == true)
        let (grant, source) = try await photos.original(try context.parameters.require("id"), for: context.identity, saving: saving)
        return try await RangedBody.response(
            request, context, total: grant.photo.byteSize, etag: "\"\(grant.photo.sha256)\(source.stripGPS ? "-nogps" : "")\"",
            headers: [
                .contentType: grant.photo.format.mimeType, .lastModified: grant.photo.uploadedAt.httpDate,
                .cacheControl: "private, max-age=3600", .contentDisposition: contentDisposition(grant.photo.downloadName),
            ],
            // Where the location sits is read before the first byte: storage out of reach is then a 503.
            prepare: { try await source.prepare() }
        ) { range, write in try await source.stream(range: range, write) }
    }
}

/// `attachment` with an ASCII fallback name and the exact UTF-8 name (RFC 6266).
package func contentDisposition(_ name: String) -> String {
    let ascii = String(name.unicodeScalars.map { $0.isASCII && $0 != "\"" && $0 != "\\" ? Character($0) : "_" })
    let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(.init(charactersIn: ".-_"))) ?? ascii
    return "attachment; filename=\"\(ascii)\"; filename*=UTF-8''\(encoded)"
}

extension PhotoEdit: JSONBody {
    package static let fields: Set<String> = ["caption"]
}
