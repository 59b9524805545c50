import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// Registering (ADM-3) and, with a mail server, the mailed link's page, over `SignUpService`.
package struct SignUpPages {
    package let signUps: SignUpService
    package let accounts: AccountService
    package let secure: Bool
    /// The OpenID Connect provider's button; with `only`, the password form is hidden.
    package let openID: OpenIDSettings?

    package init(signUps: SignUpService, accounts: AccountService, secure: Bool, openID: OpenIDSettings?) {
        self.signUps = signUps
        self.accounts = accounts
        self.secure = secure
        self.openID = openID
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/register", use: registerForm)
        router.post("/register", use: register)
        router.get("/register/confirm/:token", use: confirmForm)
        router.post("/register/confirm/:token", use: confirm)
    }

    @Sendable package func registerForm(_ request: Request, context: AppRequestContext) async throws -> Response {
        let web = WebRequest(request, context: context)
        guard try await accounts.registrationEnabled() else { return closed(web) }
        return web.page(
            "register", title: web.t("register_title"), model: model(web, error: nil, next: request.uri.queryParameters.get("next")))
    }

    @Sendable package func register(_ request: Request, context: AppRequestContext) async throws -> Response {
        let web = WebRequest(request, context: context)
        guard try await accounts.registrationEnabled() else { return closed(web) }
        let form = try await WebForm.read(request)
        // An organizer accepts the terms and privacy notice, versioned, as guests do.
        guard form["terms"] == TermsOfUse.version else {
            return web.page(
                "register", title: web.t("register_title"),
                model: model(web, email: form["email"], name: form["name"], error: web.t("register_terms_required"), next: form["next"]),
                status: .unprocessableContent)
        }
        do {
            switch try await signUps.register(
                email: form["email"], password: form["password"], name: form["name"], termsVersion: TermsOfUse.version, client: context.clientAddress,
                language: web.language.rawValue)
            {
            case .created(let user):
                return try await signIn(user, request, context, next: form["next"])
            case .confirmationSent:
                return web.page("register", title: web.t("register_title"), model: model(web, error: nil, sent: true))
            }
        } catch let problem as Problem {
            return web.page(
                "register", title: web.t("register_title"),
                model: model(web, email: form["email"], name: form["name"], error: web.problemMessage(problem), next: form["next"]),
                status: problem.status)
        }
    }

    /// A page with one button: mail scanners open links, and opening one must not make the account.
    @Sendable package func confirmForm(_ request: Request, context: AppRequestContext) async throws -> Response {
        let web = WebRequest(request, context: context)
        let token = try context.parameters.require("token")
        guard try await signUps.isValid(token: token) else { return expired(web) }
        return web.page("register-confirm", title: web.t("register_confirm_title"), model: ConfirmSignUpPage(token: token, error: nil))
    }

    @Sendable package func confirm(_ request: Request, context: AppRequestContext) async throws -> Response {
        let web = WebRequest(request, context: context)
        let token = try context.parameters.require("token")
        do {
            return try await signIn(try await signUps.confirm(token: token), request, context)
        } catch let problem as Problem {
            if problem.slug == SignUpService.expired.slug { return expired(web) }
            return web.page(
                "register-confirm", title: web.t("register_confirm_title"),
                model: ConfirmSignUpPage(token: token, error: web.problemMessage(problem)), status: problem.status)
        }
    }

    /// Signs the new account in and goes on to `next` (a local path only: an invitation to co-organize), else to the events.
    /// A guest who signs up goes on as that guest (`AccountService.keepGuest`).
    private func signIn(_ user: User, _ request: Request, _ context: AppRequestContext, next: String? = nil) async throws -> Response {
        let token = try await accounts.session(
            for: user, device: DeviceName.from(userAgent: request.headers[.userAgent]), continuing: context.identity)
        return WebRequest.redirect(LocalPath.safe(next) ?? "/events", cookies: [SessionCookie.make(token, secure: secure)])
    }

    private func model(
        _ web: WebRequest, email: String? = nil, name: String? = nil, error: String?, sent: Bool = false, next: String? = nil
    ) -> RegisterPage {
        RegisterPage(
            email: email ?? "", name: name ?? "", error: error, sent: sent, openID: LoginPage.button(openID, web), passwords: openID?.only != true,
            next: LocalPath.safe(next) ?? "/events")
    }

    private func closed(_ web: WebRequest) -> Response {
        web.errorPage(status: .forbidden, titleKey: "register_closed_title", messageKey: "register_closed_message")
    }

    private func expired(_ web: WebRequest) -> Response {
        web.errorPage(status: .notFound, titleKey: "register_expired_title", messageKey: "register_expired_message")
    }
}

package struct RegisterPage: Sendable {
    package let email: String
    package let name: String
    package let error: String?
    /// With a mail server: the form is done, the link is on its way.
    package let sent: Bool
    package let openID: OpenIDButton?
    package let passwords: Bool
    /// Where the new account goes once signed in.
    package let next: String
    package let termsVersion = TermsOfUse.version
}

package struct ConfirmSignUpPage: Sendable {
    package let token: String
    package let error: String?
}
