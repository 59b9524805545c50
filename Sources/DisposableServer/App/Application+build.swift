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
    // Signed media links carry their own grant: no session to look up (PERF-3).
    MediaController(services: services).addRoutes(to: router)

    // Everything else knows who is asking from the session.
    let withSession = router.group()
        .add(middleware: CrossSiteRequestGuard())
        .add(middleware: AuthenticationMiddleware(tokens: services.tokens, recent: services.recentReads))
    StatusController(services: services).addRoutes(to: withSession)
    SetupController(services: services).addRoutes(to: withSession)
    AccountsController(services: services).addRoutes(to: withSession)
    EventsController(services: services).addRoutes(to: withSession)
    JoinController(services: services).addRoutes(to: withSession)
    UploadController(services: services).addRoutes(to: withSession)
    GalleryController(services: services).addRoutes(to: withSession)
    PhotoController(services: services).addRoutes(to: withSession)
    ArchiveController(services: services).addRoutes(to: withSession)
    ChangesController(services: services).addRoutes(to: withSession)
    DeletionRecordsController(services: services).addRoutes(to: withSession)
    PersonalLinkController(services: services).addRoutes(to: withSession)
    ApprovalController(services: services).addRoutes(to: withSession)
    GuestPages(services: services).addRoutes(to: withSession)
    OrganizerPages(services: services).addRoutes(to: withSession)
    InfoPages(services: services).addRoutes(to: withSession)
    withSession.get("/api/v1/openapi.json") { _, _ in
        Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(data: try OpenAPIDocument.json())))
    }
    return router
}

/// Assembles the whole application: database service, migrations before the server starts, router.
public func buildApplication(services: AppServices) -> some ApplicationProtocol {
    var app = Application(
        router: buildRouter(services: services),
        server: .http1(shortcut: { MediaShortcut(services: services) }),
        configuration: .init(address: .hostname(services.configuration.host, port: services.configuration.port),
                             serverName: AppServices.serverName),
        logger: services.logger
    )
    app.addServices(DatabaseService(database: services.database), MediaWorkers(services: services), ClockAnnouncer(services: services),
        RetentionSweeper(services: services))
    if case .postgres(let url) = services.configuration.database {
        app.addServices(PostgresChangeListener(url: url, hub: services.changes, logger: services.logger))
    }
    app.beforeServerStarts {
        try await migrateDatabase(services.database, logger: services.logger)
        try await services.media.load(from: services.settings)
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
