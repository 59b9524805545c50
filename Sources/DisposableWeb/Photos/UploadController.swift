import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// `POST /api/v1/events/{id}/photos` — the shutter: the photo as the body, or a form with the photo and the phone's
/// first look (`PhotoForm`) — and the check by hash (UP-7). Reads the request's headers; the rules are `PhotoService`'s.
package struct UploadController {
    package let photos: PhotoService

    package init(photos: PhotoService) {
        self.photos = photos
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.post("/api/v1/events/:id/photos", use: upload)
        router.post("/api/v1/events/:id/photos/check", use: check)
    }

    @Sendable package func upload(_ request: Request, context: AppRequestContext) async throws -> Response {
        do {
            let response = try await receive(request, context: context)
            Metric.upload(response.status == .created ? "accepted" : "repeated")
            return response
        } catch let problem as Problem {
            Metric.upload(problem.slug)
            throw problem
        }
    }

    private func receive(_ request: Request, context: AppRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        // Membership first: a stranger learns nothing from the headers' checks.
        let shooting = try await photos.shooting(into: try context.parameters.require("id"), for: identity)
        let contentType = request.headers[.contentType]
        let form = PhotoForm.isForm(contentType)
        if !form { try Self.checkDeclaredType(request) }
        let upload = PhotoService.UploadRequest(
            source: try photoSource(request), idempotencyKey: try Self.idempotencyKey(request),
            // A form's length is its photo's and a little more: the form counts its bytes itself.
            declaredLength: form ? nil : request.headers[.contentLength].flatMap(Int64.init))
        let uploaded: PhotoService.Uploaded
        if form {
            guard let body = PhotoForm(request.body, contentType: contentType ?? "", maxPhotoBytes: photos.limits.maxBytes) else {
                throw Problem.badRequest("A multipart/form-data body needs a boundary of 1 to 70 characters.", field: "Content-Type")
            }
            uploaded = try await photos.upload(upload, shooting, body: body)
        } else {
            uploaded = try await photos.upload(upload, shooting, body: request.body)
        }
        switch uploaded {
        case .existing(let photo):
            return try jsonResponse(photo, status: .ok)
        case .created(let photo):
            var response = try jsonResponse(photo, status: .created)
            response.headers[.location] = "/api/v1/photos/\(photo.id)"
            return response
        }
    }

    /// The body is an image's bytes: a request that declares something else (an HTML page, a JSON
    /// document, a form) is refused before anything is read. The format itself is sniffed from the bytes.
    /// `videos`: a video's type is welcome too (the library).
    package static func checkDeclaredType(_ request: Request, videos: Bool = false) throws {
        guard let declared = request.headers[.contentType]?.lowercased() else { return }
        let type = declared.split(separator: ";")[0].trimmingCharacters(in: .whitespaces)
        guard type.hasPrefix("image/") || (videos && type.hasPrefix("video/")) || type == "application/octet-stream" || type.isEmpty else {
            throw Problem(
                .unsupportedMediaType, "not-an-image-upload", title: videos ? "Not a photo or a video" : "Not an image",
                detail: videos
                    ? "Send the file's bytes with an image or video Content-Type (or application/octet-stream), not “\(type)”."
                    : "Send the photo's bytes with an image Content-Type (or application/octet-stream), not “\(type)”.")
        }
    }

    private func photoSource(_ request: Request) throws -> PhotoSource {
        // Unsaid counts as the library: an event that allows only the camera must not be reachable by leaving
        // the header out.
        guard let raw = request.headers[.init("X-Photo-Source")!] else { return .library }
        guard let source = PhotoSource(rawValue: raw.lowercased()) else {
            throw Problem.badRequest("X-Photo-Source must be “camera”, “library” or “drawing”.", field: "X-Photo-Source")
        }
        return source
    }

    /// A client-generated id (UP-3): 1 to 128 visible ASCII characters.
    package static func idempotencyKey(_ request: Request) throws -> String? {
        guard let key = request.headers[.init("Idempotency-Key")!] else { return nil }
        guard (1...128).contains(key.utf8.count), key.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw Problem.badRequest("Idempotency-Key must be 1 to 128 visible ASCII characters.", field: "Idempotency-Key")
        }
        return key
    }

    /// Which of these SHA-256 the event already has, so a client skips sending them (UP-7).
    @Sendable package func check(_ request: Request, context: AppRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let eventID = try context.parameters.require("id")
        let body = try await request.decodeJSON(HashCheckRequest.self)
        return try jsonResponse(try await photos.check(hashes: body.sha256, inEvent: eventID, for: identity))
    }
}

extension HashCheckRequest: JSONBody {
    package static let fields: Set<String> = ["sha256"]
}
