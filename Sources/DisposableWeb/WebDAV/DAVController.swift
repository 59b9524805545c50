import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird
import NIOCore

/// `/dav/`: the library over WebDAV (RFC 4918 class 1) for phones' backup apps, file managers and rclone. Signed in
/// on every request with HTTP Basic — the account's e-mail and an app password, never the account's own password nor
/// a session. Answered in front of the router, since WebDAV's methods and paths are its own.
package struct DAVController: RouterMiddleware {
    package let dav: DAVService
    package let events: DAVEvents
    package let appPasswords: AppPasswordService

    package init(dav: DAVService, events: DAVEvents, appPasswords: AppPasswordService) {
        self.dav = dav
        self.events = events
        self.appPasswords = appPasswords
    }

    package static let allow = "OPTIONS, GET, HEAD, PUT, DELETE, PROPFIND, PROPPATCH, MKCOL, COPY, MOVE"

    package func handle(
        _ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        let rawPath = request.uri.path
        guard rawPath == "/dav" || rawPath.hasPrefix("/dav/") else { return try await next(request, context) }
        if request.method == .options {
            return Response(status: .ok, headers: [.init("DAV")!: "1", .allow: Self.allow, .init("MS-Author-Via")!: "DAV", .contentLength: "0"])
        }
        guard let (email, secret) = DAVBasicAuth.credentials(request.headers[.authorization]) else { throw DAVBasicAuth.missing }
        let user: User
        do {
            user = try await appPasswords.account(email: email, secret: secret, client: context.clientAddress)
        } catch let problem as Problem where problem.status == .unauthorized {
            throw DAVBasicAuth.refusal(problem)
        }
        let path: DAVPath
        do {
            path = try DAVPath(rawPath: rawPath)
        } catch let refused as DAVPath.Refused {
            throw Problem.badRequest(refused.reason)
        } catch {
            throw DAVService.nothingHere
        }
        do {
            switch path {
            case .root: return try await root(request)
            case .library(let library): return try await self.library(library, request, context, user: user)
            case .events(let segments): return try await events(segments, request, context, user: user)
            }
        } catch let problem as Problem where problem.slug == "quota-exceeded" {
            // What WebDAV clients read as "the server is full for you".
            throw Problem(.insufficientStorage, problem.slug, title: problem.title, detail: problem.detail)
        }
    }

    /// `/dav/` itself: a folder holding the library and the events.
    private func root(_ request: Request) async throws -> Response {
        guard request.method.rawValue == "PROPFIND" else {
            if request.method == .get || request.method == .head { return Self.folderPage }
            throw DAVService.notHere
        }
        let depth = try Self.depth(request)
        let asked = try await Self.propfind(request)
        var answer = DAVMultistatus()
        let folder = DAVEntry.libraryRoot(at: Date(timeIntervalSince1970: 0))
        DAVProperties.add(folder, href: "/dav/", displayName: "dav", request: asked, to: &answer)
        if depth == 1 {
            DAVProperties.add(folder, href: "/dav/library/", displayName: "library", request: asked, to: &answer)
            DAVProperties.add(folder, href: "/dav/events/", displayName: "events", request: asked, to: &answer)
        }
        return Self.multistatus(answer)
    }

    private func library(_ path: String, _ request: Request, _ context: AppRequestContext, user: User) async throws -> Response {
        switch request.method.rawValue {
        case "PROPFIND":
            let depth = try Self.depth(request)
            let asked = try await Self.propfind(request)
            guard let entry = try await dav.entry(path, for: user) else { throw DAVService.nothingHere }
            var answer = DAVMultistatus()
            DAVProperties.add(entry, href: Self.href(entry), displayName: Self.name(entry), request: asked, to: &answer)
            if depth == 1, entry.isFolder {
                for member in try await dav.members(of: path, for: user) {
                    DAVProperties.add(member, href: Self.href(member), displayName: Self.name(member), request: asked, to: &answer)
                }
            }
            return Self.multistatus(answer)
        case "GET", "HEAD":
            guard let entry = try await dav.entry(path, for: user) else { throw DAVService.nothingHere }
            if entry.isFolder { return Self.folderPage }
            return try await body(try await dav.content(of: entry, for: user), modified: entry.modifiedAt, request, context)
        case "PUT":
            if request.headers[.contentRange] != nil {
                throw Problem(
                    .notImplemented, "dav-partial-put", title: "Not implemented", detail: "Send the whole file: partial PUT is not supported.")
            }
            let created = try await dav.put(
                path, body: request.body, declaredLength: request.headers[.contentLength].flatMap { Int64($0) }, for: user)
            return Response(status: created ? .created : .noContent)
        case "DELETE":
            try await dav.delete(path, for: user)
            return Response(status: .noContent)
        case "MKCOL":
            if try await !Self.xmlBody(request).isEmpty {
                throw Problem(.unsupportedMediaType, "dav-mkcol-body", title: "No body", detail: "MKCOL takes no body.")
            }
            try await dav.makeFolder(path, for: user)
            return Response(status: .created)
        case "COPY", "MOVE":
            let destination = try Self.destination(request)
            let overwrite = request.headers[.init("Overwrite")!]?.uppercased() != "F"
            let created =
                request.method.rawValue == "MOVE"
                ? try await dav.move(path, to: destination, overwrite: overwrite, for: user)
                : try await dav.copy(path, to: destination, overwrite: overwrite, shallow: request.headers[.init("Depth")!] == "0", for: user)
            return Response(status: created ? .created : .noContent)
        case "PROPPATCH":
            let changes = try await Self.proppatch(request)
            var answer = DAVMultistatus()
            answer.add(href: Self.href(library: path), statuses: try await dav.changeProperties(changes, at: path, for: user))
            return Self.multistatus(answer)
        default:
            var problem = Problem(
                .methodNotAllowed, "method-not-allowed", title: "Method not allowed", detail: "WebDAV here does not take that method.")
            problem.headers[.allow] = Self.allow
            throw problem
        }
    }

    /// A file's bytes, whole or by range; a plain file only as a download that no browser renders.
    private func body(_ content: DAVService.Content, modified: Date, _ request: Request, _ context: AppRequestContext) async throws -> Response {
        var headers: HTTPFields = [.contentType: content.contentType, .lastModified: modified.httpDate, .cacheControl: "private, no-cache"]
        if content.isPlainFile {
            headers[.contentDisposition] = "attachment"
            headers[.contentSecurityPolicy] = "sandbox"
        }
        if request.method == .head {
            headers[.eTag] = content.etag
            headers[.acceptRanges] = "bytes"
            headers[.contentLength] = String(content.byteSize)
            return Response(status: .ok, headers: headers)
        }
        let (blobs, key) = (dav.blobs, content.key)
        return try await RangedBody.response(request, context, total: content.byteSize, etag: content.etag, headers: headers) { range, write in
            try await blobs.read(key: key, range: range, write)
        }
    }

    package static let folderPage = Response(
        status: .ok, headers: [.contentType: "text/plain; charset=utf-8"],
        body: .init(
            byteBuffer: ByteBuffer(
                string: "This is a WebDAV folder of Disposable: open it with a WebDAV client (a phone's backup app, a file manager, rclone).\n")))

    package static func href(_ entry: DAVEntry) -> String { href(library: entry.path, folder: entry.isFolder) }

    package static func href(library path: String, folder: Bool = false) -> String { DAVPath.href(library: path, folder: folder || path.isEmpty) }

    package static func name(_ entry: DAVEntry) -> String { entry.path.isEmpty ? "library" : LibraryPath.name(entry.path) }

    /// `Depth`: 0 or 1; infinity (also when absent) is refused, as RFC 4918 §9.1 allows: a whole library at once
    /// is not an answer anyone can wait for.
    package static func depth(_ request: Request) throws -> Int {
        switch request.headers[.init("Depth")!]?.lowercased() {
        case "0": return 0
        case "1": return 1
        default:
            throw Problem(
                .forbidden, "propfind-finite-depth", title: "Depth must be 0 or 1",
                detail: "Ask one folder at a time (Depth: 1): listing a whole library at once is refused.")
        }
    }

    package static func propfind(_ request: Request) async throws -> DAVPropfind {
        let body = try await xmlBody(request)
        do { return try DAVXML.propfind(body) } catch let malformed as DAVXML.Malformed { throw Problem.badRequest(malformed.reason) }
    }

    package static func proppatch(_ request: Request) async throws -> [DAVPropertyChange] {
        let body = try await xmlBody(request)
        do { return try DAVXML.proppatch(body) } catch let malformed as DAVXML.Malformed { throw Problem.badRequest(malformed.reason) }
    }

    /// A PROPFIND or PROPPATCH body: 413 past 64 KB.
    package static func xmlBody(_ request: Request) async throws -> Data {
        do {
            return Data(try await request.body.collect(upTo: DAVXML.maxBody).readableBytesView)
        } catch is NIOTooManyBytesError {
            throw Problem.payloadTooLarge
        }
    }

    /// The library path `Destination` names (an absolute address or a path, on this server, under `/dav/library/`).
    package static func destination(_ request: Request) throws -> String {
        guard let header = request.headers[.init("Destination")!], let url = URL(string: header) else {
            throw Problem.badRequest("COPY and MOVE need a Destination header.")
        }
        let raw = url.path(percentEncoded: true)
        let elsewhere = Problem(.badGateway, "dav-other-tree", title: "Elsewhere", detail: "Copy and move within /dav/library/ on this server only.")
        guard raw.hasPrefix("/dav/library/") || (raw.isEmpty && header.hasPrefix("/dav/library/")) else { throw elsewhere }
        do {
            guard case .library(let path) = try DAVPath(rawPath: raw.isEmpty ? header : raw) else { throw elsewhere }
            return path
        } catch let refused as DAVPath.Refused {
            throw Problem.badRequest(refused.reason)
        } catch is DAVPath.NotFound {
            throw elsewhere
        }
    }

    package static func multistatus(_ answer: DAVMultistatus) -> Response {
        Response(
            status: .multiStatus, headers: [.contentType: "application/xml; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: answer.finished())))
    }
}
