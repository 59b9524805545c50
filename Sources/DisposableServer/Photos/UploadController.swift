import Foundation
import Hummingbird
import NIOPosix

/// `POST /api/v1/events/{id}/photos` — the shutter (UP-1, UP-2, UP-5, UP-6) — and the check by hash (UP-7).
/// The path is short on purpose: accept, store durably, record, enqueue, answer. Derivatives are a job.
struct UploadController {
    let services: AppServices
    let access: EventAccess

    init(services: AppServices) {
        self.services = services
        access = EventAccess(services: services)
    }

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.post("/api/v1/events/:id/photos", use: upload)
        router.post("/api/v1/events/:id/photos/check", use: check)
    }

    @Sendable func upload(_ request: Request, context: AppRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let (event, role) = try await access.event(try context.parameters.require("id"), for: identity)
        let uploader = try await self.uploader(event: event, role: role, identity: identity)
        guard event.status(at: services.clock.now) == .live else {
            throw Problem(.forbidden, "event-not-live", title: "Not shooting now",
                          detail: "Photos can only be taken while the event is live, between its start and its end.")
        }
        try checkDeclaredType(request)
        let source = try photoSource(request)
        if source == .library, case .guest = uploader, !event.allowLibraryUploads {
            throw Problem(.forbidden, "library-uploads-disabled", title: "Camera only",
                          detail: "The organizer allows only photos taken with the camera in this event.")
        }
        let key = try idempotencyKey(request)
        if let key, let existing = try await services.photos.find(uploaderID: uploader.id, idempotencyKey: key) {
            return try jsonResponse(PhotoJSON(existing, viewerID: uploader.id, links: services.mediaLinks), status: .ok)
        }
        if case .guest(let guest, let shots) = uploader, guest.shotsUsed >= shots { throw Problem.shotLimitReached(shots) }
        if let length = request.headers[.contentLength].flatMap(Int64.init), length > services.configuration.maxUploadBytes {
            throw Problem.photoTooLarge(services.configuration.maxUploadBytes)
        }

        let staged: StagedUpload
        do {
            staged = try await StagedUpload.receive(
                request.body, into: services.blobs.stagingDirectory, maxBytes: services.configuration.maxUploadBytes)
        } catch is StorageFull {
            throw Problem.storageFull
        }
        var stored = false
        defer { if !stored { staged.discard() } }
        let format = try await validate(staged)
        if let duplicate = try await services.photos.find(eventID: event.id, sha256: staged.sha256) {
            throw Problem.alreadyExists(duplicate.id)
        }

        let photoID = newID()
        do {
            try await services.blobs.put(file: staged.file, key: BlobKey.original(event.id, photoID))
        } catch is StorageFull {
            throw Problem.storageFull
        }
        stored = true
        var new = PhotoRepository.NewPhoto(
            id: photoID, eventID: event.id, idempotencyKey: key, sha256: staged.sha256, format: format, source: source,
            byteSize: staged.byteSize, uploadedAt: services.clock.now)
        if event.requireApproval, case .guest = uploader { new.approved = false }
        let outcome: PhotoRepository.InsertOutcome
        do {
            outcome = try await services.photos.insert(new, by: uploader)
        } catch {
            try? await services.blobs.delete(prefix: BlobKey.photo(event.id, photoID))
            throw error
        }
        switch outcome {
        case .inserted(let photo):
            await services.newWork.notify()
            await services.changes.refresh(event.id)
            var response = try jsonResponse(PhotoJSON(photo, viewerID: uploader.id, links: services.mediaLinks), status: .created)
            response.headers[.location] = "/api/v1/photos/\(photo.id)"
            return response
        case .shotLimitReached:
            try await services.blobs.delete(prefix: BlobKey.photo(event.id, photoID))
            throw Problem.shotLimitReached(event.shotsPerGuest)
        case .conflict:
            // A parallel retry with the same key, or the same content, won the race.
            try await services.blobs.delete(prefix: BlobKey.photo(event.id, photoID))
            if let key, let existing = try await services.photos.find(uploaderID: uploader.id, idempotencyKey: key) {
                return try jsonResponse(PhotoJSON(existing, viewerID: uploader.id, links: services.mediaLinks), status: .ok)
            }
            let duplicate = try await services.photos.find(eventID: event.id, sha256: staged.sha256)
            throw Problem.alreadyExists(duplicate?.id ?? "")
        }
    }

    /// The format from the bytes, and the size from the header — before anything is decoded (MED-3).
    private func validate(_ staged: StagedUpload) async throws -> ImageFormat {
        guard staged.byteSize > 0 else {
            throw Problem(.unprocessableContent, "empty-file", title: "Empty file", detail: "The file is empty.")
        }
        guard let format = ImageFormat(sniffing: staged.head) else {
            throw Problem(.unsupportedMediaType, "unsupported-format", title: "Not a photo we accept",
                          detail: "This file is not a photo we accept. Send JPEG, PNG, HEIC/HEIF, WebP, AVIF or GIF.")
        }
        let broken = Problem(.unprocessableContent, "unreadable-image", title: "Broken photo",
                             detail: "This file looks like a \(format.rawValue.uppercased()) image but cannot be read: it may be damaged or cut short.")
        let header: ImageHeader
        do {
            header = try await services.images.probe(staged.file.path, format: format)
        } catch is UndecodableImage {
            throw broken
        } catch let error as ImageLibraryUnavailable {
            services.logger.error("\(error.description)")
            throw Problem(.serviceUnavailable, "images-unavailable", title: "Photos cannot be checked right now",
                          detail: "The server cannot read photos at the moment. Your photo was not kept; please try again later.")
        }
        if format == .jpeg {
            let path = staged.file.path
            guard try await NIOThreadPool.singleton.runIfActive({ try JPEGStructure.isComplete(file: path) }) else { throw broken }
        }
        let pixels = header.width * header.height * header.pages
        guard header.width > 0, header.height > 0, pixels <= services.configuration.maxPixels else {
            throw Problem(.unprocessableContent, "too-many-pixels", title: "Image too large",
                          detail: "This image is \(header.width)×\(header.height) pixels\(header.pages > 1 ? " × \(header.pages) frames" : ""), "
                            + "more than the \(services.configuration.maxPixels / 1_000_000) megapixels allowed.")
        }
        return format
    }

    private func uploader(event: Event, role: EventRole, identity: Identity) async throws -> PhotoRepository.Uploader {
        switch (identity, role) {
        case (.user(let user, _), .organizer): return .organizer(userID: user.id, name: user.name)
        case (.guest(let guest, _), _): return .guest(guest, shotsPerGuest: event.shotsPerGuest)
        case (.user(let user, _), .guest):
            guard let guest = try await services.guests.activeMembership(userID: user.id, eventID: event.id) else {
                throw EventAccess.notFound
            }
            return .guest(guest, shotsPerGuest: event.shotsPerGuest)
        }
    }

    /// The body is an image's bytes: a request that declares something else (an HTML page, a JSON
    /// document, a form) is refused before anything is read. The format itself is sniffed from the bytes.
    private func checkDeclaredType(_ request: Request) throws {
        guard let declared = request.headers[.contentType]?.lowercased() else { return }
        let type = declared.split(separator: ";")[0].trimmingCharacters(in: .whitespaces)
        guard type.hasPrefix("image/") || type == "application/octet-stream" || type.isEmpty else {
            throw Problem(.unsupportedMediaType, "not-an-image-upload", title: "Not an image",
                          detail: "Send the photo's bytes with an image Content-Type (or application/octet-stream), not “\(type)”.")
        }
    }

    private func photoSource(_ request: Request) throws -> PhotoSource {
        guard let raw = request.headers[.init("X-Photo-Source")!] else { return .camera }
        guard let source = PhotoSource(rawValue: raw.lowercased()) else {
            throw Problem.badRequest("X-Photo-Source must be “camera” or “library”.", field: "X-Photo-Source")
        }
        return source
    }

    /// A client-generated id (UP-3): 1 to 128 visible ASCII characters.
    private func idempotencyKey(_ request: Request) throws -> String? {
        guard let key = request.headers[.init("Idempotency-Key")!] else { return nil }
        guard (1...128).contains(key.utf8.count), key.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw Problem.badRequest("Idempotency-Key must be 1 to 128 visible ASCII characters.", field: "Idempotency-Key")
        }
        return key
    }

    struct CheckBody: JSONBody {
        static let fields: Set<String> = ["sha256"]
        let sha256: [String]
    }

    struct CheckJSON: Encodable {
        let existing: [String]
        let missing: [String]
    }

    /// Which of these SHA-256 the event already has, so a client skips sending them (UP-7).
    @Sendable func check(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (event, _) = try await access.event(try context.parameters.require("id"), for: context.identity)
        let body = try await request.decodeJSON(CheckBody.self)
        guard body.sha256.count <= 1000 else { throw Problem.invalidField("sha256", "Ask about at most 1000 hashes at a time.") }
        let hashes = body.sha256.map { $0.lowercased() }
        guard hashes.allSatisfy({ $0.count == 64 && $0.allSatisfy(\.isHexDigit) }) else {
            throw Problem.invalidField("sha256", "Each sha256 must be 64 hexadecimal characters.")
        }
        let existing = try await services.photos.existingHashes(eventID: event.id, among: hashes)
        return try jsonResponse(CheckJSON(existing: hashes.filter(existing.contains), missing: hashes.filter { !existing.contains($0) }))
    }
}

extension Problem {
    static func shotLimitReached(_ shots: Int) -> Problem {
        Problem(.forbidden, "shot-limit-reached", title: "No shots left",
                detail: "You have used all your \(shots) shots for this event — like a real disposable camera.")
    }

    static func alreadyExists(_ id: String) -> Problem {
        var problem = Problem(.conflict, "already-exists", title: "Media already exists", detail: "Media already exists: this photo is already in the event.")
        problem.extensions["existingId"] = id
        return problem
    }

    static let storageFull = Problem(
        .init(code: 507, reasonPhrase: "Insufficient Storage"), "storage-full", title: "Storage full",
        detail: "The server's storage is full, so this photo could not be saved. Keep it on your phone and try again later.")
}
