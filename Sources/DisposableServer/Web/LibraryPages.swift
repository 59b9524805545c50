import Foundation
import Hummingbird

/// `/library` (LIB-1: my photos, by month) and `/library/trash` (LIB-2). The pages are shells: `library.js` reads the
/// same API as the SDK and the CLI (`/api/v1/library/…`) with the session cookie.
struct LibraryPages {
    let library: LibraryService
    let capsules: CapsuleService

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/library", use: timeline)
        router.get("/library/trash", use: trash)
    }

    @Sendable func timeline(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await page(request, context, trash: false)
    }

    @Sendable func trash(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await page(request, context, trash: true)
    }

    private func page(_ request: Request, _ context: AppRequestContext, trash: Bool) async throws -> Response {
        guard case .user(let user, _) = context.identity else { return WebRequest.redirect("/login?next=/library\(trash ? "/trash" : "")") }
        let web = WebRequest(request, context: context)
        return web.page(
            "library", title: web.t(trash ? "library_trash_title" : "library_title"),
            // The feed's position now: the page's live updates start there.
            model: LibraryView(
                trash: trash, revision: try await library.latestRevision(for: user),
                nextCapsule: web.time(try await capsules.nextCapsuleAt(for: user))))
    }
}

/// What the library page is told: which view, and where the live feed starts.
struct LibraryView: Sendable {
    let trash: Bool
    let revision: Int64
    /// CAP-2: the countdown to the next capsule, above the timeline.
    let nextCapsule: TimeText
}
