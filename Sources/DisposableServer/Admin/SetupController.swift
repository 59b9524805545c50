import Foundation
import Hummingbird

/// The first-run wizard (ADM-2): while no admin exists, `/setup` creates one; then it is gone.
struct SetupController {
    let admins: AccountService

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/setup", use: show)
        router.post("/setup", use: submit)
    }

    struct SetupForm: Decodable {
        let email: String?
        let password: String?
        let name: String?
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard try await !admins.adminExists() else { return SetupPage.gone() }
        return SetupPage.form(email: "", name: "", error: nil, status: .ok)
    }

    @Sendable func submit(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard try await !admins.adminExists() else { return SetupPage.gone() }
        let buffer = try await request.body.collect(upTo: 16 * 1024)
        let form =
            (try? URLEncodedFormDecoder().decode(SetupForm.self, from: String(buffer: buffer)))
            ?? SetupForm(email: nil, password: nil, name: nil)
        do {
            let outcome = try await admins.createAdmin(
                email: form.email ?? "", password: form.password ?? "", name: form.name?.isEmpty == false ? form.name : nil,
                onlyIfFirst: true)
            switch outcome {
            case .created: return SetupPage.done()
            case .adminAlreadyExists: return SetupPage.gone()
            case .emailTaken:
                return SetupPage.form(
                    email: form.email ?? "", name: form.name ?? "",
                    error: "An account with this email already exists.", status: .conflict)
            }
        } catch let problem as Problem {
            return SetupPage.form(email: form.email ?? "", name: form.name ?? "", error: problem.detail, status: problem.status)
        }
    }
}

/// The wizard's one page. Minimal HTML on purpose: the web app's templates come with their own issue.
enum SetupPage {
    static func form(email: String, name: String, error: String?, status: HTTPResponse.Status) -> Response {
        let message = error.map { "<p role=\"alert\" class=\"error\">\(escapeHTML($0))</p>" } ?? ""
        return page(
            status: status, title: "Set up Disposable",
            body: """
                <h1>Welcome to Disposable</h1>
                <p>Create the administrator account of this instance. This page disappears once it exists.</p>
                \(message)
                <form method="post" action="/setup">
                  <label for="name">Your name</label>
                  <input id="name" name="name" autocomplete="name" maxlength="80" value="\(escapeHTML(name))">
                  <label for="email">Email</label>
                  <input id="email" name="email" type="email" autocomplete="email" required value="\(escapeHTML(email))">
                  <label for="password">Password (at least 8 characters)</label>
                  <input id="password" name="password" type="password" autocomplete="new-password" minlength="8" required>
                  <button type="submit">Create the admin account</button>
                </form>
                """)
    }

    static func done() -> Response {
        page(
            status: .created, title: "Disposable is ready",
            body: "<h1>All set</h1><p>The administrator account is created. You can now sign in with it.</p>")
    }

    static func gone() -> Response {
        page(
            status: .notFound, title: "Setup is complete",
            body: "<h1>Setup is complete</h1><p>This instance already has an administrator. Sign in instead.</p>")
    }

    private static func page(status: HTTPResponse.Status, title: String, body: String) -> Response {
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escapeHTML(title))</title>
            <style>
            :root { color-scheme: light dark; font-family: system-ui, sans-serif; }
            body { max-width: 28rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.5; }
            label, input, button { display: block; width: 100%; box-sizing: border-box; font-size: 1rem; }
            input { margin: .25rem 0 1rem; padding: .6rem; }
            button { padding: .8rem; font-weight: 600; }
            .error { color: #b00020; font-weight: 600; }
            </style></head>
            <body><main>\(body)</main></body></html>
            """
        return Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: .init(string: html)))
    }
}
