import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// `/support`: the contact form (SUP-2), for anyone; and the admin's answers from the panel.
package struct SupportPages {
    package let support: SupportService

    package init(support: SupportService) {
        self.support = support
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/support", use: form)
        router.post("/support", use: send)
        router.post("/admin/tickets/:id", use: update)
    }

    @Sendable package func form(_ request: Request, context: AppRequestContext) async throws -> Response {
        let web = WebRequest(request, context: context)
        return web.page("support", title: web.t("support_title"), model: SupportPage(email: web.user?.email ?? ""))
    }

    @Sendable package func send(_ request: Request, context: AppRequestContext) async throws -> Response {
        let web = WebRequest(request, context: context)
        let form = try await WebForm.read(request)
        do {
            _ = try await support.open(
                NewTicketRequest(email: form["email"], subject: form["subject"], message: form["message"]), from: context.identity,
                client: context.clientAddress)
            return web.page("support", title: web.t("support_title"), model: SupportPage(sent: true))
        } catch let problem as Problem {
            return web.page(
                "support", title: web.t("support_title"),
                model: SupportPage(
                    email: form["email"] ?? "", subject: form["subject"] ?? "", message: form["message"] ?? "", error: web.problemMessage(problem)),
                status: problem.status)
        }
    }

    /// The panel's answer and close buttons.
    @Sendable package func update(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard case .user(let user, _) = context.identity else { return WebRequest.redirect("/login?next=/admin") }
        let web = WebRequest(request, context: context)
        guard user.isAdmin else { return web.errorPage(status: .forbidden, titleKey: "admin_only_title", messageKey: "admin_only_message") }
        let form = try await WebForm.read(request)
        let answer = form["answer"].flatMap { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : $0 }
        do {
            _ = try await support.update(try context.parameters.require("id"), with: TicketPatch(status: form["status"], answer: answer))
            return WebRequest.redirect("/admin?done=ticket#tickets")
        } catch let problem as Problem {
            return web.errorPage(
                status: problem.status, titleKey: "support_failed_title", messageKey: "support_failed_message",
                values: ["reason": web.problemMessage(problem)])
        }
    }
}

package struct SupportPage: Sendable {
    package var sent = false
    package var email = ""
    package var subject = ""
    package var message = ""
    package var error: String? = nil
}
