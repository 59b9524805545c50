import DisposableServer
import Foundation
import Logging
import Testing

/// The two engines every repository-level test runs on.
enum TestEngine: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite, postgres

    var testDescription: String { rawValue }

    /// A fresh, migrated database for one test.
    func freshDatabase(in directory: URL) async throws -> AppConfiguration.DatabaseLocation {
        switch self {
        case .sqlite:
            return .sqlite(path: directory.appendingPathComponent("test.sqlite").path)
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

struct TestSetupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
