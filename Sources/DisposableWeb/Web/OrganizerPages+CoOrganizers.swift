import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// ORG-5 in the pages: the organizers on the event's page, an invitation link, removing or leaving, and the page an
/// invitation opens in the co-organizer's browser.
extension OrganizerPages {
    package func addCoOrganizerRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.post("/events/:id/co-organizers/invite", use: inviteCoOrganizer)
        router.post("/events/:id/co-organizers/:organizer/remove", use: removeCoOrganizer)
        router.get("/co-organize/:token", use: invitation)
        router.post("/co-organize/:token", use: acceptInvitation)
    }

    package func organizersView(
        _ web: WebRequest, event: Event, invitation: CoOrganizerInvitation?, welcome: Bool, context: AppRequestContext
    ) async throws -> ManagePage.Organizers {
        let list = try await events.organizers(eventID: event.id, for: context.identity)
        let isOwner = events.isOwner(of: event, context.identity)
        let me = if case .user(let user, _) = context.identity { user.id } else { "" }
        let owner = ManagePage.Organizers.Person(
            id: list.owner.userId, name: list.owner.name, face: Face(name: list.owner.name, url: nil), isOwner: true,
            isMe: list.owner.userId == me, removable: false, confirm: "")
        let others = list.items.map { person in
            ManagePage.Organizers.Person(
                id: person.userId, name: person.name, face: Face(name: person.name, url: nil), isOwner: false, isMe: person.userId == me,
                removable: isOwner || person.userId == me,
                confirm: person.userId == me
                    ? web.t("organizers_leave_confirm", ["name": event.name]) : web.t("organizers_remove_confirm", ["name": person.name]))
        }
        return ManagePage.Organizers(
            isOwner: isOwner, people: [owner] + others, welcome: welcome && !isOwner ? web.t("organizers_welcome", ["name": list.owner.name]) : nil,
            invitationURL: invitation?.url,
            invitationExpires: invitation.map { web.time($0.expiresAt).text })
    }

    package func ownerOnlyPage(_ web: WebRequest) -> Response {
        web.errorPage(status: .forbidden, titleKey: "error_owner_only_title", messageKey: "error_owner_only_message")
    }

    @Sendable package func inviteCoOrganizer(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (found, failure) = try await organized(request, context: context)
        guard let event = found else { return failure! }
        let web = WebRequest(request, context: context)
        guard events.isOwner(of: event, context.identity) else { return ownerOnlyPage(web) }
        let invitation = try await events.inviteCoOrganizer(eventID: event.id, by: context.identity)
        return try await managePage(
            web, event: event, form: EventForm(web: web, event: event), error: nil, saved: false, created: false, invitation: invitation,
            context: context)
    }

    @Sendable package func removeCoOrganizer(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (found, failure) = try await organized(request, context: context)
        guard let event = found else { return failure! }
        let userID = try context.parameters.require("organizer")
        do {
            try await events.removeCoOrganizer(eventID: event.id, userID: userID, by: context.identity)
        } catch let problem as Problem where problem.status == .forbidden {
            return ownerOnlyPage(WebRequest(request, context: context))
        }
        if case .user(let user, _) = context.identity, user.id == userID { return WebRequest.redirect("/events") }
        return WebRequest.redirect("/events/\(event.id)#organizers")
    }

    /// What an invitation link opens: whose event, and a button; nothing changes until the button (a POST), so a
    /// link opened by a preview bot makes nobody an organizer.
    @Sendable package func invitation(_ request: Request, context: AppRequestContext) async throws -> Response {
        let web = WebRequest(request, context: context)
        let token = try context.parameters.require("token")
        guard let event = try await events.coOrganizerInvitation(token: token),
            let owner = try await events.ownerName(of: event)
        else {
            return web.errorPage(status: .notFound, titleKey: "error_invitation_used_title", messageKey: "error_invitation_used_message")
        }
        if case .user(let user, _) = context.identity, user.id == event.organizerID { return WebRequest.redirect("/events/\(event.id)") }
        var signedInAs: String? = nil
        if case .user(let user, _) = context.identity { signedInAs = user.name }
        let back = "/co-organize/\(token)"
        return web.page(
            "co-organize", title: event.name,
            model: CoOrganizeInvitationPage(
                token: token, eventName: event.name, ownerName: owner, signedInAs: signedInAs, loginURL: "/login?next=\(back)",
                registerURL: "/register?next=\(back)"))
    }

    @Sendable package func acceptInvitation(_ request: Request, context: AppRequestContext) async throws -> Response {
        let web = WebRequest(request, context: context)
        let token = try context.parameters.require("token")
        guard case .user = context.identity else { return WebRequest.redirect("/login?next=/co-organize/\(token)") }
        do {
            let event = try await events.acceptCoOrganizerInvitation(token: token, by: context.identity)
            return WebRequest.redirect("/events/\(event.id)?welcome=1")
        } catch let problem as Problem where problem.status == .notFound {
            return web.errorPage(status: .notFound, titleKey: "error_invitation_used_title", messageKey: "error_invitation_used_message")
        } catch let problem as Problem where problem.status == .conflict {
            return web.errorPage(status: .conflict, titleKey: "error_invitation_refused_title", messageKey: "error_invitation_refused_message")
        }
    }
}
