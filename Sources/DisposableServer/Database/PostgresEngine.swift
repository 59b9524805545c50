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

    init(url: String, poolSize: Int, logger: Logger) throws {
        self.logger = logger
        var configuration = try Self.configuration(from: url)
        configuration.options.maximumConnections = poolSize
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
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

    private static func configuration(from url: String) throws -> PostgresClient.Configuration {
        let parsed = try PostgresURL(url)
        let tls: PostgresClient.Configuration.TLS =
            switch parsed.sslMode {
            case "require", "verify-full": .require(.makeClientConfiguration())
            case "prefer": .prefer(.makeClientConfiguration())
            default: .disable
            }
        return PostgresClient.Configuration(
            host: parsed.host, port: parsed.port, username: parsed.username, password: parsed.password, database: parsed.database, tls: tls)
    }
}

/// `postgres://user:password@host:port/database?sslmode=disable|prefer|require`
struct PostgresURL {
    let host: String
    let port: Int
    let username: String
    let password: String?
    let database: String?
    let sslMode: String

    init(_ url: String) throws {
        guard let components = URLComponents(string: url), let host = components.host, !host.isEmpty else {
            throw ConfigurationError("The database URL \(url) is not a valid postgres:// URL.")
        }
        self.host = host
        port = components.port ?? 5432
        username = components.user ?? "postgres"
        password = components.password
        let path = String(components.path.drop { $0 == "/" })
        database = path.isEmpty ? nil : path
        sslMode = components.queryItems?.first { $0.name == "sslmode" }?.value ?? "disable"
    }

    /// The settings for a single connection of our own (the change listener).
    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS =
            switch sslMode {
            case "require", "verify-full": .require(try .init(configuration: .makeClientConfiguration()))
            case "prefer": .prefer(try .init(configuration: .makeClientConfiguration()))
            default: .disable
            }
        return PostgresConnection.Configuration(host: host, port: port, username: username, password: password, database: database, tls: tls)
    }
}

/// A configuration value we cannot use, with the sentence to show the operator.
public struct ConfigurationError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
