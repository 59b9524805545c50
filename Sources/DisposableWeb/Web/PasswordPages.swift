import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// "Forgot password?" and the reset link's page (ADM-3, P-I-110), over `PasswordResetService`.
package struct PasswordPages {
    package let resets: PasswordResetService

    package init(resets: PasswordResetService) {
        self.resets = resets
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/forgot", use: forgotForm)
        router.post("/forgot", use: forgot)
        router.get("/reset/:token", use: resetForm)
        router.post("/reset/:token", use: reset)
    }

    @Sendable package func forgotForm(_ request: Request, context: AppRequestContext) async throws -> Response {
        let web = WebRequest(request, context: context)
        return web.page("forgot", title: web.t("forgot_title"), model: ForgotPage(sent: false, email: "", error: nil))
    }

    /// The same answer whether or not the account exists.
    @Sendable package func forgot(_ request: Request, context: AppRequestContext) async throws -> Response {
        let web = WebRequest(request, context: context)
        let form = try await WebForm.read(request)
        do {
            try await resets.request(email: form["email"], client: context.clientAddress, language: web.language.rawValue)
            return web.page("forgot", title: web.t("forgot_title"), model: ForgotPage(sent: true, email: "", error: nil))
        } catch let problem as Problem {
            return web.page(
                "forgot", title: web.t("forgot_title"),
                model: ForgotPage(sent: false, email: form["email"] ?? "", error: web.problemMessage(problem)),
                status: problem.status)
        }
    }

    @Sendable package func resetForm(_ request: Request, context: AppRequestContext) async throws -> Response {
        let web = WebRequest(request, context: context)
        let token = try context.parameters.require("token")
        guard try await resets.isValid(token: token) else {
            return web.errorPage(status: .notFound, titleKey: "reset_expired_title", messageKey: "reset_expired_message")
        }
        return web.page("reset", title: web.t("reset_title"), model: ResetPage(token: token, error: nil))
    }

    @Sendable package func reset(_ request: Request, context: AppRequestContext) async throws -> Response {
        let web = WebRequest(request, context: context)
        let token = try context.parameters.require("token")
        let form = try await WebForm.read(request)
        guard form["password"] == form["confirmation"] else {
            return web.page(
                "reset", title: web.t("reset_title"), model: ResetPage(token: token, error: web.t("reset_mismatch")), status: .unprocessableContent)
        }
        do {
            try await resets.reset(token: token, password: form["password"])
            return WebRequest.redirect("/login?reset=1")
        } catch let problem as Problem {
            if problem.slug == "reset-link-expired" {
                return web.errorPage(status: .notFound, titleKey: "reset_expired_title", messageKey: "reset_expired_message")
            }
            return web.page(
                "reset", title: web.t("reset_title"), model: ResetPage(token: token, error: web.problemMessage(problem)), status: problem.status)
        }
    }
}

package struct ForgotPage: Sendable {
    package let sent: Bool
    package let email: String
    package let error: String?
}

package struct ResetPage: Sendable {
    package let token: String
    package let error: String?
}
