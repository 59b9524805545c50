import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Hummingbird

/// `GET /status` and `GET /healthz` (ADM-1).
package struct StatusController {
    package let accounts: AccountService
    package let health: InstanceHealth

    package init(accounts: AccountService, health: InstanceHealth) {
        self.accounts = accounts
        self.health = health
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/status", use: status)
        router.get("/healthz", use: health)
    }

    @Sendable package func status(_ request: Request, context: AppRequestContext) async throws -> Response {
        try jsonResponse(ServerStatus(version: disposableVersion, registrationEnabled: try await accounts.registrationEnabled()))
    }

    /// 200 when the database answers and the media storage is writable; 503 otherwise (for load balancers).
    @Sendable package func health(_ request: Request, context: AppRequestContext) async throws -> Response {
        do {
            try await health.checkDatabase()
        } catch {
            throw Problem(
                .serviceUnavailable, "database-unavailable", title: "Database unavailable",
                detail: "The server cannot reach its database.")
        }
        do {
            try await health.checkStorage()
        } catch {
            throw Problem(
                .serviceUnavailable, "storage-unavailable", title: "Storage unavailable",
                detail: "The server cannot write to its media storage.")
        }
        return try jsonResponse(Health(status: "ok", database: "ok", storage: "ok"))
    }
}
