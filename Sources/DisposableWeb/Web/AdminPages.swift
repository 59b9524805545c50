import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// The admin panel (ADM-4..6, P-I-220/230): the instance's numbers, its switches, its accounts with their quotas
/// and used space, adding and deleting accounts, and the deletion records. Calls `AdminService`, like the API.
package struct AdminPages {
    package let admin: AdminService
    package let resets: PasswordResetService
    package let support: SupportService
    package let clientErrors: ClientErrorService
    package let deletion: EventDeletion
    package let untrustedProxy: UntrustedProxyNotice

    package init(
        admin: AdminService, resets: PasswordResetService, support: SupportService, clientErrors: ClientErrorService, deletion: EventDeletion,
        untrustedProxy: UntrustedProxyNotice
    ) {
        self.admin = admin
        self.resets = resets
        self.support = support
        self.clientErrors = clientErrors
        self.deletion = deletion
        self.untrustedProxy = untrustedProxy
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/admin", use: panel)
        router.post("/admin/settings", use: saveSettings)
        router.post("/admin/users", use: addUser)
        router.post("/admin/users/:id/quota", use: changeQuota)
        router.post("/admin/users/:id/delete", use: deleteUser)
        router.post("/admin/users/:id/reset-link", use: resetLink)
    }

    /// The admin, or the page to show instead: sign in first, or "admins only".
    private func signedInAdmin(_ request: Request, context: AppRequestContext) -> (User?, Response?) {
        guard case .user(let user, _) = context.identity else {
            return (nil, WebRequest.redirect("/login?next=/admin"))
        }
        guard user.isAdmin else {
            return (
                nil,
                WebRequest(request, context: context).errorPage(status: .forbidden, titleKey: "admin_only_title", messageKey: "admin_only_message")
            )
        }
        return (user, nil)
    }

    @Sendable package func panel(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (user, refusal) = signedInAdmin(request, context: context)
        guard let me = user else { return refusal! }
        let query = request.uri.queryParameters
        return try await page(
            WebRequest(request, context: context), me: me, notice: query.get("done").flatMap(AdminPage.notice), cursor: query.get("after"))
    }

    private func page(
        _ web: WebRequest, me: User, notice: String? = nil, refused problem: Problem? = nil, cursor: String? = nil, form: [String: String] = [:],
        resetLink: AdminPage.ResetLink? = nil
    ) async throws -> Response {
        let stats = try await admin.stats()
        let settings = try await admin.settings()
        let users = try await admin.users(after: cursor.flatMap { $0.utf8.count <= 320 ? $0 : nil })
        let records = try await deletion.newestRecords(limit: 20)
        let tickets = try await support.tickets(status: "open")
        // Closed tickets stay on record, the latest first.
        let closed = try await support.tickets(status: "closed").prefix(AdminPage.closedTicketsShown)
        let model = AdminPage(
            web: web, me: me.id, stats: stats, settings: settings, users: users, records: records, notice: notice.map { web.t($0) },
            error: problem.map(web.problemMessage),
            form: form, resetLink: resetLink, tickets: tickets, closedTickets: Array(closed), canAnswer: support.mailer != nil,
            proxyWarning: untrustedProxy.wasSeen ? web.t("admin_proxy_warning") : nil, clientErrors: try await clientErrors.recent())
        return web.page("admin", title: web.t("admin_title"), model: model, status: problem?.status ?? .ok)
    }

    @Sendable package func saveSettings(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (user, refusal) = signedInAdmin(request, context: context)
        guard let me = user else { return refusal! }
        let web = WebRequest(request, context: context)
        let form = try await WebForm.read(request)
        do {
            var patch = InstanceSettingsJSON(registrationEnabled: nil, defaultQuotaBytes: nil)
            if let registration = form["registration"] { patch.registrationEnabled = registration == "on" }
            if let quota = form["defaultQuotaGB"] { patch.defaultQuotaBytes = try AdminPage.bytes(gigabytes: quota, field: "defaultQuotaBytes") }
            _ = try await admin.update(settings: patch)
            return WebRequest.redirect("/admin?done=settings#settings")
        } catch let problem as Problem {
            return try await page(web, me: me, refused: problem)
        }
    }

    @Sendable package func addUser(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (user, refusal) = signedInAdmin(request, context: context)
        guard let me = user else { return refusal! }
        let web = WebRequest(request, context: context)
        let form = try await WebForm.read(request)
        do {
            let quota = try form["quotaGB"].flatMap { $0.isEmpty ? nil : $0 }.map { try AdminPage.bytes(gigabytes: $0, field: "quotaBytes") }
            _ = try await admin.addUser(
                NewUserRequest(email: form["email"], password: form["password"], name: form["name"], isAdmin: false, quotaBytes: quota))
            return WebRequest.redirect("/admin?done=added#users")
        } catch let problem as Problem {
            return try await page(web, me: me, refused: problem, form: ["email": form["email"] ?? "", "name": form["name"] ?? ""])
        }
    }

    @Sendable package func changeQuota(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (user, refusal) = signedInAdmin(request, context: context)
        guard let me = user else { return refusal! }
        let web = WebRequest(request, context: context)
        let form = try await WebForm.read(request)
        do {
            let raw = form["quotaGB"]?.trimmingCharacters(in: .whitespaces) ?? ""
            let quota: PatchValue<Int64> = raw.isEmpty ? .null : .value(try AdminPage.bytes(gigabytes: raw, field: "quotaBytes"))
            _ = try await admin.update(try context.parameters.require("id"), with: AdminUserPatch(quotaBytes: quota), by: me)
            return WebRequest.redirect("/admin?done=quota#users")
        } catch let problem as Problem {
            return try await page(web, me: me, refused: problem)
        }
    }

    /// ADM-3 without a mail server: the admin hands a one-time link to the person.
    @Sendable package func resetLink(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (user, refusal) = signedInAdmin(request, context: context)
        guard let me = user else { return refusal! }
        let web = WebRequest(request, context: context)
        do {
            let account = try await admin.user(try context.parameters.require("id"))
            let (url, _) = try await resets.issue(userID: account.id)
            return try await page(
                web, me: me, resetLink: AdminPage.ResetLink(text: web.t("admin_reset_issued", ["email": account.email]), url: url))
        } catch let problem as Problem {
            return try await page(web, me: me, refused: problem)
        }
    }

    /// P-I-230's double confirmation: the panel's dialog sends `confirmed=1`; without it (no script), this asks
    /// once more on a page of its own before anything is deleted.
    @Sendable package func deleteUser(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (user, refusal) = signedInAdmin(request, context: context)
        guard let me = user else { return refusal! }
        let web = WebRequest(request, context: context)
        let form = try await WebForm.read(request)
        let id = try context.parameters.require("id")
        do {
            guard form["confirmed"] == "1" else {
                let account = try await admin.user(id)
                return web.page("admin-confirm", title: web.t("admin_delete_title"), model: AdminConfirmPage(id: id, email: account.email))
            }
            try await admin.deleteUser(id, by: me)
            return WebRequest.redirect("/admin?done=deleted#users")
        } catch let problem as Problem {
            return try await page(web, me: me, refused: problem)
        }
    }
}
