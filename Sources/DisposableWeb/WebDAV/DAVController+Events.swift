import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// `/dav/events/…`: read-only — folders listed, originals read; anything else is refused.
extension DAVController {
    package func events(_ segments: [String], _ request: Request, _ context: AppRequestContext, user: User) async throws -> Response {
        switch request.method.rawValue {
        case "PROPFIND":
            let depth = try Self.depth(request)
            let asked = try await Self.propfind(request)
            var answer = DAVMultistatus()
            switch segments.count {
            case 0:
                DAVProperties.add(Self.eventsFolder, href: "/dav/events/", displayName: "events", request: asked, to: &answer)
                if depth == 1 {
                    for (name, event) in try await events.folders(for: user) {
                        DAVProperties.add(
                            DAVEvents.entry(folder: event), href: DAVPath.href(events: [name], folder: true), displayName: name, request: asked,
                            to: &answer)
                    }
                }
            case 1:
                let event = try await folder(segments[0], for: user)
                DAVProperties.add(
                    DAVEvents.entry(folder: event), href: DAVPath.href(events: segments, folder: true), displayName: segments[0], request: asked,
                    to: &answer)
                if depth == 1 {
                    for (name, photo, own) in try await events.files(in: event, for: user) {
                        DAVProperties.add(
                            DAVEvents.entry(photo: photo, own: own), href: DAVPath.href(events: [segments[0], name], folder: false),
                            displayName: name, request: asked, to: &answer)
                    }
                }
            case 2:
                let (photo, own) = try await file(segments, for: user)
                DAVProperties.add(
                    DAVEvents.entry(photo: photo, own: own), href: DAVPath.href(events: segments, folder: false), displayName: segments[1],
                    request: asked, to: &answer)
            default:
                throw DAVService.nothingHere
            }
            return Self.multistatus(answer)
        case "GET", "HEAD":
            guard segments.count == 2 else {
                if segments.count == 1 { _ = try await folder(segments[0], for: user) }
                return Self.folderPage
            }
            let (photo, own) = try await file(segments, for: user)
            let source = try await events.original(photo, for: user)
            var headers: HTTPFields = [
                .contentType: photo.format.mimeType, .lastModified: photo.uploadedAt.httpDate, .cacheControl: "private, no-cache",
            ]
            if request.method == .head {
                headers[.eTag] = DAVEvents.etag(photo, own: own)
                headers[.contentLength] = String(photo.byteSize)
                return Response(status: .ok, headers: headers)
            }
            return try await RangedBody.response(
                request, context, total: photo.byteSize, etag: DAVEvents.etag(photo, own: own), headers: headers,
                prepare: { try await source.prepare() }
            ) { range, write in try await source.stream(range: range, write) }
        default:
            throw Problem(.forbidden, "dav-read-only", title: "Read-only", detail: "Events' photos are read-only here.")
        }
    }

    private static let eventsFolder = DAVEntry.libraryRoot(at: Date(timeIntervalSince1970: 0))

    private func folder(_ name: String, for user: User) async throws -> Event {
        guard let event = try await events.folder(name, for: user) else { throw DAVService.nothingHere }
        return event
    }

    private func file(_ segments: [String], for user: User) async throws -> (Photo, Bool) {
        let event = try await folder(segments[0], for: user)
        guard let (_, photo, own) = try await events.files(in: event, for: user).first(where: { $0.name == segments[1] }) else {
            throw DAVService.nothingHere
        }
        return (photo, own)
    }
}
