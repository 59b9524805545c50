import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// `/my-data` (SUP-4): what is stored about me, the export, and erasing it — for an account or a guest.
package struct MyDataPages {
    package let myData: MyDataService
    /// The other events this browser joined as a guest (each one its own guest).
    package let joining: JoinService
    package let secure: Bool

    package init(myData: MyDataService, joining: JoinService, secure: Bool) {
        self.myData = myData
        self.joining = joining
        self.secure = secure
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/my-data", use: page)
        router.post("/my-data/delete", use: erase)
    }

    @Sendable package func page(_ request: Request, context: AppRequestContext) async throws -> Response {
        let web = WebRequest(request, context: context)
        guard context.identity != nil else { return web.page("my-data", title: web.t("mydata_title"), model: MyDataPage.nothing) }
        let (data, _) = try await myData.collect(for: context.identity)
        let done = request.uri.queryParameters.get("done") == "deleted"
        var model = MyDataPage(web: web, data: data, notice: done ? web.t("mydata_photos_deleted") : nil)
        if case .guest(let current, _) = context.identity {
            model.otherEvents = try await otherEvents(request, web: web, besides: current)
        }
        return web.page("my-data", title: web.t("mydata_title"), model: model)
    }

    /// A guest of several events in this browser is a guest in each: each is listed, with a way to its own data
    /// (opening the event makes this browser that guest).
    private func otherEvents(_ request: Request, web: WebRequest, besides current: Guest) async throws -> [MyDataPage.OtherEvent] {
        var found: [MyDataPage.OtherEvent] = []
        for (token, guest) in try await joining.memberships(JoinedEvents(request).tokens) where guest.id != current.id {
            let (data, _) = try await myData.collect(for: .guest(guest, tokenHash: SecretToken.hash(token)))
            guard let membership = data.guest, let code = try await joining.event(of: guest)?.code else { continue }
            found.append(
                .init(
                    text: web.t("mydata_guest", ["name": membership.name, "event": membership.eventName, "date": web.dateTime(membership.joinedAt)])
                        + " · " + web.plural("mydata_photos", data.photos.count),
                    link: "/e/\(code)"))
        }
        return found
    }

    @Sendable package func erase(_ request: Request, context: AppRequestContext) async throws -> Response {
        let web = WebRequest(request, context: context)
        guard let identity = context.identity else { return WebRequest.redirect("/my-data") }
        let form = try await WebForm.read(request)
        do {
            if case .guest = identity, form["confirm"] != "on" {
                throw Problem.invalidField("confirm", web.t("mydata_guest_confirm_missing"))
            }
            try await myData.erase(for: identity, confirmEmail: form["confirmEmail"])
        } catch let problem as Problem {
            let (data, _) = try await myData.collect(for: identity)
            var model = MyDataPage(web: web, data: data, notice: nil)
            model.error = web.problemMessage(problem)
            return web.page("my-data", title: web.t("mydata_title"), model: model, status: problem.status)
        }
        if case .user = identity {
            // The account is gone: the goodbye page has the signed-out menu.
            var signedOut = context
            signedOut.identity = nil
            let goodbye = WebRequest(request, context: signedOut)
            var response = goodbye.page("my-data", title: web.t("mydata_title"), model: MyDataPage.erased(goodbye))
            response.setCookie(SessionCookie.make("", secure: secure))
            return response
        }
        return WebRequest.redirect("/my-data?done=deleted")
    }
}

package struct MyDataPage: Sendable {
    package var signedIn = true
    package var isUser = false
    package var facts: [String] = []
    package var notice: String? = nil
    package var error: String? = nil
    package var erased = false
    /// The other events this browser is a guest of.
    package var otherEvents: [OtherEvent] = []

    package struct OtherEvent: Sendable {
        package let text: String
        package let link: String
    }

    package static let nothing = MyDataPage(signedIn: false)

    package static func erased(_ web: WebRequest) -> MyDataPage {
        MyDataPage(signedIn: false, notice: web.t("mydata_account_deleted"), erased: true)
    }

    package init(signedIn: Bool = true, notice: String? = nil, erased: Bool = false) {
        self.signedIn = signedIn
        self.notice = notice
        self.erased = erased
    }

    package init(web: WebRequest, data: MyData, notice: String?) {
        self.notice = notice
        isUser = data.kind == "user"
        if let account = data.account {
            facts.append(web.t("mydata_account", ["name": account.name, "email": account.email, "date": web.dateTime(account.createdAt)]))
            facts.append(web.t("mydata_storage", ["used": web.size(account.usedBytes), "allowed": web.size(account.quotaBytes)]))
            facts.append(web.plural("mydata_events", data.events.count))
            facts.append(web.plural("mydata_memberships", data.memberships.count))
            facts.append(web.plural("mydata_sessions", data.sessions.count))
            facts.append(web.plural("mydata_tickets", data.tickets.count))
        }
        if let guest = data.guest {
            facts.append(web.t("mydata_guest", ["name": guest.name, "event": guest.eventName, "date": web.dateTime(guest.joinedAt)]))
            if let version = guest.termsVersion, let accepted = guest.termsAcceptedAt {
                facts.append(web.t("mydata_terms", ["version": version, "date": web.dateTime(accepted)]))
            }
        }
        facts.append(web.plural("mydata_photos", data.photos.count))
        if isUser { facts.append(web.plural("mydata_library", data.library.count)) }
    }
}
