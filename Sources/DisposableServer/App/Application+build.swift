import DisposableCore
import DisposableFeatures
import DisposablePlatform
import DisposableWeb
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// The router with every route of the API and the web app; also used by tests to check the OpenAPI document.
public func buildRouter(services: AppServices) -> Router<AppRequestContext> {
    let secure = services.configuration.usesHTTPS
    let router = Router(context: AppRequestContext.self)
    InstanceMetrics.start()
    router.add(middleware: RequestLogMiddleware(log: services.requestLog))
    router.add(middleware: MetricsMiddleware())
    router.add(middleware: ClientAddressMiddleware(trusted: services.configuration.trustedProxies, untrustedProxy: services.untrustedProxy))
    router.add(
        middleware: SecurityHeadersMiddleware(
            imageOrigins: services.signer.bucket.map { [$0.origin] } ?? [], formOrigins: services.configuration.openID.map { [$0.origin] } ?? []))
    router.add(middleware: ProblemMiddleware())
    router.add(middleware: ProtocolRulesMiddleware())
    // WebDAV's methods and paths are its own; it signs in with app passwords, never a session.
    router.add(
        middleware: DAVController(
            dav: services.dav, events: DAVEvents(events: services.events, gallery: services.gallery, photos: services.photos),
            appPasswords: services.appPasswords))
    let identities = RememberedIdentities(accounts: services.accounts, recent: services.recentReads)
    router.add(middleware: PageNotFoundMiddleware { try await identities.identity(for: $0, isRead: true) })
    // Signed media links carry their own grant: no session to look up (PERF-3).
    MediaController(signer: services.signer, blobs: services.blobs, clock: services.clock).addRoutes(to: router)

    MetricsController(
        statistics: services.statistics, liveStreams: services.liveStreams, accounts: services.accounts, token: services.configuration.metricsToken
    ).addRoutes(to: router)

    // Everything else knows who is asking from the session.
    let withSession = router.group()
        .add(middleware: CrossSiteRequestGuard())
        .add(middleware: ForgetRecentReadsMiddleware(recent: services.recentReads, tellOthers: services.changes.announceWrite))
        .add(middleware: AuthenticationMiddleware { try await identities.identity(for: $0, isRead: $1) })
    StatusController(
        accounts: services.accounts, health: InstanceHealth(transactions: services.transactions, blobs: services.blobs)
    ).addRoutes(to: withSession)
    SetupController(admins: services.accounts).addRoutes(to: withSession)
    AccountsController(accounts: services.accounts, signUps: services.signUps, events: services.events, secureCookies: secure).addRoutes(
        to: withSession)
    EventsController(events: services.events).addRoutes(to: withSession)
    CoOrganizersController(events: services.events).addRoutes(to: withSession)
    JoinController(joining: services.joining, events: services.events).addRoutes(to: withSession)
    UploadController(photos: services.photos).addRoutes(to: withSession)
    ResumableUploadController(uploads: services.resumableUploads).addRoutes(to: withSession)
    GalleryController(gallery: services.gallery).addRoutes(to: withSession)
    RecapController(recaps: services.recaps).addRoutes(to: withSession)
    MomentController(moments: services.moments).addRoutes(to: withSession)
    CapsuleController(capsules: services.capsules).addRoutes(to: withSession)
    ScrobblerController(scrobblers: services.scrobblers, capsules: services.capsules).addRoutes(to: withSession)
    AppPasswordController(appPasswords: services.appPasswords).addRoutes(to: withSession)
    PushController(push: services.push).addRoutes(to: withSession)
    OpenIDController(openID: services.openID).addRoutes(to: withSession)
    FriendController(friends: services.friends).addRoutes(to: withSession)
    StoryBoardController(board: services.board).addRoutes(to: withSession)
    PhotoController(photos: services.photos).addRoutes(to: withSession)
    GuestbookController(guestbook: services.guestbook).addRoutes(to: withSession)
    ArchiveController(gallery: services.gallery, blobs: services.blobs, redactions: services.photos.redactions).addRoutes(to: withSession)
    EventGuestsController(guests: services.gatherings.eventGuests).addRoutes(to: withSession)
    let walls = VenueWall(events: services.events, gallery: services.gallery)
    WallController(walls: walls).addRoutes(to: withSession)
    ChangesController(
        events: services.events, hub: services.changes, signer: services.signer, pictures: services.photos.pictures, clock: services.clock,
        heartbeat: services.configuration.liveHeartbeat,
        stillValid: { [accounts = services.accounts, events = services.events] identity, eventID, role in
            guard let fresh = try await accounts.identity(tokenHash: identity.tokenHash) else { return false }
            do {
                // A co-organizer removed, still a guest of the event, sees it as a guest from a new stream on.
                return try await events.event(eventID, for: fresh).1 == role
            } catch is Problem {
                return false
            }
        },
        writes: { [recent = services.recentReads] in recent.writesThatMayRevoke }, streams: services.liveStreams, walls: walls
    ).addRoutes(to: withSession)
    LibraryController(
        library: services.library, heartbeat: services.configuration.liveHeartbeat, streams: services.liveStreams,
        stillValid: { [accounts = services.accounts] identity in try await accounts.identity(tokenHash: identity.tokenHash) != nil },
        writes: { [recent = services.recentReads] in recent.writesThatMayRevoke }
    ).addRoutes(to: withSession)
    NotificationController(
        notifications: services.notifications, streams: NotificationStreams(), heartbeat: services.configuration.liveHeartbeat,
        stillValid: { [accounts = services.accounts] identity in try await accounts.identity(tokenHash: identity.tokenHash) != nil },
        writes: { [recent = services.recentReads] in recent.writesThatMayRevoke }
    ).addRoutes(to: withSession)
    DeletionRecordsController(deletion: services.deletion).addRoutes(to: withSession)
    AdminController(admin: services.admin).addRoutes(to: withSession)
    PasswordController(resets: services.passwordResets, accounts: services.accounts).addRoutes(to: withSession)
    GuestPages(
        events: services.events, joining: services.joining, walls: walls,
        registrationOpen: { [accounts = services.accounts] in try await accounts.registrationEnabled() }, secure: secure
    ).addRoutes(to: withSession)
    SignUpPages(signUps: services.signUps, accounts: services.accounts, secure: secure, openID: services.configuration.openID).addRoutes(
        to: withSession)
    OrganizerPages(
        accounts: services.accounts, events: services.events, gallery: services.gallery, guests: services.gatherings.eventGuests, walls: walls,
        secure: secure,
        openID: services.configuration.openID
    ).addRoutes(to: withSession)
    if let openID = services.openID { OpenIDPages(openID: openID, secure: secure).addRoutes(to: withSession) }
    WallPages(walls: walls).addRoutes(to: withSession)
    AdminPages(
        admin: services.admin, resets: services.passwordResets, support: services.support, clientErrors: services.clientErrors,
        deletion: services.deletion,
        untrustedProxy: services.untrustedProxy
    ).addRoutes(
        to: withSession)
    PasswordPages(resets: services.passwordResets).addRoutes(to: withSession)
    LibraryPages(library: services.library, capsules: services.capsules).addRoutes(to: withSession)
    MomentPages(moments: services.moments).addRoutes(to: withSession)
    CapsulePages(capsules: services.capsules).addRoutes(to: withSession)
    FriendPages(friends: services.friends).addRoutes(to: withSession)
    StoryBoardPages(board: services.board).addRoutes(to: withSession)
    AccountPages(
        accounts: services.accounts, profiles: services.profiles, scrobblers: services.scrobblers, capsules: services.capsules, push: services.push,
        openID: services.openID
    ).addRoutes(to: withSession)
    DevicePages(appPasswords: services.appPasswords, davAddress: services.configuration.publicBaseURL + "/dav/").addRoutes(to: withSession)
    SupportController(support: services.support).addRoutes(to: withSession)
    ClientErrorController(clientErrors: services.clientErrors).addRoutes(to: withSession)
    MyDataController(myData: services.myData, blobs: services.blobs).addRoutes(to: withSession)
    MyDataPages(myData: services.myData, joining: services.joining, secure: secure).addRoutes(to: withSession)
    ProfileController(profiles: services.profiles).addRoutes(to: withSession)
    SupportPages(support: services.support).addRoutes(to: withSession)
    InfoPages(retention: services.configuration.retention, secure: secure).addRoutes(to: withSession)
    withSession.get("/api/v1/openapi.json") { _, _ in
        Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(data: try OpenAPIDocument.json())))
    }
    return router
}

/// Assembles the whole application: background services, start-up work before serving, the router.
public func buildApplication(services: AppServices) -> some ApplicationProtocol {
    let configuration = services.configuration
    let fastPath = services.configuration.mediaFastPath
    var app = Application(
        router: buildRouter(services: services),
        // The optional media fast path (FastPath/): signed thumbnails in memory answered in front of the router.
        server: .guardedHTTP1(
            limits: configuration.connections, trustedProxies: configuration.trustedProxies,
            shortcut: fastPath
                ? { @Sendable in
                    MediaShortcut(signer: services.signer, blobs: services.blobs, clock: services.clock, requestLog: services.requestLog)
                }
                : nil),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: serverName),
        logger: services.logger
    )
    app.addServices(
        DatabaseService(database: services.database),
        MediaWorkers(
            jobs: services.jobs, handlers: services.renderer.jobHandlers.merging(services.libraryRenderer.jobHandlers) { first, _ in first },
            newWork: services.newWork,
            started: services.started,
            count: configuration.mediaWorkers, releaseLeasesAtStart: services.database.kind == .sqlite, idleWait: configuration.workerIdleWait,
            clock: services.clock, logger: services.logger),
        services.gatherings.clockAnnouncer(
            services.platform, started: services.started, retention: configuration.retention, interval: configuration.clockInterval),
        PersonalAnnouncer(capsules: services.capsules, moments: services.moments, started: services.started, logger: services.logger),
        PushSender(push: services.push, started: services.started, logger: services.logger),
        services.retention)
    if let metricsPort = configuration.metricsPort {
        app.addServices(metricsListener(services: services, port: metricsPort))
    }
    if case .postgres(let url) = configuration.database {
        app.addServices(
            PostgresChangeListener(
                url: url, hub: services.changes, onWriteElsewhere: { [recent = services.recentReads] in recent.forgetAll() },
                logger: services.logger))
    }
    app.beforeServerStarts {
        try await migrateDatabase(services.database, logger: services.logger)
        let names = try await services.dav.composeNames()
        if names.renamed + names.kept > 0 {
            services.logger.notice(
                "WebDAV: \(names.renamed) names composed (NFC); \(names.kept) left as they were, their composed form being taken")
        }
        // The wrong storage key, or none for encrypted photos: refuse to start rather than serve wrong bytes.
        try await checkStorageKey(configuration.storageKey, database: services.database)
        try await services.people.loadSigningKey(into: services.signer)
        try await services.retention.sweep()
        // Uploads in progress at a crash were never acknowledged.
        services.staging.clear()
        try await services.pendingWrites.reconcile(atStart: true)
        // A fresh instance says where to go first, with the code only its log shows.
        if let code = try await services.accounts.setupCode() {
            services.logger.notice(
                "No admin yet: open \(configuration.publicBaseURL)/setup and enter the setup code \(code) (or run `disposable admin create`).")
        }
        await services.started.open()
    }
    return app
}

/// `--metrics-port`: a second, plain listener with `/metrics` alone, readable by whoever reaches the port.
private func metricsListener(services: AppServices, port: Int) -> some Service {
    let router = Router(context: AppRequestContext.self)
    router.add(middleware: ProblemMiddleware())
    MetricsController(
        statistics: services.statistics, liveStreams: services.liveStreams, accounts: services.accounts, token: nil, open: true
    ).addRoutes(to: router)
    return Application(
        router: router, configuration: .init(address: .hostname(services.configuration.host, port: port), serverName: serverName),
        logger: services.logger)
}

/// Keeps the database engine running for the lifetime of the server, and closes it last.
package struct DatabaseService: Service {
    package let database: any DatabaseEngine

    package func run() async throws {
        await cancelWhenGracefulShutdown {
            await database.run()
        }
        await database.close()
    }
}
