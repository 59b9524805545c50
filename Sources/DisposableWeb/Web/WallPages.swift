import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// GAL-5: the venue wall, `/w/KEY`, for a screen nobody signs in on. Its page carries what the screen shows
/// around the photos (name, code, QR); the photos come from `/api/v1/walls/KEY/…`.
package struct WallPages {
    package let walls: VenueWall

    package init(walls: VenueWall) {
        self.walls = walls
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/w/:key", use: wall)
    }

    @Sendable package func wall(_ request: Request, context: AppRequestContext) async throws -> Response {
        let web = WebRequest(request, context: context)
        let key = try context.parameters.require("key")
        let event: Event
        do {
            event = try await walls.event(key: key)
        } catch let problem as Problem where problem.status == .notFound {
            return web.errorPage(status: .notFound, titleKey: "wall_unknown_title", messageKey: "wall_unknown_message")
        }
        let links = walls.events.links
        let config = WallPage.Config(
            key: key, revealsAt: event.revealsAt.formatted(Date.ISO8601FormatStyle()),
            revealed: PhotoVisibility.isRevealed(event, at: walls.events.clock.now))
        let page = WallPage(
            name: event.name, code: event.code.description, typedAddress: Self.withoutScheme(links.typed(event.code)),
            ended: event.status(at: walls.events.clock.now) == .ended,
            qrSVG: try QRCode(links.join(event)).svg(size: 600), config: ScriptJSON.text(config))
        return web.page("wall", title: event.name, model: page, headers: [.cacheControl: "no-store"])
    }

    /// `photos.example.org/e/CODE`: what people type into a phone's address bar, read from across a room.
    package static func withoutScheme(_ url: String) -> String {
        guard let range = url.range(of: "://") else { return url }
        return String(url[range.upperBound...])
    }
}

package struct WallPage: Sendable {
    package let name: String
    package let code: String
    /// The short address without `https://`.
    package let typedAddress: String
    /// After the end the corner no longer invites to shoot: the photos are there to see.
    package let ended: Bool
    package let qrSVG: String
    /// `#wall-config` for the script, safe inside `<script type="application/json">`.
    package let config: String

    package struct Config: Encodable {
        package let key: String
        package let revealsAt: String
        package let revealed: Bool
    }
}
