import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird
import NIOCore

/// Thumbnails and previews behind signed links (see `MediaSigner`): the link is the grant, so a request
/// costs a signature check and one file read — no session, no database.
package struct MediaController {
    package let signer: MediaSigner
    package let blobs: any BlobStore
    package let clock: any AppClock

    package init(signer: MediaSigner, blobs: any BlobStore, clock: any AppClock) {
        self.signer = signer
        self.blobs = blobs
        self.clock = clock
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/api/v1/media/:event/:id/:file", use: serve)
    }

    @Sendable package func serve(_ request: Request, context: AppRequestContext) async throws -> Response {
        let eventID = try context.parameters.require("event")
        let photoID = try context.parameters.require("id")
        let query = request.uri.queryParameters
        guard let file = MediaLinks.File(rawValue: try context.parameters.require("file")),
            let until = query.get("until").flatMap({ Int64($0) }), let signature = query.get("sig"),
            Self.isID(eventID), Self.isID(photoID)
        else { throw Self.forged }
        let now = clock.now
        switch signer.check(eventID: eventID, photoID: photoID, until: until, signature: signature, now: now) {
        case .forged: throw Self.forged
        case .expired:
            throw Problem(
                .forbidden, "media-link-expired", title: "Link expired",
                detail: "This photo link has expired. Reload the gallery to get a fresh one.")
        case .valid: break
        }
        let headers = Self.headers(photoID: photoID, file: file, until: until, now: now)
        if request.headers[.ifNoneMatch] == headers[.eTag] { return Response(status: .notModified, headers: headers) }
        var found = try await blobs.contents(key: BlobKey.media(file, eventID, photoID))
        if found == nil, file == .firstLook {
            // The server's renders replaced it since the link was made (a gallery fetched just before): their thumbnail.
            found = try await blobs.contents(key: BlobKey.thumbnail(eventID, photoID))
        }
        guard let bytes = found else {
            // Deleted, or not rendered yet (a photo still developing, or one that failed).
            throw Problem.notFound("This photo is not available (it may have been deleted, or is still being processed).")
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: bytes))
    }

    /// What a served file's response says about it (`MediaShortcut` writes the same pieces).
    package static func headers(photoID: String, file: MediaLinks.File, until: Int64, now: Date) -> HTTPFields {
        [.contentType: contentType, .eTag: eTag(photoID: photoID, file: file), .cacheControl: cacheControl(until: until, now: now)]
    }

    package static let contentType = "image/jpeg"

    package static func eTag(photoID: String, file: MediaLinks.File) -> String {
        "\"\(photoID)-\(file.rawValue.dropLast(4))\""
    }

    /// Private: a shared cache must not hand one guest's link to everyone behind it.
    package static func cacheControl(until: Int64, now: Date) -> String {
        "private, max-age=\(max(0, until - Int64(now.timeIntervalSince1970))), immutable"
    }

    /// Our ids are letters, digits and dashes; anything else cannot have been signed by us.
    package static func isID(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64
            && text.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "A")...UInt8(ascii: "Z"):
                    true
                default: false
                }
            }
    }

    package static let forged = Problem(
        .forbidden, "media-link-invalid", title: "Invalid link",
        detail: "This photo link is not valid. Open the photo from the gallery.")
}
