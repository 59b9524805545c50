import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// The router with every route of the API; also used by tests to check the OpenAPI document.
public func buildRouter(services: AppServices) -> Router<AppRequestContext> {
    let router = Router(context: AppRequestContext.self)
    router.add(middleware: SecurityHeadersMiddleware())
    router.add(middleware: ProblemMiddleware())
    router.add(middleware: CrossSiteRequestGuard())
    router.add(middleware: AuthenticationMiddleware(tokens: services.tokens))

    StatusController(services: services).addRoutes(to: router)
    SetupController(services: services).addRoutes(to: router)
    AccountsController(services: services).addRoutes(to: router)
    EventsController(services: services).addRoutes(to: router)
    JoinController(services: services).addRoutes(to: router)
    UploadController(services: services).addRoutes(to: router)
    GalleryController(services: services).addRoutes(to: router)
    PhotoController(services: services).addRoutes(to: router)
    ArchiveController(services: services).addRoutes(to: router)
    ChangesController(services: services).addRoutes(to: router)
    DeletionRecordsController(services: services).addRoutes(to: router)
    PersonalLinkController(services: services).addRoutes(to: router)
    ApprovalController(services: services).addRoutes(to: router)
    GuestPages(services: services).addRoutes(to: router)
    OrganizerPages(services: services).addRoutes(to: router)
    InfoPages(services: services).addRoutes(to: router)
    router.get("/api/v1/openapi.json") { _, _ in
        Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(data: try OpenAPIDocument.json())))
    }
    return router
}

/// Assembles the whole application: database service, migrations before the server starts, router.
public func buildApplication(services: AppServices) -> some ApplicationProtocol {
    var app = Application(
        router: buildRouter(services: services),
        configuration: .init(address: .hostname(services.configuration.host, port: services.configuration.port), serverName: "Disposable"),
        logger: services.logger
    )
    app.addServices(DatabaseService(database: services.database), MediaWorkers(services: services), ClockAnnouncer(services: services),
        RetentionSweeper(services: services))
    if case .postgres(let url) = services.configuration.database {
        app.addServices(PostgresChangeListener(url: url, hub: services.changes, logger: services.logger))
    }
    app.beforeServerStarts {
        try await migrateDatabase(services.database, logger: services.logger)
        try await RetentionSweeper(services: services).sweep()
        try await StorageSweep(services: services).removeOrphans()
        await services.started.open()
    }
    return app
}

/// Keeps the database engine running for the lifetime of the server, and closes it last.
struct DatabaseService: Service {
    let database: any DatabaseEngine

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await database.run()
        }
        await database.close()
    }
}
