import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// JN-5 in the pages: a guest's personal link and its QR code, the confirmation a second phone opens, and
/// stopping the link.
extension GuestPages {
    /// JN-5: a personal link and its QR code, to carry on with the same name and shots on another phone.
    @Sendable package func continueElsewhere(_ request: Request, context: AppRequestContext) async throws -> Response {
        let web = WebRequest(request, context: context)
        let raw = try context.parameters.require("code")
        let (event, membership): (Event, Membership?)
        switch try await lookUp(request, context: context, web: web, code: raw) {
        case .answer(let response): return response
        case .event(let found, let place): (event, membership) = (found, place)
        }
        guard let membership, let guest = membership.guest, EventAccess(membership.role).isGuest else {
            return WebRequest.redirect("/e/\(event.code)")
        }
        let view = EventView(event: event, role: .guest, guest: guest, now: events.clock.now, links: events.links, web: web)
        let query = request.uri.queryParameters
        let name = ContinuePage.NameForm(
            current: guest.name, saved: query.get("renamed") != nil, error: query.get("name") == "invalid" ? web.t("name_invalid") : nil)
        if case .user = context.identity {
            return web.page("continue", title: event.name, model: ContinuePage(event: view, signedIn: true, name: name))
        }
        if query.get("stopped") != nil {
            var response = web.page("continue", title: event.name, model: ContinuePage(event: view, signedIn: false, stopped: true, name: name))
            for cookie in membership.cookies { response.setCookie(cookie) }
            return response
        }
        let link = try await joining.personalLink(for: guest)
        let qr = try QRCode(link.url).svg(size: 280)
        var response = web.page(
            "continue", title: event.name,
            model: ContinuePage(
                event: view, signedIn: false, link: link.url, qrSVG: qr, expiresAt: web.time(link.expiresAt), guestName: guest.name,
                name: name))
        for cookie in membership.cookies { response.setCookie(cookie) }
        return response
    }

    /// "Stop this link": the guest changed their mind, or showed the code to the wrong person.
    @Sendable package func stopPersonalLink(_ request: Request, context: AppRequestContext) async throws -> Response {
        let raw = try context.parameters.require("code")
        let (event, membership) = try await membership(request, context: context, code: raw)
        guard let event, let membership, let guest = membership.guest, EventAccess(membership.role).isGuest else { return WebRequest.redirect("/") }
        try await joining.revokePersonalLink(of: guest)
        return WebRequest.redirect("/e/\(event.code)/continue?stopped=1", cookies: membership.cookies)
    }

    /// Opening a personal link on the second phone: who it signs in as, and a button to go on. Nothing changes
    /// until the button (a POST): a link opened by a preview bot or by someone signed in does not swap sessions.
    @Sendable package func confirmLink(_ request: Request, context: AppRequestContext) async throws -> Response {
        let web = WebRequest(request, context: context)
        let token = try context.parameters.require("token")
        guard let guest = try await joining.guest(ofPersonalLink: token), let event = try await events.find(id: guest.eventID) else {
            return web.errorPage(status: .notFound, titleKey: "error_link_used_title", messageKey: "error_link_used_message")
        }
        var signedInAs: String? = nil
        if case .user(let user, _) = context.identity { signedInAs = user.name }
        return web.page(
            "redeem", title: event.name, model: RedeemPage(token: token, eventName: event.name, guestName: guest.name, signedInAs: signedInAs))
    }

    /// The confirmation's button: the link is used up and this browser becomes the guest.
    @Sendable package func redeemLink(_ request: Request, context: AppRequestContext) async throws -> Response {
        let web = WebRequest(request, context: context)
        guard let (token, guest) = try await joining.redeem(personalLink: try context.parameters.require("token")),
            let event = try await events.find(id: guest.eventID)
        else {
            return web.errorPage(status: .notFound, titleKey: "error_link_used_title", messageKey: "error_link_used_message")
        }
        return WebRequest.redirect(
            "/e/\(event.code)",
            cookies: [
                SessionCookie.make(token, secure: secure), JoinedEvents(request).adding(token).cookie(secure: secure),
            ])
    }

    /// A guest corrects the name they joined under: everything they posted shows the new one.
    @Sendable package func rename(_ request: Request, context: AppRequestContext) async throws -> Response {
        let raw = try context.parameters.require("code")
        let (event, membership) = try await membership(request, context: context, code: raw)
        guard let event, let membership, let guest = membership.guest, EventAccess(membership.role).isGuest else { return WebRequest.redirect("/") }
        let form = try await WebForm.read(request)
        do {
            _ = try await joining.rename(guest, to: form["name"])
        } catch let problem as Problem where problem.status == .unprocessableContent {
            return WebRequest.redirect("/e/\(event.code)/continue?name=invalid#your-name", cookies: membership.cookies)
        }
        return WebRequest.redirect("/e/\(event.code)/continue?renamed=1#your-name", cookies: membership.cookies)
    }
}
