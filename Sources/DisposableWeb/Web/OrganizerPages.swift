import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// The organizer's pages: accounts, the dashboard, creating and running an event (ORG-1..4).
package struct OrganizerPages {
    package let accounts: AccountService
    package let events: EventService
    package let gallery: GalleryService
    package let guests: EventGuests
    package let walls: VenueWall
    package let secure: Bool
    /// Sign in with an OpenID Connect provider, when one is set.
    package let openID: OpenIDSettings?

    package init(
        accounts: AccountService, events: EventService, gallery: GalleryService, guests: EventGuests, walls: VenueWall, secure: Bool,
        openID: OpenIDSettings?
    ) {
        self.accounts = accounts
        self.events = events
        self.gallery = gallery
        self.guests = guests
        self.walls = walls
        self.secure = secure
        self.openID = openID
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/login", use: loginForm)
        router.post("/login", use: login)
        router.post("/logout", use: logout)
        router.get("/events", use: dashboard)
        router.get("/events/new", use: newEventForm)
        router.post("/events/new", use: createEvent)
        router.get("/events/:id", use: manage)
        router.post("/events/:id/settings", use: saveSettings)
        router.post("/events/:id/end", use: end)
        router.post("/events/:id/delete", use: delete)
        router.get("/events/:id/card", use: card)
        router.post("/events/:id/guests/:guest/remove", use: removeGuest)
        router.post("/events/:id/wall", use: newWallLink)
        router.post("/events/:id/wall/off", use: turnOffWall)
        addCoOrganizerRoutes(to: router)
    }

    /// Only local paths: `next` must not send anyone to another site.
    private func nextPath(_ raw: String?) -> String {
        LocalPath.safe(raw) ?? "/events"
    }

    // MARK: Accounts

    @Sendable package func loginForm(_ request: Request, context: AppRequestContext) async throws -> Response {
        let web = WebRequest(request, context: context)
        let reset = request.uri.queryParameters.get("reset") != nil
        return web.page(
            "login", title: web.t("login_title"),
            model: LoginPage(
                next: nextPath(request.uri.queryParameters.get("next")), notice: reset ? web.t("reset_done") : nil,
                openID: LoginPage.button(openID, web), passwords: openID?.only != true))
    }

    @Sendable package func login(_ request: Request, context: AppRequestContext) async throws -> Response {
        let web = WebRequest(request, context: context)
        let form = try await WebForm.read(request)
        do {
            let (token, _) = try await accounts.signIn(
                email: form["email"], password: form["password"], client: context.clientAddress,
                device: DeviceName.from(userAgent: request.headers[.userAgent]), continuing: context.identity)
            return WebRequest.redirect(nextPath(form["next"]), cookies: [SessionCookie.make(token, secure: secure)])
        } catch let problem as Problem {
            return web.page(
                "login", title: web.t("login_title"),
                model: LoginPage(
                    next: nextPath(form["next"]), email: form["email"] ?? "", error: web.problemMessage(problem),
                    openID: LoginPage.button(openID, web), passwords: openID?.only != true),
                status: problem.status)
        }
    }

    @Sendable package func logout(_ request: Request, context: AppRequestContext) async throws -> Response {
        if let identity = context.identity { try await accounts.signOut(identity) }
        return WebRequest.redirect("/", cookies: [SessionCookie.make("", secure: secure)])
    }

    // MARK: Dashboard and creation

    package func signedIn(_ request: Request, context: AppRequestContext) -> (User?, Response?) {
        if case .user(let user, _) = context.identity { return (user, nil) }
        let target = request.uri.path
        return (nil, WebRequest.redirect("/login?next=\(target.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? "/events")"))
    }

    @Sendable package func dashboard(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (user, redirect) = signedIn(request, context: context)
        guard let user, let identity = context.identity else { return redirect! }
        let web = WebRequest(request, context: context)
        let now = events.clock.now
        let listed = try await events.list(for: user)
        var items: [String: DashboardPage.Item] = [:]
        for (event, role) in listed {
            let status = event.status(at: now)
            let newest = try await gallery.newest(in: event, role: role, identity: identity, limit: 6)
            items[event.id] = DashboardPage.Item(
                id: event.id, name: event.name, code: event.code.description, statusText: web.t("status_\(status.rawValue)"),
                status: status.rawValue, startsAt: web.time(event.startsAt), guests: web.plural("guest_count", event.guestCount),
                isOrganizer: EventAccess(role).organizes, thumbnails: newest.map { DashboardPage.Thumbnail(url: $0.thumbnail) },
                hasThumbnails: !newest.isEmpty, photosLabel: web.t("dashboard_see_photos", ["name": event.name]))
        }
        let active = listed.map(\.0).filter { $0.status(at: now) != .ended }.compactMap { items[$0.id] }
        let past = listed.map(\.0).filter { $0.status(at: now) == .ended }.compactMap { items[$0.id] }
        let usage = try await accounts.usage(of: user)
        let storage = usage.map { usage in
            let percent = usage.allowed > 0 ? Int(min(100, usage.used * 100 / usage.allowed)) : 100
            return DashboardPage.Storage(
                text: web.t(
                    "dashboard_storage", ["used": web.size(usage.used), "allowed": web.size(usage.allowed), "percent": "\(percent)"]),
                percent: percent, nearlyFull: usage.nearlyFull)
        }
        return web.page(
            "dashboard", title: web.t("dashboard_title"),
            model: DashboardPage(active: active, past: past, hasActive: !active.isEmpty, hasPast: !past.isEmpty, storage: storage))
    }

    @Sendable package func newEventForm(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (user, redirect) = signedIn(request, context: context)
        guard user != nil else { return redirect! }
        let web = WebRequest(request, context: context)
        let now = events.clock.now
        let form = EventForm(
            web: web,
            values: [
                "startsAt": web.localInputValue(now), "endsAt": web.localInputValue(now + TimeInterval(EventRules.defaultDurationHours) * 3600),
                "shotsPerGuest": "\(EventRules.defaultShotsPerGuest)", "revealMode": "now", "allowLibraryUploads": "on",
                "allowGuestDownloads": "on",
            ], locked: false)
        return web.page("event-new", title: web.t("create_title"), model: NewEventPage(form: form.view(error: nil)))
    }

    @Sendable package func createEvent(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (user, redirect) = signedIn(request, context: context)
        guard let user else { return redirect! }
        let web = WebRequest(request, context: context)
        let submitted = try await WebForm.read(request)
        let form = EventForm(web: web, values: submitted.values, locked: false)
        do {
            let event = try await events.create(try form.input(comparedTo: nil), by: user)
            return WebRequest.redirect("/events/\(event.id)?created=1")
        } catch let problem as Problem {
            return web.page("event-new", title: web.t("create_title"), model: NewEventPage(form: form.view(error: problem)), status: problem.status)
        }
    }

    // MARK: One event

    package func organized(_ request: Request, context: AppRequestContext) async throws -> (Event?, Response?) {
        let (user, redirect) = signedIn(request, context: context)
        guard user != nil else { return (nil, redirect) }
        let web = WebRequest(request, context: context)
        do {
            return (try await events.organizedEvent(try context.parameters.require("id"), for: context.identity), nil)
        } catch let problem as Problem {
            if problem.status == .forbidden {
                return (nil, web.errorPage(status: .forbidden, titleKey: "error_organizer_only_title", messageKey: "error_organizer_only_message"))
            }
            return (nil, web.errorPage(status: .notFound, titleKey: "error_unknown_event_title", messageKey: "error_unknown_event_message"))
        }
    }

    @Sendable package func manage(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (found, failure) = try await organized(request, context: context)
        guard let event = found else { return failure! }
        let web = WebRequest(request, context: context)
        let query = request.uri.queryParameters
        return try await managePage(
            web, event: event, form: EventForm(web: web, event: event), error: nil, saved: query.get("saved") != nil,
            created: query.get("created") != nil, removed: query.get("removed") != nil, welcome: query.get("welcome") != nil, context: context)
    }

    package func managePage(
        _ web: WebRequest, event: Event, form: EventForm, error: Problem?, saved: Bool, created: Bool, removed: Bool = false,
        invitation: CoOrganizerInvitation? = nil, welcome: Bool = false, status: HTTPResponse.Status = .ok, context: AppRequestContext
    ) async throws -> Response {
        let roster = try await guests.list(eventID: event.id, for: context.identity).items.map { guest in
            ManagePage.Guest(
                id: guest.id, name: guest.name, photosText: web.plural("photo_count", guest.photos),
                confirm: web.t("manage_guest_remove_confirm", ["name": guest.name]), face: Face(name: guest.name, url: guest.avatarURL))
        }
        var view = EventView(event: event, role: .organizer, guest: nil, now: events.clock.now, links: events.links, web: web)
        view.shareText = web.t("share_text", ["name": event.name, "code": event.code.description, "link": events.links.join(event)])
        view.wallURL = event.wallKey.map(walls.url)
        // The guide is for the owner's first event; a co-organizer arrives at someone else's.
        let firstEvent = event.hasPhotos || !events.isOwner(of: event, context.identity) ? false : try await isOnlyEvent(event, of: context.identity)
        return web.page(
            "event-manage", title: event.name,
            model: ManagePage(
                event: view, form: form.view(error: error), saved: saved, created: created, guests: roster, hasGuests: !roster.isEmpty,
                removed: removed, firstEvent: firstEvent,
                organizers: try await organizersView(web, event: event, invitation: invitation, welcome: welcome, context: context)),
            status: status)
    }

    private func isOnlyEvent(_ event: Event, of identity: Identity?) async throws -> Bool {
        guard let identity else { return false }
        let organized = try await events.list(for: identity).filter { $0.1 == .organizer }
        return organized.count == 1 && organized.first?.0.id == event.id
    }

    @Sendable package func saveSettings(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (found, failure) = try await organized(request, context: context)
        guard let event = found else { return failure! }
        let web = WebRequest(request, context: context)
        let submitted = try await WebForm.read(request)
        let form = EventForm(web: web, values: submitted.values, locked: event.hasPhotos)
        do {
            _ = try await events.update(event, with: try form.input(comparedTo: event))
            return WebRequest.redirect("/events/\(event.id)?saved=1#settings")
        } catch let problem as Problem {
            return try await managePage(
                web, event: event, form: form, error: problem, saved: false, created: false, status: problem.status, context: context)
        }
    }

    @Sendable package func end(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (found, failure) = try await organized(request, context: context)
        guard let event = found else { return failure! }
        _ = try await events.end(event)
        return WebRequest.redirect("/events/\(event.id)")
    }

    @Sendable package func delete(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (found, failure) = try await organized(request, context: context)
        guard let event = found else { return failure! }
        guard events.isOwner(of: event, context.identity) else { return ownerOnlyPage(WebRequest(request, context: context)) }
        let form = try await WebForm.read(request)
        guard DeletionConfirmation.matches(typed: form["confirm"], name: event.name) else {
            let web = WebRequest(request, context: context)
            // What was typed stays in the field, to be corrected rather than typed again.
            let shown = EventForm(web: web, event: event)
            return try await managePage(
                web, event: event,
                form: EventForm(web: web, values: shown.values.merging(["confirm": form["confirm"] ?? ""]) { $1 }, locked: shown.locked),
                error: Problem.invalidField("confirm", web.t("delete_confirm_mismatch")), saved: false, created: false,
                status: .unprocessableContent, context: context)
        }
        try await events.delete(event)
        return WebRequest.redirect("/events")
    }

    /// ORG-3: the guest leaves the event now, with their photos if the box was ticked.
    @Sendable package func removeGuest(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (found, failure) = try await organized(request, context: context)
        guard let event = found else { return failure! }
        let form = try await WebForm.read(request)
        do {
            try await guests.remove(
                guestID: try context.parameters.require("guest"), eventID: event.id, withPhotos: form["photos"] == "true", for: context.identity)
        } catch let problem as Problem where problem.status == .notFound {
            // Removed from another tab meanwhile: the list shows how things stand.
        }
        return WebRequest.redirect("/events/\(event.id)?removed=1#guests")
    }

    /// GAL-5: a wall link, or a new one in place of the old (which stops working on every screen).
    @Sendable package func newWallLink(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (found, failure) = try await organized(request, context: context)
        guard let event = found else { return failure! }
        _ = try await walls.link(eventID: event.id, for: context.identity, renew: true)
        return WebRequest.redirect("/events/\(event.id)#wall")
    }

    @Sendable package func turnOffWall(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (found, failure) = try await organized(request, context: context)
        guard let event = found else { return failure! }
        try await walls.turnOff(eventID: event.id, for: context.identity)
        return WebRequest.redirect("/events/\(event.id)#wall")
    }

    /// QR-3: a printable table card, A6 or A5.
    @Sendable package func card(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (found, failure) = try await organized(request, context: context)
        guard let event = found else { return failure! }
        let web = WebRequest(request, context: context)
        let a5 = request.uri.queryParameters.get("size") == "a5"
        let qr = try QRCode(events.links.join(event)).svg(size: a5 ? 900 : 600)
        return web.page(
            "card", title: event.name,
            model: CardPage(
                event: .init(id: event.id, name: event.name, code: event.code.description, joinURL: events.links.typed(event.code)), qrSVG: qr,
                pageSize: a5 ? "A5" : "A6", sheetStylesheet: web.resources.assetURLs[a5 ? "card_a5_css" : "card_a6_css"] ?? ""))
    }
}
