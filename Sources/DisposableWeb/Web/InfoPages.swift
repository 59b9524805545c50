import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird
import NIOCore

/// Help, terms, privacy, the language switcher, the web app manifest and the static files.
package struct InfoPages {
    package let retention: TimeInterval
    package let secure: Bool
    package let resources = WebResources.shared

    package init(retention: TimeInterval, secure: Bool) {
        self.retention = retention
        self.secure = secure
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/help", use: help)
        router.get("/terms", use: terms)
        router.get("/privacy", use: privacy)
        router.get("/language/:code", use: language)
        router.get("/manifest.webmanifest", use: manifest)
        router.get("/static/:file", use: file)
        router.get("/sw.js", use: serviceWorker)
    }

    @Sendable package func help(_ request: Request, context: AppRequestContext) async throws -> Response {
        let web = WebRequest(request, context: context)
        return web.page("help", title: web.t("help_title"))
    }

    @Sendable package func terms(_ request: Request, context: AppRequestContext) async throws -> Response {
        let web = WebRequest(request, context: context)
        let days = Int(retention / 86_400)
        return web.page("terms", title: web.t("terms_title"), model: TermsPage(version: TermsOfUse.version, retentionDays: days))
    }

    @Sendable package func privacy(_ request: Request, context: AppRequestContext) async throws -> Response {
        let web = WebRequest(request, context: context)
        let days = Int(retention / 86_400)
        return web.page("privacy", title: web.t("privacy_title"), model: PrivacyPage(retentionDays: days))
    }

    /// The switcher's links: remember the choice for a year and go back where the reader was.
    @Sendable package func language(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let language = WebLanguage(rawValue: try context.parameters.require("code")) else {
            return WebRequest.redirect("/")
        }
        let back = LocalPath.safe(request.uri.queryParameters.get("back")) ?? "/"
        return WebRequest.redirect(
            back,
            cookies: [
                Cookie(
                    name: WebLanguage.cookieName, value: language.rawValue, maxAge: 365 * 86_400, path: "/",
                    secure: secure, httpOnly: true, sameSite: .lax)
            ])
    }

    /// UI-3: installable on the home screen, opening on the home page.
    @Sendable package func manifest(_ request: Request, context: AppRequestContext) async throws -> Response {
        let web = WebRequest(request, context: context)
        let icon = { (name: String, size: String, type: String) in
            WebManifest.Icon(src: "/static/\(name)?v=\(resources.assetVersion)", sizes: size, type: type)
        }
        let manifest = WebManifest(
            name: web.t("app_name"), short_name: web.t("app_name"), description: web.t("app_tagline"), lang: web.language.rawValue,
            icons: [
                icon("icon192.png", "192x192", "image/png"), icon("icon512.png", "512x512", "image/png"),
                icon("icon.svg", "any", "image/svg+xml"),
            ])
        let data = try JSONEncoder.sorted.encode(manifest)
        return Response(
            status: .ok, headers: [.contentType: "application/manifest+json", .cacheControl: "public, max-age=3600"],
            body: .init(byteBuffer: ByteBuffer(data: data)))
    }

    /// Static files; URLs carry the asset version, so they can be cached for a year.
    /// The service worker that shows notices sent to a closed page: at the root, so that it serves every page
    /// of the site; never cached, so that an upgrade reaches it.
    @Sendable package func serviceWorker(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let file = resources.staticFiles["sw.js"] else { throw Problem.notFound("There is no such file.") }
        return Response(
            status: .ok, headers: [.contentType: file.contentType, .cacheControl: "no-cache"], body: .init(byteBuffer: ByteBuffer(data: file.data)))
    }

    @Sendable package func file(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let file = resources.staticFiles[try context.parameters.require("file")] else {
            throw Problem.notFound("There is no such file.")
        }
        if request.headers[.ifNoneMatch] == file.etag {
            return Response(status: .notModified, headers: [.eTag: file.etag])
        }
        // Only the current versioned URL is cached for good; any other may be stale after an upgrade.
        let current = request.uri.queryParameters.get("v") == resources.assetVersion
        return Response(
            status: .ok,
            headers: [
                .contentType: file.contentType, .eTag: file.etag,
                .cacheControl: current ? "public, max-age=31536000, immutable" : "no-cache",
            ], body: .init(byteBuffer: ByteBuffer(data: file.data)))
    }
}

/// The terms guests accept (SUP-3): their version and how long photos are kept.
package struct TermsPage: Sendable {
    package let version: String
    package let retentionDays: Int
}

package struct PrivacyPage: Sendable {
    package let retentionDays: Int
}

/// The web app manifest (UI-3); member names as the standard spells them.
package struct WebManifest: Encodable {
    package struct Icon: Encodable {
        package let src, sizes, type: String
        package var purpose = "any maskable"
    }

    /// Android's share sheet offers the installed app for photos and videos: the service worker (`sw.js`) takes the
    /// shared files and the library page adds them, through the same queue as a picked file.
    package struct ShareTarget: Encodable {
        package struct Parameters: Encodable {
            package struct Files: Encodable {
                package let name: String
                package let accept: [String]
            }
            package let files: [Files]
        }
        package var action = "/library/shared", method = "POST", enctype = "multipart/form-data"
        package var params = Parameters(files: [.init(name: "photos", accept: ["image/*", "video/*"])])
    }

    package let name, short_name, description: String
    package var start_url = "/", scope = "/", display = "standalone", background_color = "#1b1a17", theme_color = "#e2583e"
    package let lang: String
    package let icons: [Icon]
    package var share_target = ShareTarget()
}
