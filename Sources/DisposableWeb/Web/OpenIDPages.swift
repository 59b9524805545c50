import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// The browser's side of "Sign in with OpenID Connect": the button's form sends the browser to the
/// provider with a `state` cookie scoped to `/login/openid`, and the provider sends it back to the callback, which
/// signs in (or links, when it started from My account). Calls `OpenIDService`, which owns the rules.
package struct OpenIDPages {
    package let openID: OpenIDService
    package let secure: Bool

    package init(openID: OpenIDService, secure: Bool) {
        self.openID = openID
        self.secure = secure
    }

    package static let stateCookie = "disposable_openid"

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.post("/login/openid", use: signIn)
        router.get("/login/openid/callback", use: callback)
        router.post("/account/openid/link", use: link)
        router.post("/account/openid/unlink", use: unlink)
    }

    /// The state, HttpOnly, for ten minutes, sent back only to the callback. `Lax`: the provider's redirect is a
    /// top-level navigation from another site, which Lax lets through and `Strict` would not.
    private func cookie(_ state: String) -> Cookie {
        Cookie(
            name: Self.stateCookie, value: state, maxAge: state.isEmpty ? 0 : Int(OpenIDService.attemptLifetime), path: "/login/openid",
            secure: secure, httpOnly: true, sameSite: .lax)
    }

    @Sendable package func signIn(_ request: Request, context: AppRequestContext) async throws -> Response {
        let form = try await WebForm.read(request)
        let next = LocalPath.safe(form["next"]) ?? "/events"
        do {
            let start = try await openID.start(next: next, client: context.clientAddress)
            return WebRequest.redirect(start.url, cookies: [cookie(start.state)])
        } catch let problem as Problem {
            return failed(problem, request, context, next: next)
        }
    }

    @Sendable package func link(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard case .user(let user, _) = context.identity else { return WebRequest.redirect("/login?next=/account") }
        do {
            let start = try await openID.start(next: "/account", linking: user, client: context.clientAddress)
            return WebRequest.redirect(start.url, cookies: [cookie(start.state)])
        } catch let problem as Problem {
            return WebRequest.redirect("/account?failed=\(problem.slug)")
        }
    }

    @Sendable package func unlink(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard case .user(let user, _) = context.identity else { return WebRequest.redirect("/login?next=/account") }
        do {
            try await openID.unlink(user)
            return WebRequest.redirect("/account?done=openid-unlinked")
        } catch let problem as Problem {
            return WebRequest.redirect("/account?failed=\(problem.slug)")
        }
    }

    @Sendable package func callback(_ request: Request, context: AppRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        var current: User? = nil
        if case .user(let user, _) = context.identity { current = user }
        do {
            let outcome = try await openID.finish(
                state: query.get("state"), cookieState: request.cookies[Self.stateCookie]?.value, code: query.get("code"), error: query.get("error"),
                current: current, continuing: context.identity, client: context.clientAddress,
                device: DeviceName.from(userAgent: request.headers[.userAgent]))
            switch outcome {
            case .signedIn(let token, let next):
                return WebRequest.redirect(next, cookies: [cookie(""), SessionCookie.make(token, secure: secure)])
            case .linked:
                return WebRequest.redirect("/account?done=openid-linked", cookies: [cookie("")])
            }
        } catch let problem as Problem {
            // Someone signed in was linking: My account says what went wrong; else the sign-in page does.
            if current != nil { return WebRequest.redirect("/account?failed=\(problem.slug)", cookies: [cookie("")]) }
            var response = failed(problem, request, context, next: "/events")
            response.setCookie(cookie(""))
            return response
        }
    }

    /// The sign-in page, saying what went wrong.
    private func failed(_ problem: Problem, _ request: Request, _ context: AppRequestContext, next: String) -> Response {
        let web = WebRequest(request, context: context)
        return web.page(
            "login", title: web.t("login_title"),
            model: LoginPage(
                next: next, error: web.problemMessage(problem), openID: LoginPage.button(openID.settings, web), passwords: !openID.settings.only),
            status: problem.status)
    }
}
