import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// CAP-2: `GET /api/v1/library/capsules` (history and `nextCapsuleAt`), `GET`/`PATCH …/{yyyy-mm}`, the month's other
/// photos (`…/candidates`) and the collage (`…/collage.jpg`). The owner's alone.
package struct CapsuleController {
    package let capsules: CapsuleService

    package init(capsules: CapsuleService) {
        self.capsules = capsules
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/api/v1/library/capsules", use: list)
        router.get("/api/v1/library/capsules/:month", use: capsule)
        router.patch("/api/v1/library/capsules/:month", use: edit)
        router.get("/api/v1/library/capsules/:month/candidates", use: candidates)
        router.get("/api/v1/library/capsules/:month/collage.jpg", use: collage)
        router.put("/api/v1/library/capsules/:month/clip", use: setClip)
        router.delete("/api/v1/library/capsules/:month/clip", use: removeClip)
        router.get("/api/v1/library/capsules/:month/clip.m4a", use: clip)
    }

    @Sendable package func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        try jsonResponse(try await capsules.list(for: try context.requireUser()))
    }

    @Sendable package func capsule(_ request: Request, context: AppRequestContext) async throws -> Response {
        try jsonResponse(try await capsules.capsule(try context.parameters.require("month"), for: try context.requireUser()))
    }

    @Sendable package func edit(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let patch = try await request.decodeJSON(CapsulePatch.self)
        return try jsonResponse(try await capsules.edit(try context.parameters.require("month"), patch, for: user))
    }

    @Sendable package func candidates(_ request: Request, context: AppRequestContext) async throws -> Response {
        let items = try await capsules.candidates(try context.parameters.require("month"), for: try context.requireUser())
        return try jsonResponse(CapsuleCandidates(items: items))
    }

    /// The song's clip: the body is a sound file (its first 30 seconds are kept, as AAC).
    @Sendable package func setClip(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        return try jsonResponse(try await capsules.setClip(try context.parameters.require("month"), body: request.body, for: user))
    }

    @Sendable package func removeClip(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await capsules.removeClip(try context.parameters.require("month"), for: try context.requireUser())
        return Response(status: .noContent)
    }

    @Sendable package func clip(_ request: Request, context: AppRequestContext) async throws -> Response {
        let capsule = try await capsules.find(try context.parameters.require("month"), for: try context.requireUser())
        return Self.audio(try await capsules.clip(of: capsule))
    }

    /// A clip as the page's `<audio>` takes it; its address carries its version, so it may be kept.
    package static func audio(_ bytes: ByteBuffer) -> Response {
        Response(status: .ok, headers: [.contentType: "audio/mp4", .cacheControl: "private, max-age=3600"], body: .init(byteBuffer: bytes))
    }

    /// The collage, titled with the month in the reader's language (the pages' cookie, else the browser's languages).
    @Sendable package func collage(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let web = WebRequest(request, context: context)
        let (image, fingerprint) = try await capsules.collage(
            try context.parameters.require("month"), for: user, title: { web.monthName($0) }, defaultQuote: { web.capsuleQuote($0) })
        let etag = "\"\(fingerprint)\""
        let headers: HTTPFields = [
            .contentType: "image/jpeg", .eTag: etag, .cacheControl: "private, no-cache",
            .contentDisposition: "inline; filename=\"capsule.jpg\"",
        ]
        if request.headers[.ifNoneMatch] == etag { return Response(status: .notModified, headers: headers) }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(data: image)))
    }
}

extension CapsulePatch: JSONBody {
    package static let fields: Set<String> = ["count", "photos", "quote", "songTitle", "songArtist"]
}

extension WebRequest {
    /// "October 2026", "Octobre 2026": a title; within a sentence (`title: false`) French keeps "octobre 2026".
    package func monthName(_ month: CapsuleMonth, title: Bool = true) -> String {
        let format = Date.FormatStyle(date: .omitted, time: .omitted, locale: language.locale, timeZone: .gmt).month(.wide).year()
        let name = month.start(in: .gmt).formatted(format)
        return title ? name.prefix(1).uppercased() + name.dropFirst() : name
    }

    /// The app's line for a month with none of the owner's words: one of twelve, by month.
    package func capsuleQuote(_ month: CapsuleMonth) -> String { t("capsule_quote_\(month.month)") }
}
