import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// Passwords (ADM-3): "forgot password" by mail, the reset link, the admin's reset link, and changing one's own.
package struct PasswordController {
    package let resets: PasswordResetService
    package let accounts: AccountService

    package init(resets: PasswordResetService, accounts: AccountService) {
        self.resets = resets
        self.accounts = accounts
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.post("/api/v1/password-resets", use: request)
        router.post("/api/v1/password-resets/:token", use: reset)
        router.post("/api/v1/admin/users/:id/password-reset", use: adminLink)
        router.post("/api/v1/me/password", use: change)
    }

    @Sendable package func request(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(PasswordResetRequest.self)
        try await resets.request(email: body.email, client: context.clientAddress)
        return Response(status: .accepted)
    }

    @Sendable package func reset(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(NewPasswordRequest.self)
        try await resets.reset(token: try context.parameters.require("token"), password: body.password)
        return Response(status: .noContent)
    }

    @Sendable package func adminLink(_ request: Request, context: AppRequestContext) async throws -> Response {
        _ = try context.requireAdmin()
        let id = try context.parameters.require("id")
        guard try await accounts.user(id: id) != nil else { throw AdminService.notFound }
        let (url, expires) = try await resets.issue(userID: id)
        return try jsonResponse(ResetLink(resetURL: url, expiresAt: expires), status: .created)
    }

    @Sendable package func change(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        guard let identity = context.identity else { throw Problem.unauthorized }
        let body = try await request.decodeJSON(PasswordChange.self)
        try await accounts.changePassword(
            of: user, current: body.currentPassword, new: body.newPassword, keeping: identity.tokenHash,
            revokingAppPasswords: body.revokeAppPasswords ?? true, client: context.clientAddress)
        return Response(status: .noContent)
    }
}

extension PasswordResetRequest: JSONBody {
    package static let fields: Set<String> = ["email"]
}

extension NewPasswordRequest: JSONBody {
    package static let fields: Set<String> = ["password"]
}

extension PasswordChange: JSONBody {
    package static let fields: Set<String> = ["currentPassword", "newPassword", "revokeAppPasswords"]
}
