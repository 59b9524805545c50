import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// `/library` (LIB-1: my photos, by month), `/library/trash` (LIB-2) and `/library/events` (JN-6: what I shot at
/// events). The pages are shells: `library.js` and `eventshots.js` read the same API as the SDK and the CLI with the
/// session cookie.
package struct LibraryPages {
    package let library: LibraryService
    package let capsules: CapsuleService

    package init(library: LibraryService, capsules: CapsuleService) {
        self.library = library
        self.capsules = capsules
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/library", use: timeline)
        router.get("/library/trash", use: trash)
        router.get("/library/events", use: fromEvents)
    }

    @Sendable package func fromEvents(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard case .user = context.identity else { return WebRequest.redirect("/login?next=/library/events") }
        let web = WebRequest(request, context: context)
        return web.page("my-shots", title: web.t("my_shots_title"), model: MyShotsView())
    }

    @Sendable package func timeline(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await page(request, context, trash: false)
    }

    @Sendable package func trash(_ request: Request, context: AppRequestContext) async throws -> Response {
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
                nextCapsule: web.time(try await capsules.nextCapsuleAt(for: user)), maxBytes: library.maxBytes))
    }
}

/// What the library page is told: which view, and where the live feed starts.
package struct LibraryView: Sendable {
    package let trash: Bool
    package let revision: Int64
    /// CAP-2: the countdown to the next capsule, above the timeline.
    package let nextCapsule: TimeText
    /// The largest file the library takes: an export's larger ones are not unpacked in the browser.
    package let maxBytes: Int64
}

/// `/library/events` is a shell: its script reads `GET /api/v1/me/photos`.
package struct MyShotsView: Sendable { package init() {} }
