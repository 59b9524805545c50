import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// CAP-2 pages: `/capsules` — the countdown to the next capsule and the history of past ones — and
/// `/capsules/{yyyy-mm}`, one capsule to look at, enlarge, share, and edit (`capsule.js`, through the API).
package struct CapsulePages {
    package let capsules: CapsuleService

    package init(capsules: CapsuleService) {
        self.capsules = capsules
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/capsules", use: history)
        router.get("/capsules/:month", use: capsule)
    }

    @Sendable package func history(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard case .user(let user, _) = context.identity else { return WebRequest.redirect("/login?next=/capsules") }
        let web = WebRequest(request, context: context)
        let list = try await capsules.list(for: user)
        let items = list.items.map { capsule in
            let month = CapsuleMonth(capsule.month)!
            return CapsulesView.Item(
                month: capsule.month, title: web.monthName(month), quote: capsule.quote ?? web.capsuleQuote(month),
                thumbnails: capsule.photos.prefix(4).map(\.urls.thumbnail), count: web.plural("capsules_photos", capsule.photos.count))
        }
        let coming = CapsuleMonth(containing: list.nextCapsuleAt - 1, in: TimeZone(identifier: list.timeZone) ?? .gmt)
        return web.page(
            "capsules", title: web.t("capsules_title"),
            model: CapsulesView(
                next: web.time(list.nextCapsuleAt),
                nextLead: web.t("capsules_next_lead", ["month": web.monthName(coming, title: false), "date": web.date(list.nextCapsuleAt)]),
                items: items, hasItems: !items.isEmpty))
    }

    @Sendable package func capsule(_ request: Request, context: AppRequestContext) async throws -> Response {
        let raw = try context.parameters.require("month")
        guard case .user(let user, _) = context.identity else {
            return WebRequest.redirect("/login?next=/capsules" + (CapsuleMonth(raw).map { "/" + $0.text } ?? ""))
        }
        let web = WebRequest(request, context: context)
        let capsule: CapsuleJSON
        do {
            capsule = try await capsules.capsule(raw, for: user)
        } catch let problem as Problem where problem.status == .notFound {
            return web.errorPage(status: .notFound, titleKey: "capsule_not_found_title", messageKey: "capsule_not_found")
        }
        let month = CapsuleMonth(capsule.month)!
        let title = web.monthName(month)
        return web.page(
            "capsule", title: title,
            model: CapsuleView(
                month: capsule.month, title: title, quote: capsule.quote ?? web.capsuleQuote(month), ownQuote: capsule.quote ?? "",
                songTitle: capsule.song?.title, songArtist: capsule.song?.artist, clipURL: capsule.clipURL,
                photos: capsule.photos.enumerated().map { index, photo in
                    CapsuleView.Photo(
                        id: photo.id, index: index, thumbnail: photo.urls.thumbnail, preview: photo.urls.preview,
                        alt: web.t("capsule_photo_alt", ["date": web.date(photo.takenAt)]),
                        earlierYear: photo.month.hasPrefix("\(month.year)-") ? nil : String(photo.month.prefix(4)))
                },
                moments: (capsule.moments ?? []).map { CapsuleView.Moment(text: $0.text, date: web.time($0.createdAt)) },
                hasMoments: capsule.moments?.isEmpty == false,
                count: capsule.photos.count, collageURL: capsule.collageURL, released: web.time(capsule.releasedAt),
                shareable: month == (try await capsules.lastMonth(for: user)), shared: capsule.sharedAt != nil))
    }
}

/// The history page: when the next capsule comes, and the past ones, newest first.
package struct CapsulesView: Sendable {
    package struct Item: Sendable {
        package let month: String
        package let title: String
        package let quote: String
        package let thumbnails: [String]
        package let count: String
    }

    package let next: TimeText
    package let nextLead: String
    package let items: [Item]
    package let hasItems: Bool
}

/// One capsule, and what its edit form starts from.
package struct CapsuleView: Sendable {
    package struct Photo: Sendable {
        package let id: String
        package let index: Int
        package let thumbnail: String
        package let preview: String
        package let alt: String
        /// "2019": a photo of the same month in an earlier year, filling a quiet month.
        package let earlierYear: String?

        package init(id: String, index: Int, thumbnail: String, preview: String, alt: String, earlierYear: String?) {
            self.id = id
            self.index = index
            self.thumbnail = thumbnail
            self.preview = preview
            self.alt = alt
            self.earlierYear = earlierYear
        }
    }

    package struct Moment: Sendable {
        package let text: String
        package let date: TimeText
    }

    package let month: String
    package let title: String
    /// What shows: the owner's words, or the app's line for the month.
    package let quote: String
    /// The owner's own words, for the form (empty when none).
    package let ownQuote: String
    package let songTitle: String?
    package let songArtist: String?
    /// The song's clip, played from the page.
    package let clipURL: String?
    package let photos: [Photo]
    /// The month's moments, oldest first.
    package let moments: [Moment]
    /// Read by the template (computed properties are not seen there).
    package let hasMoments: Bool
    package let count: Int
    package let collageURL: String?
    package let released: TimeText
    /// Last month's: it may go on the Story Board.
    package let shareable: Bool
    package let shared: Bool
}
