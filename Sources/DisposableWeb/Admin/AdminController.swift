import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// The admin's API (ADM-4..6): accounts with their quotas, the instance's settings, its statistics.
/// Every route is for the instance's admins only (401 without a session, 403 for anyone else).
package struct AdminController {
    package let admin: AdminService

    package init(admin: AdminService) {
        self.admin = admin
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/api/v1/admin/users", use: users)
        router.post("/api/v1/admin/users", use: addUser)
        router.patch("/api/v1/admin/users/:id", use: updateUser)
        router.delete("/api/v1/admin/users/:id", use: deleteUser)
        router.get("/api/v1/admin/settings", use: settings)
        router.patch("/api/v1/admin/settings", use: updateSettings)
        router.get("/api/v1/admin/stats", use: stats)
    }

    @Sendable package func users(_ request: Request, context: AppRequestContext) async throws -> Response {
        _ = try context.requireAdmin()
        let query = request.uri.queryParameters
        var limit = AdminService.pageSize
        if let raw = query.get("limit") {
            guard let parsed = Int(raw) else { throw Problem.invalidField("limit", "The page size (limit) must be a whole number.") }
            limit = parsed
        }
        let cursor = query.get("cursor")
        if let cursor, cursor.utf8.count > 320 { throw Problem.invalidField("cursor", "This cursor is not one the server gave.") }
        return try jsonResponse(try await admin.users(after: cursor, limit: limit))
    }

    @Sendable package func addUser(_ request: Request, context: AppRequestContext) async throws -> Response {
        _ = try context.requireAdmin()
        let user = try await admin.addUser(try await request.decodeJSON(NewUserRequest.self))
        return try jsonResponse(user, status: .created)
    }

    @Sendable package func updateUser(_ request: Request, context: AppRequestContext) async throws -> Response {
        let me = try context.requireAdmin()
        let patch = try await request.decodeJSON(AdminUserPatch.self)
        return try jsonResponse(try await admin.update(try context.parameters.require("id"), with: patch, by: me))
    }

    @Sendable package func deleteUser(_ request: Request, context: AppRequestContext) async throws -> Response {
        let me = try context.requireAdmin()
        try await admin.deleteUser(try context.parameters.require("id"), by: me)
        return Response(status: .noContent)
    }

    @Sendable package func settings(_ request: Request, context: AppRequestContext) async throws -> Response {
        _ = try context.requireAdmin()
        return try jsonResponse(try await admin.settings())
    }

    @Sendable package func updateSettings(_ request: Request, context: AppRequestContext) async throws -> Response {
        _ = try context.requireAdmin()
        return try jsonResponse(try await admin.update(settings: try await request.decodeJSON(InstanceSettingsJSON.self)))
    }

    @Sendable package func stats(_ request: Request, context: AppRequestContext) async throws -> Response {
        _ = try context.requireAdmin()
        return try jsonResponse(try await admin.stats())
    }
}

extension NewUserRequest: JSONBody {
    package static let fields: Set<String> = ["email", "password", "name", "isAdmin", "quotaBytes"]
}

extension AdminUserPatch: JSONBody {
    package static let fields: Set<String> = ["name", "isAdmin", "quotaBytes"]
}

extension InstanceSettingsJSON: JSONBody {
    package static let fields: Set<String> = ["registrationEnabled", "defaultQuotaBytes"]
}
