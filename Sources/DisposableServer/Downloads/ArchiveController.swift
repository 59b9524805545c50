import Foundation
import Hummingbird
import NIOCore

/// `GET /api/v1/events/{id}/archive.zip[?ids=…]`: the whole event, or a selection, as one streamed ZIP (DL-2).
struct ArchiveController {
    let services: AppServices
    let access: EventAccess

    init(services: AppServices) {
        self.services = services
        access = EventAccess(services: services)
    }

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/api/v1/events/:id/archive.zip", use: archive)
    }

    @Sendable func archive(_ request: Request, context: AppRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let (event, role) = try await access.event(try context.parameters.require("id"), for: identity)
        let viewerID = try await access.uploaderID(in: event, role: role, identity: identity)
        if role == .guest && !event.allowGuestDownloads {
            throw Problem(.forbidden, "downloads-disabled", title: "Downloads disabled",
                          detail: "The organizer has turned off downloading photos in this event.")
        }
        let revealed = Reveal.isRevealed(event, at: services.clock.now)
        var photos = try await services.photos.all(eventID: event.id).filter { photo in
            photo.status == .ready && (role == .organizer || photo.uploaderID == viewerID || revealed && photo.approved)
        }
        if let raw = request.uri.queryParameters.get("ids") {
            let wanted = Set(raw.split(separator: ",").map(String.init))
            guard !wanted.isEmpty, wanted.count <= 10_000 else { throw Problem.invalidField("ids", "ids must list 1 to 10000 photo ids.") }
            photos = photos.filter { wanted.contains($0.id) }
            guard photos.count == wanted.count else {
                throw Problem.notFound("Some of these photos do not exist, are not ready, or you cannot see them.")
            }
        }
        let names = Self.uniqueNames(photos.map(\.downloadName))
        let entries = zip(photos, names).map { ZipEncoder.Entry(name: $1, size: $0.byteSize, modified: $0.takenAt) }
        let blobs = services.blobs
        let sources = photos.map { OriginalSource(blobs: blobs, photo: $0, stripGPS: $0.uploaderID != viewerID) }
        let headers: HTTPFields = [
            .contentType: "application/zip",
            .contentDisposition: contentDisposition(Self.archiveName(event.name)),
            .cacheControl: "no-store",
        ]
        return Response(status: .ok, headers: headers, body: ResponseBody(contentLength: Int(ZipEncoder.length(of: entries))) { writer in
            var encoder = ZipEncoder()
            for (entry, source) in zip(entries, sources) {
                try await writer.write(encoder.begin(entry))
                var crc: UInt32 = 0
                try await source.stream(range: nil) { chunk in
                    crc = ZipEncoder.crc(crc, chunk)
                    try await writer.write(chunk)
                }
                try await writer.write(encoder.end(crc: crc))
            }
            try await writer.write(encoder.finish())
            try await writer.finish(nil)
        })
    }

    /// Two guests called Ana both have an `Ana1.jpg`: the second becomes `Ana1 (2).jpg`.
    static func uniqueNames(_ names: [String]) -> [String] {
        var seen: [String: Int] = [:]
        return names.map { name in
            seen[name, default: 0] += 1
            guard let count = seen[name], count > 1 else { return name }
            let ext = (name as NSString).pathExtension
            return "\((name as NSString).deletingPathExtension) (\(count)).\(ext)"
        }
    }

    static func archiveName(_ eventName: String) -> String {
        let safe = eventName.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) || $0 == " " || $0 == "-" ? Character($0) : "_" }
        return String(String(safe).prefix(60)).trimmingCharacters(in: .whitespaces) + ".zip"
    }
}
