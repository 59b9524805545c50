import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// `/account/devices`: the app passwords a phone's backup app or a computer's file manager opens the library over
/// WebDAV with — made (the password shown this once), listed with their last use, revoked — and the settings to
/// type into those apps.
package struct DevicePages {
    package let appPasswords: AppPasswordService
    /// `https://HOST/dav/`, the address the apps are given.
    package let davAddress: String

    package init(appPasswords: AppPasswordService, davAddress: String) {
        self.appPasswords = appPasswords
        self.davAddress = davAddress
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/account/devices", use: page)
        router.post("/account/devices", use: create)
        router.post("/account/devices/:device/revoke", use: revoke)
    }

    private static let toLogin = WebRequest.redirect("/login?next=/account/devices")

    @Sendable package func page(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard case .user(let user, _) = context.identity else { return Self.toLogin }
        let web = WebRequest(request, context: context)
        let notice = request.uri.queryParameters.get("done") == "revoked" ? web.t("devices_revoked") : nil
        return try await render(web, user: user, notice: notice)
    }

    @Sendable package func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard case .user(let user, _) = context.identity else { return Self.toLogin }
        let web = WebRequest(request, context: context)
        let form = try await WebForm.read(request)
        do {
            let made = try await appPasswords.create(
                AppPasswordInput(name: form["name"] ?? "", currentPassword: form["currentPassword"]), for: user, client: context.clientAddress)
            // Rendered, not redirected to: the password must not be kept in an address or the history.
            return try await render(web, user: user, made: made)
        } catch let problem as Problem {
            return try await render(web, user: user, error: web.problemMessage(problem), status: problem.status)
        }
    }

    @Sendable package func revoke(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard case .user(let user, _) = context.identity else { return Self.toLogin }
        do {
            try await appPasswords.revoke(try context.parameters.require("device"), for: user)
            return WebRequest.redirect("/account/devices?done=revoked")
        } catch let problem as Problem {
            let web = WebRequest(request, context: context)
            return try await render(web, user: user, error: web.problemMessage(problem), status: problem.status)
        }
    }

    private func render(
        _ web: WebRequest, user: User, made: NewAppPasswordJSON? = nil, notice: String? = nil, error: String? = nil,
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let passwords = try await appPasswords.list(for: user).map { password in
            DevicesPage.Password(
                id: password.id, name: password.name, created: web.time(password.createdAt), lastUsed: password.lastUsedAt.map(web.time),
                lastAddress: password.lastUsedAddress)
        }
        return web.page(
            "devices", title: web.t("devices_title"),
            model: DevicesPage(
                davAddress: davAddress, email: user.email, made: made.map { .init(name: $0.name, password: $0.password) },
                passwords: passwords, hasPasswords: !passwords.isEmpty, asksPassword: try await appPasswords.accounts.hasPassword(user),
                full: passwords.count >= AppPasswordService.limit,
                notice: notice, error: error),
            status: status)
    }
}

package struct DevicesPage: Sendable {
    package struct Password: Sendable {
        package let id: String
        package let name: String
        package let created: TimeText
        package let lastUsed: TimeText?
        package let lastAddress: String?
    }

    package struct Made: Sendable {
        package let name: String
        package let password: String

        package init(name: String, password: String) {
            self.name = name
            self.password = password
        }
    }

    package let davAddress: String
    package let email: String
    /// The password just made: shown this once.
    package let made: Made?
    package let passwords: [Password]
    package let hasPasswords: Bool
    /// The account's password is asked before a new one is made (an account with none is not asked).
    package let asksPassword: Bool
    /// The account has as many as it may.
    package let full: Bool
    package let notice: String?
    package let error: String?
}
