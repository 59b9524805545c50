import Foundation
import Logging
import PostgresKit
import PostgresNIO
import SQLKit

/// The scale-out engine: a pool of PostgreSQL connections shared by every request of this instance.
final class PostgresEngine: DatabaseEngine {
    let kind = DatabaseKind.postgres
    private let client: PostgresClient
    private let logger: Logger

    init(url: String, logger: Logger) throws {
        self.logger = logger
        client = PostgresClient(configuration: try Self.configuration(from: url), backgroundLogger: logger)
    }

    func withConnection<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await client.withConnection { connection in
            try await body(connection.sql(queryLogLevel: .trace))
        }
    }

    func run() async {
        await client.run()
    }

    func close() async {}

    /// `postgres://user:password@host:port/database?sslmode=disable|prefer|require`
    static func configuration(from url: String) throws -> PostgresClient.Configuration {
        guard let components = URLComponents(string: url), let host = components.host, !host.isEmpty else {
            throw ConfigurationError("The database URL \(url) is not a valid postgres:// URL.")
        }
        let sslMode = components.queryItems?.first { $0.name == "sslmode" }?.value ?? "disable"
        let tls: PostgresClient.Configuration.TLS =
            switch sslMode {
            case "require", "verify-full": .require(.makeClientConfiguration())
            case "prefer": .prefer(.makeClientConfiguration())
            default: .disable
            }
        let database = String(components.path.drop { $0 == "/" })
        var configuration = PostgresClient.Configuration(
            host: host,
            port: components.port ?? 5432,
            username: components.user ?? "postgres",
            password: components.password,
            database: database.isEmpty ? nil : database,
            tls: tls
        )
        configuration.options.maximumConnections = 20
        return configuration
    }
}

/// A configuration value we cannot use, with the sentence to show the operator.
public struct ConfigurationError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
