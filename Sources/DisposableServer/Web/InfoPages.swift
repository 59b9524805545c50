import Foundation
import Hummingbird
import NIOCore

/// Help, terms, privacy, the language switcher, the web app manifest and the static files.
struct InfoPages {
    let retention: TimeInterval
    let secure: Bool
    let resources = WebResources.shared

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/help", use: help)
        router.get("/terms", use: terms)
        router.get("/privacy", use: privacy)
        router.get("/language/:code", use: language)
        router.get("/manifest.webmanifest", use: manifest)
        router.get("/static/:file", use: file)
    }

    @Sendable func help(_ request: Request, context: AppRequestContext) async throws -> Response {
        let web = WebRequest(request, context: context)
        return web.page("help", title: web.t("help_title"))
    }

    @Sendable func terms(_ request: Request, context: AppRequestContext) async throws -> Response {
        let web = WebRequest(request, context: context)
        let days = Int(retention / 86_400)
        return web.page("terms", title: web.t("terms_title"), data: ["version": TermsOfUse.version, "retentionDays": days])
    }

    @Sendable func privacy(_ request: Request, context: AppRequestContext) async throws -> Response {
        let web = WebRequest(request, context: context)
        let days = Int(retention / 86_400)
        return web.page("privacy", title: web.t("privacy_title"), data: ["retentionDays": days])
    }

    /// The switcher's links: remember the choice for a year and go back where the reader was.
    @Sendable func language(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let language = WebLanguage(rawValue: try context.parameters.require("code")) else {
            return WebRequest.redirect("/")
        }
        let back = request.uri.queryParameters.get("back").flatMap { $0.hasPrefix("/") && !$0.hasPrefix("//") ? $0 : nil } ?? "/"
        return WebRequest.redirect(
            back,
            cookies: [
                Cookie(
                    name: WebLanguage.cookieName, value: language.rawValue, maxAge: 365 * 86_400, path: "/",
                    secure: secure, httpOnly: true, sameSite: .lax)
            ])
    }

    /// UI-3: installable on the home screen, opening on the home page.
    @Sendable func manifest(_ request: Request, context: AppRequestContext) async throws -> Response {
        let web = WebRequest(request, context: context)
        let icon = { (name: String, size: String, type: String) -> [String: String] in
            ["src": "/static/\(name)?v=\(resources.assetVersion)", "sizes": size, "type": type, "purpose": "any maskable"]
        }
        let manifest: [String: Any] = [
            "name": web.t("app_name"), "short_name": web.t("app_name"), "description": web.t("app_tagline"),
            "start_url": "/", "scope": "/", "display": "standalone", "background_color": "#1b1a17", "theme_color": "#e2583e",
            "lang": web.language.rawValue,
            "icons": [
                icon("icon192.png", "192x192", "image/png"), icon("icon512.png", "512x512", "image/png"),
                icon("icon.svg", "any", "image/svg+xml"),
            ],
        ]
        let data = try JSONSerialization.data(withJSONObject: manifest, options: [.sortedKeys, .withoutEscapingSlashes])
        return Response(
            status: .ok, headers: [.contentType: "application/manifest+json", .cacheControl: "public, max-age=3600"],
            body: .init(byteBuffer: ByteBuffer(data: data)))
    }

    /// Static files; URLs carry the asset version, so they can be cached for a year.
    @Sendable func file(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let file = resources.staticFiles[try context.parameters.require("file")] else {
            throw Problem.notFound("There is no such file.")
        }
        if request.headers[.ifNoneMatch] == file.etag {
            return Response(status: .notModified, headers: [.eTag: file.etag])
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: file.contentType, .eTag: file.etag, .cacheControl: "public, max-age=31536000, immutable",
            ], body: .init(byteBuffer: ByteBuffer(data: file.data)))
    }
}
