import Hummingbird

/// The server's version.
public let disposableVersion = "0.1.0"

/// `GET /status` and `GET /healthz` (ADM-1).
struct StatusController {
    let services: AppServices

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/status", use: status)
        router.get("/healthz", use: health)
    }

    struct StatusJSON: Encodable {
        let version: String
        let registrationEnabled: Bool
    }

    @Sendable func status(_ request: Request, context: AppRequestContext) async throws -> Response {
        try jsonResponse(StatusJSON(version: disposableVersion, registrationEnabled: try await services.settings.registrationEnabled()))
    }

    struct HealthJSON: Encodable {
        let status: String
        let database: String
        let storage: String
    }

    /// 200 when the database answers and the media storage is writable; 503 otherwise (for load balancers).
    @Sendable func health(_ request: Request, context: AppRequestContext) async throws -> Response {
        do {
            try await services.database.sql { db in try await db.raw("SELECT 1 AS ok").run() }
        } catch {
            throw Problem(.serviceUnavailable, "database-unavailable", title: "Database unavailable",
                          detail: "The server cannot reach its database.")
        }
        do {
            try await services.blobs.checkHealth()
        } catch {
            throw Problem(.serviceUnavailable, "storage-unavailable", title: "Storage unavailable",
                          detail: "The server cannot write to its media storage.")
        }
        return try jsonResponse(HealthJSON(status: "ok", database: "ok", storage: "ok"))
    }
}
