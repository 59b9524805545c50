import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// The first-run wizard (ADM-2): while no admin exists, `/setup` creates one — for whoever types the setup code the
/// server printed in its log at start (`SetupCode`); then it is gone.
package struct SetupController {
    package let admins: AccountService

    package init(admins: AccountService) {
        self.admins = admins
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/setup", use: show)
        router.post("/setup", use: submit)
    }

    package struct SetupForm: Decodable {
        package let email: String?
        package let password: String?
        package let name: String?
        package let code: String?
    }

    @Sendable package func show(_ request: Request, context: AppRequestContext) async throws -> Response {
        let web = WebRequest(request, context: context)
        guard try await !admins.adminExists() else { return Self.gone(web) }
        return Self.form(web, SetupPage(email: ""), status: .ok)
    }

    @Sendable package func submit(_ request: Request, context: AppRequestContext) async throws -> Response {
        let web = WebRequest(request, context: context)
        guard try await !admins.adminExists() else { return Self.gone(web) }
        let buffer = try await request.body.collect(upTo: 16 * 1024)
        let form =
            (try? URLEncodedFormDecoder().decode(SetupForm.self, from: String(buffer: buffer)))
            ?? SetupForm(email: nil, password: nil, name: nil, code: nil)
        let typed = SetupPage(email: form.email ?? "", name: form.name ?? "")
        do {
            let outcome = try await admins.createAdmin(
                email: form.email ?? "", password: form.password ?? "", name: form.name?.isEmpty == false ? form.name : nil,
                setupCode: form.code ?? "", client: context.clientAddress)
            switch outcome {
            case .created:
                return web.page("setup", title: web.t("setup_done_title"), model: SetupPage(done: true), status: .created)
            case .adminAlreadyExists: return Self.gone(web)
            case .wrongSetupCode:
                var page = typed
                page.error = web.t("setup_wrong_code")
                return Self.form(web, page, status: .forbidden)
            case .emailTaken:
                var page = typed
                page.error = web.t("setup_email_taken")
                return Self.form(web, page, status: .conflict)
            }
        } catch let problem as Problem {
            var page = typed
            page.error = web.problemMessage(problem)
            return Self.form(web, page, status: problem.status)
        }
    }

    private static func form(_ web: WebRequest, _ page: SetupPage, status: HTTPResponse.Status) -> Response {
        web.page("setup", title: web.t("setup_title"), model: page, status: status)
    }

    private static func gone(_ web: WebRequest) -> Response {
        web.page("setup", title: web.t("setup_gone_title"), model: SetupPage(gone: true), status: .notFound)
    }
}

/// The wizard's page: the form, then "all set" with the way to sign in; "already set up" once an admin exists.
package struct SetupPage: Sendable {
    package var email = ""
    package var name = ""
    package var error: String? = nil
    package var done = false
    package var gone = false
    /// Stored: templates see stored properties only.
    package var showForm = true

    package init(email: String = "", name: String = "") {
        self.email = email
        self.name = name
    }

    package init(done: Bool = false, gone: Bool = false) {
        self.done = done
        self.gone = gone
        showForm = !done && !gone
    }
}
