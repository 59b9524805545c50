import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// CAP-1: `GET /api/v1/events/{id}/recap` and its collage image.
package struct RecapController {
    package let recaps: RecapService

    package init(recaps: RecapService) {
        self.recaps = recaps
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/api/v1/events/:id/recap", use: recap)
        router.get("/api/v1/events/:id/recap/collage.jpg", use: collage)
    }

    @Sendable package func recap(_ request: Request, context: AppRequestContext) async throws -> Response {
        let count = try Self.count(request.uri.queryParameters.get("count"))
        return try jsonResponse(try await recaps.recap(eventID: try context.parameters.require("id"), count: count, for: context.identity))
    }

    /// The collage, titled in the reader's language and time zone (the pages' cookies, else the browser's languages).
    @Sendable package func collage(_ request: Request, context: AppRequestContext) async throws -> Response {
        let count = try Self.count(request.uri.queryParameters.get("count"))
        let web = WebRequest(request, context: context)
        let format = Date.FormatStyle(date: .long, time: .omitted, locale: web.language.locale, timeZone: web.timeZone)
        let (image, fingerprint) = try await recaps.collage(
            eventID: try context.parameters.require("id"), count: count, for: context.identity, date: { $0.formatted(format) })
        let etag = "\"\(fingerprint)\""
        let headers: HTTPFields = [
            .contentType: "image/jpeg", .eTag: etag, .cacheControl: "private, no-cache",
            .contentDisposition: "inline; filename=\"recap.jpg\"",
        ]
        if request.headers[.ifNoneMatch] == etag { return Response(status: .notModified, headers: headers) }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(data: image)))
    }

    package static func count(_ raw: String?) throws -> Int {
        guard let raw else { return RecapService.defaultCount }
        guard let count = Int(raw), RecapService.counts.contains(count) else {
            throw Problem.invalidField("count", "count must be a whole number from 1 to 24.")
        }
        return count
    }
}
