import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird
import NIOCore

/// `GET /api/v1/events/{id}/archive.zip[?ids=…]`: the whole event, or a selection, as one streamed ZIP (DL-2).
package struct ArchiveController {
    package let gallery: GalleryService
    package let blobs: any BlobStore
    package let redactions: LocationRedactions

    package init(gallery: GalleryService, blobs: any BlobStore, redactions: LocationRedactions) {
        self.gallery = gallery
        self.blobs = blobs
        self.redactions = redactions
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/api/v1/events/:id/archive.zip", use: archive)
    }

    @Sendable package func archive(_ request: Request, context: AppRequestContext) async throws -> Response {
        _ = try context.requireIdentity()
        let eventID = try context.parameters.require("id")
        let wanted = request.uri.queryParameters.get("ids").map { Set($0.split(separator: ",").map(String.init)) }
        let (event, photos, notes, viewerID) = try await gallery.archive(eventID: eventID, only: wanted, for: context.identity)
        try await gallery.countArchive(of: event)
        let names = ArchiveNames.unique(photos.map(\.downloadName))
        var entries = zip(photos, names).map { ZipEncoder.Entry(name: $1, size: $0.byteSize, modified: $0.takenAt) }
        let blobs = blobs
        let redactions = redactions
        var sources = photos.map {
            Source.original(OriginalSource(blobs: blobs, photo: $0, redactions: $0.uploaderID == viewerID ? nil : redactions))
        }
        if let guestbook = ArchiveGuestbook.text(eventName: event.name, photos: Array(zip(photos, names)), notes: notes) {
            entries.append(
                ZipEncoder.Entry(name: ArchiveGuestbook.fileName, size: Int64(guestbook.count), modified: notes.last?.uploadedAt ?? event.startsAt))
            sources.append(.text(guestbook))
        }
        let headers: HTTPFields = [
            .contentType: "application/zip",
            .contentDisposition: contentDisposition(ArchiveNames.archive(event.name)),
            .cacheControl: "no-store",
        ]
        let eventLoop = context.eventLoop
        let (allEntries, allSources) = (entries, sources)
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody(contentLength: Int(ZipEncoder.length(of: allEntries))) { writer in
                var paced = PacedWriter(writer: writer, eventLoop: eventLoop)
                var encoder = ZipEncoder()
                for (entry, source) in zip(allEntries, allSources) {
                    try await paced.write(encoder.begin(entry))
                    var crc: UInt32 = 0
                    switch source {
                    case .original(let original):
                        try await original.stream(range: nil) { chunk in
                            crc = ZipEncoder.crc(crc, chunk)
                            try await paced.write(chunk)
                        }
                    case .text(let data):
                        let chunk = ByteBuffer(bytes: data)
                        crc = ZipEncoder.crc(crc, chunk)
                        try await paced.write(chunk)
                    }
                    try await paced.write(encoder.end(crc: crc))
                }
                try await paced.write(encoder.finish())
                try await paced.writer.finish(nil)
            })
    }

    /// An entry's bytes: a stored original, or text made for the download.
    package enum Source: Sendable {
        case original(OriginalSource)
        case text(Data)
    }
}
