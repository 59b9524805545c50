import DisposableServer
import Foundation
import Logging
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

/// The two engines every repository-level test runs on.
enum TestEngine: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite, postgres

    var testDescription: String { rawValue }

    /// A fresh, migrated database for one test.
    func freshDatabase(in directory: URL) async throws -> DatabaseLocation {
        switch self {
        case .sqlite:
            let path = directory.appendingPathComponent("test.sqlite").path
            try await SQLiteTemplate.shared.copy(to: path)
            return .sqlite(path: path)
        case .postgres:
            return .postgres(url: try await PostgresTestServer.shared.cloneTemplate())
        }
    }
}

/// The private PostgreSQL server `scripts/test` starts. The schema is migrated once into a template
/// database, and each test gets its own copy (`CREATE DATABASE … TEMPLATE …`), which takes milliseconds.
actor PostgresTestServer {
    static let shared = PostgresTestServer()
    private var template: Task<Void, any Error>?
    private let logger = Logger(label: "test-postgres")

    var adminURL: String {
        get throws {
            guard let url = ProcessInfo.processInfo.environment["DISPOSABLE_TEST_POSTGRES_URL"] else {
                throw TestSetupError(
                    "DISPOSABLE_TEST_POSTGRES_URL is not set: run the suite with scripts/test, which starts PostgreSQL.")
            }
            return url
        }
    }

    func url(database: String) throws -> String {
        var components = URLComponents(string: try adminURL)!
        components.path = "/" + database
        return components.string!
    }

    /// A database of its own with nothing in it (an upgrade test migrates it as an older release did).
    func emptyDatabase() async throws -> String {
        let name = "e_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await withDatabase(.postgres(url: try adminURL), logger: logger) { db in
            try await db.sql { try await $0.raw("CREATE DATABASE \(unsafeRaw: name)").run() }
        }
        return try url(database: name)
    }

    func cloneTemplate() async throws -> String {
        if template == nil {
            let admin = try adminURL
            let templateURL = try url(database: "disposable_template")
            let logger = logger
            template = Task {
                try await withDatabase(.postgres(url: admin), logger: logger) { db in
                    try await db.sql { try await $0.raw("DROP DATABASE IF EXISTS disposable_template").run() }
                    try await db.sql { try await $0.raw("CREATE DATABASE disposable_template").run() }
                }
                try await withDatabase(.postgres(url: templateURL), logger: logger) { db in
                    try await migrateDatabase(db, logger: logger)
                }
            }
        }
        try await template!.value
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let admin = try adminURL
        let logger = logger
        // The template's last connection may take a moment to close after migrating, or never: PostgresNIO's pool can
        // fail to end once cancelled (DECISIONS "A test app that does not start or stop"), and one CI run's every clone
        // then failed on "being accessed by other users". Nothing but cloning uses the template: a session left on it
        // is ended, and the clone tried again.
        for attempt in 1...50 {
            do {
                try await withDatabase(.postgres(url: admin), logger: logger) { db in
                    try await db.sql { try await $0.raw("CREATE DATABASE \(unsafeRaw: name) TEMPLATE disposable_template").run() }
                }
                break
            } catch  where attempt < 50 {
                try await Task.sleep(for: .milliseconds(100))
                if attempt.isMultiple(of: 10) {
                    try? await withDatabase(.postgres(url: admin), logger: logger) { db in
                        try await db.sql { db in
                            try await db.raw(
                                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'disposable_template' AND pid <> pg_backend_pid()"
                            ).run()
                        }
                    }
                }
            }
        }
        return try url(database: name)
    }
}

/// The SQLite twin of the PostgreSQL template: the schema migrated once per run into a file that each test copies.
/// Migrating afresh cost every SQLite test dozens of synced writes — under a full parallel run, seconds of its time.
actor SQLiteTemplate {
    static let shared = SQLiteTemplate()
    private var made: Task<String, any Error>?

    func copy(to path: String) async throws {
        if made == nil {
            made = Task {
                let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sqlite-template-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                let template = directory.appendingPathComponent("template.sqlite").path
                let logger = Logger(label: "test-sqlite")
                try await withDatabase(.sqlite(path: template), logger: logger) { db in
                    try await migrateDatabase(db, logger: logger)
                    // Everything in the main file, so that copying it alone copies the schema.
                    try await db.sql { try await $0.raw("PRAGMA wal_checkpoint(TRUNCATE)").run() }
                }
                return template
            }
        }
        try FileManager.default.copyItem(atPath: try await made!.value, toPath: path)
    }
}

struct TestSetupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
