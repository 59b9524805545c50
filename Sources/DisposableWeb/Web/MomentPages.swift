import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// `/moments` (CAP-3): note a moment, this year's count and list, and a past year's recap (`?year=`). The page is a
/// shell: `moments.js` reads and writes through `/api/v1/moments` with the session cookie.
package struct MomentPages {
    package let moments: MomentService

    package init(moments: MomentService) {
        self.moments = moments
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/moments", use: page)
    }

    @Sendable package func page(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard case .user(let user, _) = context.identity else { return WebRequest.redirect("/login?next=/moments") }
        let web = WebRequest(request, context: context)
        let zone = try await moments.profiles.timeZone(of: user.id)
        return web.page("moments", title: web.t("moments_title"), model: MomentsView(timeZoneSet: zone != nil))
    }
}

/// Whether the account has a time zone yet (the page sets the browser's when not).
package struct MomentsView: Sendable {
    package let timeZoneSet: Bool
}
