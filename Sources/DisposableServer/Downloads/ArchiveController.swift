import Foundation
import Hummingbird
import NIOCore

/// `GET /api/v1/events/{id}/archive.zip[?ids=…]`: the whole event, or a selection, as one streamed ZIP (DL-2).
struct ArchiveController {
    let gallery: GalleryService
    let blobs: any BlobStore
    let redactions: LocationRedactions

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/api/v1/events/:id/archive.zip", use: archive)
    }

    @Sendable func archive(_ request: Request, context: AppRequestContext) async throws -> Response {
        _ = try context.requireIdentity()
        let eventID = try context.parameters.require("id")
        let wanted = request.uri.queryParameters.get("ids").map { Set($0.split(separator: ",").map(String.init)) }
        let (event, photos, viewerID) = try await gallery.archive(eventID: eventID, only: wanted, for: context.identity)
        let names = ArchiveNames.unique(photos.map(\.downloadName))
        let entries = zip(photos, names).map { ZipEncoder.Entry(name: $1, size: $0.byteSize, modified: $0.takenAt) }
        let blobs = blobs
        let redactions = redactions
        let sources = photos.map { OriginalSource(blobs: blobs, photo: $0, redactions: $0.uploaderID == viewerID ? nil : redactions) }
        let headers: HTTPFields = [
            .contentType: "application/zip",
            .contentDisposition: contentDisposition(ArchiveNames.archive(event.name)),
            .cacheControl: "no-store",
        ]
        let eventLoop = context.eventLoop
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody(contentLength: Int(ZipEncoder.length(of: entries))) { writer in
                var paced = PacedWriter(writer: writer, eventLoop: eventLoop)
                var encoder = ZipEncoder()
                for (entry, source) in zip(entries, sources) {
                    try await paced.write(encoder.begin(entry))
                    var crc: UInt32 = 0
                    try await source.stream(range: nil) { chunk in
                        crc = ZipEncoder.crc(crc, chunk)
                        try await paced.write(chunk)
                    }
                    try await paced.write(encoder.end(crc: crc))
                }
                try await paced.write(encoder.finish())
                try await paced.writer.finish(nil)
            })
    }
}
