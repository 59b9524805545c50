import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// The pages guests use: home, join by QR or code, camera, galleries, wall, leaving, a second phone.
package struct GuestPages {
    package let events: EventService
    package let joining: JoinService
    package let walls: VenueWall
    /// Whether the home page offers to create an account (only while registration is open).
    package let registrationOpen: @Sendable () async throws -> Bool
    package let secure: Bool

    package init(
        events: EventService, joining: JoinService, walls: VenueWall, registrationOpen: @escaping @Sendable () async throws -> Bool, secure: Bool
    ) {
        self.events = events
        self.joining = joining
        self.walls = walls
        self.registrationOpen = registrationOpen
        self.secure = secure
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/", use: home)
        router.get("/join", use: joinByCode)
        router.get("/e/:code", use: event)
        router.post("/e/:code/join", use: join)
        router.get("/e/:code/camera", use: camera)
        router.get("/e/:code/mine", use: mine)
        router.get("/e/:code/recap", use: recap)
        router.get("/e/:code/wall", use: wall)
        router.get("/e/:code/continue", use: continueElsewhere)
        router.post("/e/:code/continue/stop", use: stopPersonalLink)
        router.post("/e/:code/leave", use: leave)
        router.post("/e/:code/name", use: rename)
        router.get("/c/:token", use: confirmLink)
        router.post("/c/:token", use: redeemLink)
    }

    @Sendable package func home(_ request: Request, context: AppRequestContext) async throws -> Response {
        let web = WebRequest(request, context: context)
        let joined = try await joinedEvents(request, web: web)
        let page = HomePage(
            joined: joined, hasJoined: !joined.isEmpty, left: request.uri.queryParameters.get("left") != nil,
            typedCode: String((request.uri.queryParameters.get("code") ?? "").prefix(20)),
            codeError: request.uri.queryParameters.get("error") == "code" ? web.t("join_code_invalid") : nil,
            registrationOpen: try await registrationOpen())
        return web.page("home", title: web.t("app_name"), model: page)
    }

    /// EV-4: the events this browser joined and can still open.
    private func joinedEvents(_ request: Request, web: WebRequest) async throws -> [HomePage.Joined] {
        var list: [HomePage.Joined] = []
        for (_, guest) in try await joining.memberships(JoinedEvents(request).tokens) {
            guard let event = try await events.find(id: guest.eventID) else { continue }
            let status = event.status(at: events.clock.now)
            list.append(
                HomePage.Joined(
                    name: event.name, code: event.code.description, guestName: guest.name,
                    statusText: web.t("status_\(status.rawValue)"), endsAt: web.time(event.endsAt)))
        }
        return list
    }

    /// The home page's "type the code" form (JN-2).
    @Sendable package func joinByCode(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let raw = request.uri.queryParameters.get("code"), let code = EventCode(typed: raw) else {
            // Back to the form with what was typed, to correct rather than type again.
            let typed = String((request.uri.queryParameters.get("code") ?? "").prefix(20))
            let kept = typed.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            return WebRequest.redirect("/?error=code&code=\(kept)#join")
        }
        return WebRequest.redirect("/e/\(code)")
    }

    /// Who the caller is in this event, switching the session to a joined guest of it when the browser has one.
    package struct Membership {
        package let event: Event
        package let role: EventRole
        package let guest: Guest?
        package var cookies: [Cookie] = []
    }

    /// The event and the caller's place in it. Members and the organizer never meet the guess limiter; for
    /// anyone else the page reveals whether the code exists, so it goes through it (unless the QR link's key
    /// is in the address) and throws 429 when the address has guessed too much.
    package func membership(_ request: Request, context: AppRequestContext, code raw: String) async throws -> (Event?, Membership?) {
        var found: Event? = nil
        if let code = EventCode(typed: raw) { found = try await events.event(code: code) }
        if let event = found, let membership = try await membership(request, context: context, in: event) { return (event, membership) }
        let event = try await joining.admit(found, key: request.uri.queryParameters.get("k"), client: context.clientAddress)
        return (event, nil)
    }

    private func membership(_ request: Request, context: AppRequestContext, in event: Event) async throws -> Membership? {
        switch context.identity {
        case .user(let user, _):
            if try await events.organizes(event, userID: user.id) { return Membership(event: event, role: .organizer, guest: nil) }
            return try await joining.guest(of: context.identity, in: event.id).map { Membership(event: event, role: .guest, guest: $0) }
        case .guest(let guest, _) where guest.eventID == event.id:
            return Membership(event: event, role: .guest, guest: guest)
        case .guest, nil:
            for (token, guest) in try await joining.memberships(JoinedEvents(request).tokens) where guest.eventID == event.id {
                return Membership(event: event, role: .guest, guest: guest, cookies: [SessionCookie.make(token, secure: secure)])
            }
            return nil
        }
    }

    /// An event page's lookup: the event and the caller's place in it, or the page to answer instead.
    package enum Lookup {
        case event(Event, Membership?)
        case answer(Response)
    }

    package func lookUp(_ request: Request, context: AppRequestContext, web: WebRequest, code raw: String) async throws -> Lookup {
        do {
            let (event, membership) = try await membership(request, context: context, code: raw)
            guard let event else { return .answer(unknownEvent(web)) }
            return .event(event, membership)
        } catch let problem as Problem where problem.status == .tooManyRequests {
            return .answer(tooManyGuesses(web))
        }
    }

    private func tooManyGuesses(_ web: WebRequest) -> Response {
        web.errorPage(status: .tooManyRequests, titleKey: "error_too_many_title", messageKey: "error_too_many_message")
    }

    private func unknownEvent(_ web: WebRequest) -> Response {
        web.errorPage(status: .notFound, titleKey: "error_unknown_event_title", messageKey: "error_unknown_event_message")
    }

    /// `/e/CODE`, the QR code's target: the join form, or the gallery for those who joined.
    @Sendable package func event(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await memberPage(request, context: context, template: "gallery", tabs: .init(tabAll: true))
    }

    @Sendable package func mine(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await memberPage(request, context: context, template: "gallery", tabs: .init(tabMine: true, mine: true))
    }

    /// CAP-1: the best photos as a slideshow and a collage (the page asks the API whether it is ready).
    @Sendable package func recap(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await memberPage(request, context: context, template: "recap", tabs: .init(tabAll: true))
    }

    @Sendable package func camera(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await memberPage(
            request, context: context, template: "camera",
            tabs: .init(tabCamera: true, welcome: request.uri.queryParameters.get("welcome") != nil))
    }

    /// The organizer's way to the venue wall: its link (made on first use), which opens on screens that are
    /// not signed in too. Guests have the gallery.
    @Sendable package func wall(_ request: Request, context: AppRequestContext) async throws -> Response {
        let web = WebRequest(request, context: context)
        switch try await lookUp(request, context: context, web: web, code: try context.parameters.require("code")) {
        case .answer(let response):
            return response
        case .event(let event, let membership):
            guard let membership, EventAccess(membership.role).organizes else { return WebRequest.redirect("/e/\(event.code)") }
            return WebRequest.redirect(try await walls.link(eventID: event.id, for: context.identity))
        }
    }

    private func memberPage(_ request: Request, context: AppRequestContext, template: String, tabs: EventPage.Tabs) async throws -> Response {
        let web = WebRequest(request, context: context)
        let raw = try context.parameters.require("code")
        let (event, membership): (Event, Membership?)
        switch try await lookUp(request, context: context, web: web, code: raw) {
        case .answer(let response): return response
        case .event(let found, let place): (event, membership) = (found, place)
        }
        guard let membership else {
            if template != "gallery" || tabs.mine { return WebRequest.redirect("/e/\(event.code)") }
            return joinForm(web, event: event, key: request.uri.queryParameters.get("k"), name: "", error: nil, status: .ok)
        }
        let view = EventView(event: event, role: membership.role, guest: membership.guest, now: events.clock.now, links: events.links, web: web)
        var response = web.page(template, title: event.name, model: EventPage(event: view, tabs: tabs))
        for cookie in membership.cookies { response.setCookie(cookie) }
        return response
    }

    private func joinForm(
        _ web: WebRequest, event: Event, key: String?, name: String, error: String?, status: HTTPResponse.Status
    ) -> Response {
        let page = JoinPage(
            event: .init(
                name: event.name, code: event.code.description, hasPassword: event.passwordHash != nil,
                statusText: web.t("status_\(event.status(at: events.clock.now).rawValue)"),
                isEnded: event.status(at: events.clock.now) == .ended,
                description: event.description.isEmpty ? nil : event.description),
            key: event.opens(withKey: key) ? key : nil, name: name, termsVersion: TermsOfUse.version, error: error)
        return web.page("join", title: event.name, model: page, status: status)
    }

    /// The join form's submission (JN-1): name, terms, password → a guest session, then the camera.
    @Sendable package func join(_ request: Request, context: AppRequestContext) async throws -> Response {
        let web = WebRequest(request, context: context)
        let raw = try context.parameters.require("code")
        let form = try await WebForm.read(request)
        let key = form["key"]
        let found: Event?
        do {
            found = try await joining.lookUp(code: raw, key: key, client: context.clientAddress)
        } catch let problem as Problem where problem.status == .tooManyRequests {
            return tooManyGuesses(web)
        }
        guard let event = found else { return unknownEvent(web) }
        guard form["terms"] == TermsOfUse.version else {
            return joinForm(
                web, event: event, key: key, name: form["name"] ?? "", error: web.t("join_terms_required"), status: .unprocessableContent)
        }
        let joined: JoinService.Joined
        do {
            // Back under the same name in a browser that left: the same guest.
            let setAside = JoinedEvents.left(request)
            if let back = try await joining.comeBack(to: event, name: form["name"], setAside: setAside.tokens) {
                return WebRequest.redirect(
                    "/e/\(event.code)/camera",
                    cookies: [
                        JoinedEvents(request).adding(back.token).cookie(secure: secure), setAside.removing(back.token).cookie(secure: secure),
                        SessionCookie.make(back.token, secure: secure),
                    ])
            }
            joined = try await joining.join(
                code: raw, key: key, name: form["name"], password: form["password"], termsVersion: TermsOfUse.version,
                identity: context.identity, client: context.clientAddress)
        } catch let problem as Problem {
            if problem.status == .tooManyRequests {
                return tooManyGuesses(web)
            }
            if problem.slug == "unknown-code" { return unknownEvent(web) }
            return joinForm(web, event: event, key: key, name: form["name"] ?? "", error: web.problemMessage(problem), status: problem.status)
        }
        var cookies = [JoinedEvents(request).adding(joined.token).cookie(secure: secure)]
        if case .user = context.identity {} else { cookies.append(SessionCookie.make(joined.token, secure: secure)) }
        return WebRequest.redirect("/e/\(event.code)/camera?welcome=1", cookies: cookies)
    }

    /// JN-3: leave the event. On this phone (the default): this browser forgets the event and sets its token
    /// aside; the guest keeps their place and shots, on their other phones too. On every phone (`everywhere`):
    /// the place is freed and every other phone signed out. Either way the photos stay, and this browser may
    /// come back as the same guest under the same name.
    @Sendable package func leave(_ request: Request, context: AppRequestContext) async throws -> Response {
        let raw = try context.parameters.require("code")
        let form = try await WebForm.read(request)
        let (_, membership) = try await membership(request, context: context, code: raw)
        guard let membership, EventAccess(membership.role).isGuest, let guest = membership.guest else { return WebRequest.redirect("/") }
        let joined = JoinedEvents(request)
        let own = try await joining.memberships(joined.tokens).first { $0.guest.id == guest.id }?.token
        if guest.userID != nil || form["everywhere"] == "true" {
            try await joining.leave(guest, keepingTokenHash: own.map(SecretToken.hash))
        }
        var cookies = [joined.removing(own ?? "").cookie(secure: secure)]
        if let own { cookies.append(JoinedEvents.left(request).adding(own).cookie(secure: secure)) }
        if case .guest = context.identity { cookies.append(SessionCookie.make("", secure: secure)) }
        return WebRequest.redirect("/?left=1", cookies: cookies)
    }
}

extension WebRequest {
    /// A problem in the reader's language when the catalogue has it, else its English sentence.
    package func problemMessage(_ problem: Problem) -> String {
        if let text = strings["problem_\(problem.slug)"] { return text }
        // The API names its fields for developers ("(shotsPerGuest)"); a page's reader sees the field itself.
        let detail = problem.extensions["field"].map { problem.detail.replacingOccurrences(of: " (\($0))", with: "") } ?? problem.detail
        if problem.slug == "invalid-field", let field = problem.extensions["field"], language != .en,
            let label = strings["field_\(field)"]
        {
            return t("problem_invalid_field_named", ["field": label]) + " (\(detail))"
        }
        return detail
    }
}
