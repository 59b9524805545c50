import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// `/account`, the profile page: name, picture, username and appearance (light, dark or the device's), the password,
/// the sessions — device, last seen — with signing out the others (ADM-3), and links to what
/// lives here. Calls the services, like the API.
package struct AccountPages {
    package let accounts: AccountService
    package let profiles: ProfileService
    /// The capsule's song from a Maloja server.
    package let scrobblers: ScrobblerService
    /// Linking a scrobbler fills the songs of capsules that came out without one.
    package let capsules: CapsuleService
    /// The phones notices go to.
    package let push: PushService
    /// Sign in with an OpenID Connect provider, when the instance has one.
    package let openID: OpenIDService?

    package init(
        accounts: AccountService, profiles: ProfileService, scrobblers: ScrobblerService, capsules: CapsuleService, push: PushService,
        openID: OpenIDService?
    ) {
        self.accounts = accounts
        self.profiles = profiles
        self.scrobblers = scrobblers
        self.capsules = capsules
        self.push = push
        self.openID = openID
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/account", use: page)
        router.post("/account/password", use: changePassword)
        router.post("/account/name", use: rename)
        router.post("/account/username", use: setUsername)
        router.post("/account/appearance", use: setAppearance)
        router.post("/account/time-zone", use: setTimeZone)
        router.post("/account/scrobbler", use: linkScrobbler)
        router.post("/account/scrobbler/unlink", use: unlinkScrobbler)
        router.post("/account/push-kinds", use: setPushKinds)
        router.post("/account/push/:device/remove", use: removePushDevice)
        router.post("/account/sessions/:session/end", use: endSession)
        router.post("/account/sessions/end-others", use: endOthers)
    }

    private func signedIn(_ context: AppRequestContext) -> (User, String)? {
        guard case .user(let user, let hash) = context.identity else { return nil }
        return (user, hash)
    }

    private static let toLogin = WebRequest.redirect("/login?next=/account")

    @Sendable package func page(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let (user, hash) = signedIn(context) else { return Self.toLogin }
        let done = request.uri.queryParameters.get("done")
        let notice = [
            "password": "account_password_changed", "ended": "account_session_ended", "others": "account_others_ended", "name": "account_name_saved",
            "username": "account_username_saved", "appearance": "account_appearance_saved",
            "time-zone": "account_time_zone_saved", "scrobbler": "account_music_linked", "scrobbler-unlinked": "account_music_unlinked",
            "push": "account_push_saved", "push-removed": "account_push_removed", "openid-linked": "account_openid_linked_done",
            "openid-unlinked": "account_openid_unlinked_done",
        ][done ?? ""]
        let web = WebRequest(request, context: context)
        // A link to the provider that did not work (OpenIDPages): said in the reader's words, or a general sentence.
        let failed = request.uri.queryParameters.get("failed").flatMap { slug in
            slug.count <= 40 && slug.allSatisfy({ $0.isLowercase || $0 == "-" })
                ? web.problemMessage(Problem(.badRequest, slug, title: "", detail: web.t("account_openid_failed"))) : nil
        }
        return try await render(web, user: user, current: hash, notice: notice, error: failed)
    }

    /// "Safari on iPhone" as `DeviceName` stores it, in the reader's language ("Safari sur iPhone").
    package static func device(_ stored: String, _ web: WebRequest) -> String {
        guard let range = stored.range(of: " on ") else { return stored }
        return web.t("account_device", ["browser": String(stored[..<range.lowerBound]), "system": String(stored[range.upperBound...])])
    }

    private func render(
        _ web: WebRequest, user: User, current: String, notice: String?, error: String? = nil, status: HTTPResponse.Status = .ok,
        music: (url: String, error: String)? = nil
    ) async throws -> Response {
        let sessions = try await accounts.sessions(of: user, current: current).map { session in
            AccountPage.Session(
                id: session.id, device: session.device.map { Self.device($0, web) } ?? web.t("account_unknown_device"),
                since: web.time(session.createdAt),
                lastSeen: web.time(session.lastSeenAt), current: session.current)
        }
        let pushSettings = try? await push.settings(for: .user(user.id))
        let openIDStatus = try await openID?.status(of: user)
        return web.page(
            "account", title: web.t("account_title"),
            model: AccountPage(
                name: user.name, email: user.email, avatarURL: try await profiles.avatarURL(of: user.id), username: user.username,
                appearances: ["system", "light", "dark"].map {
                    AccountPage.Choice(value: $0, label: web.t("appearance_\($0)"), checked: $0 == (user.appearance?.rawValue ?? "system"))
                },
                timeZones: [AccountPage.Choice(value: "", label: web.t("account_time_zone_device"), checked: user.timeZone == nil)]
                    + Self.zones(keeping: user.timeZone).map { AccountPage.Choice(value: $0, label: $0, checked: $0 == user.timeZone) },
                scrobblerURL: try? await scrobblers.linked(for: user).url, musicURL: music?.url, musicError: music?.error,
                pushKinds: pushSettings.map { settings in
                    PushSubscriptions.allKinds.map {
                        AccountPage.Choice(value: $0, label: web.t("push_kind_\($0)"), checked: settings.kinds.contains($0))
                    }
                } ?? [],
                pushDevices: (pushSettings?.devices ?? []).map {
                    AccountPage.Device(id: $0.id, name: $0.device ?? web.t("account_unknown_device"), since: web.time($0.createdAt))
                },
                hasPushDevices: pushSettings?.devices.isEmpty == false,
                hasPassword: try await accounts.hasPassword(user),
                openID: openIDStatus.map {
                    AccountPage.OpenID(
                        label: $0.buttonLabel ?? web.t("openid_button"), linked: $0.linked, providerEmail: $0.email, canUnlink: $0.hasPassword)
                },
                notice: notice.map { web.t($0) },
                error: error, sessions: sessions,
                hasOthers: sessions.contains { !$0.current }),
            status: status)
    }

    @Sendable package func changePassword(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let (user, hash) = signedIn(context) else { return Self.toLogin }
        let web = WebRequest(request, context: context)
        let form = try await WebForm.read(request)
        guard form["newPassword"] == form["confirmation"] else {
            return try await render(web, user: user, current: hash, notice: nil, error: web.t("reset_mismatch"), status: .unprocessableContent)
        }
        do {
            try await accounts.changePassword(
                of: user, current: form["currentPassword"], new: form["newPassword"], keeping: hash,
                revokingAppPasswords: form["revokeAppPasswords"] != nil, client: context.clientAddress)
            return WebRequest.redirect("/account?done=password")
        } catch let problem as Problem {
            return try await render(web, user: user, current: hash, notice: nil, error: web.problemMessage(problem), status: problem.status)
        }
    }

    @Sendable package func rename(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await saveProfile(request, context, done: "name") { user, form in try await profiles.rename(user, to: form["name"]) }
    }

    @Sendable package func setUsername(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await saveProfile(request, context, done: "username") { user, form in try await profiles.setUsername(of: user, to: form["username"]) }
    }

    @Sendable package func setAppearance(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await saveProfile(request, context, done: "appearance") { user, form in
            try await profiles.setAppearance(of: user, to: form["appearance"] ?? "")
        }
    }

    /// The zones to choose from, with the account's own even when it is not among them (`Etc/UTC`, set by a browser).
    private static func zones(keeping own: String?) -> [String] {
        guard let own, !ProfileService.timeZones.contains(own) else { return ProfileService.timeZones }
        return [own] + ProfileService.timeZones
    }

    @Sendable package func setTimeZone(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await saveProfile(request, context, done: "time-zone") { user, form in
            let zone = form["timeZone"] ?? ""
            try await profiles.setTimeZone(of: user, to: zone.isEmpty ? nil : zone)
        }
    }

    /// One of the profile's forms: saved, then back to the page with its notice; a refusal shown on the page.
    private func saveProfile(
        _ request: Request, _ context: AppRequestContext, done: String, _ save: (User, WebForm) async throws -> Void
    ) async throws -> Response {
        guard let (user, hash) = signedIn(context) else { return Self.toLogin }
        let form = try await WebForm.read(request)
        do {
            try await save(user, form)
            return WebRequest.redirect("/account?done=\(done)")
        } catch let problem as Problem {
            let web = WebRequest(request, context: context)
            return try await render(web, user: user, current: hash, notice: nil, error: web.problemMessage(problem), status: problem.status)
        }
    }

    /// A refusal (a wrong key, an address that does not answer) is said beside the form, the address kept in it.
    @Sendable package func linkScrobbler(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let (user, hash) = signedIn(context) else { return Self.toLogin }
        let form = try await WebForm.read(request)
        let url = form["url"] ?? ""
        do {
            _ = try await capsules.linkScrobbler(ScrobblerInput(url: url, apiKey: form["apiKey"] ?? ""), for: user)
            return WebRequest.redirect("/account?done=scrobbler#music")
        } catch let problem as Problem {
            let web = WebRequest(request, context: context)
            return try await render(
                web, user: user, current: hash, notice: nil, status: problem.status, music: (url, web.problemMessage(problem)))
        }
    }

    @Sendable package func unlinkScrobbler(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await saveProfile(request, context, done: "scrobbler-unlinked") { user, _ in try await scrobblers.unlink(for: user) }
    }

    @Sendable package func setPushKinds(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await saveProfile(request, context, done: "push") { user, form in
            _ = try await push.setKinds(PushSubscriptions.allKinds.filter { form.isOn("kind-\($0)") }, for: user)
        }
    }

    @Sendable package func removePushDevice(_ request: Request, context: AppRequestContext) async throws -> Response {
        let device = try context.parameters.require("device")
        return try await saveProfile(request, context, done: "push-removed") { user, _ in try await push.remove(device, for: .user(user.id)) }
    }

    @Sendable package func endSession(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let (user, hash) = signedIn(context) else { return Self.toLogin }
        do {
            try await accounts.endSession(try context.parameters.require("session"), of: user)
            return WebRequest.redirect("/account?done=ended#sessions")
        } catch let problem as Problem {
            let web = WebRequest(request, context: context)
            return try await render(web, user: user, current: hash, notice: nil, error: web.problemMessage(problem), status: problem.status)
        }
    }

    @Sendable package func endOthers(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let (user, hash) = signedIn(context) else { return Self.toLogin }
        try await accounts.endOtherSessions(of: user, keeping: hash)
        return WebRequest.redirect("/account?done=others#sessions")
    }
}

package struct AccountPage: Sendable {
    package struct Session: Sendable {
        package let id: String
        package let device: String
        package let since: TimeText
        package let lastSeen: TimeText
        package let current: Bool
    }

    package struct Device: Sendable {
        package let id: String
        package let name: String
        package let since: TimeText
    }

    package struct OpenID: Sendable {
        package let label: String
        package let linked: Bool
        package let providerEmail: String?
        /// An account the provider opened has no password: unlinking would lock it.
        package let canUnlink: Bool
    }

    package struct Choice: Sendable {
        package let value: String
        package let label: String
        package let checked: Bool
    }

    package let name: String
    package let email: String
    package let avatarURL: String?
    package let username: String?
    package let appearances: [Choice]
    /// "This device's" first, then every zone this server knows.
    package let timeZones: [Choice]
    /// The linked Maloja server's address.
    package let scrobblerURL: String?
    /// A link refused: what was typed, kept, and why, said beside the form.
    package var musicURL: String? = nil
    package var musicError: String? = nil
    /// Which notices go to the phones, and the phones.
    package let pushKinds: [Choice]
    package let pushDevices: [Device]
    package let hasPushDevices: Bool
    /// False for an account its OpenID provider opened: it chooses a password without a current one.
    package let hasPassword: Bool
    package let openID: OpenID?
    package let notice: String?
    package let error: String?
    package let sessions: [Session]
    package let hasOthers: Bool
}
