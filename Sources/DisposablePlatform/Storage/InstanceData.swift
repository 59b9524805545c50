import DisposableCore
import Foundation

/// Where an instance keeps what it must never lose: its database, its files (a folder or a bucket), the staging
/// folder uploads arrive in, and the key that seals the files. The composition root reads it from the
/// configuration; storage, backups and the admin's disk figures need only this.
public struct InstanceData: Sendable {
    public var database: DatabaseLocation
    public var storage: StorageLocation
    public var storageKey: StorageKey?
    /// Uploads arriving; beside the folder's files, so that storing one is a rename.
    public var stagingDirectory: URL

    package init(database: DatabaseLocation, storage: StorageLocation, storageKey: StorageKey? = nil, stagingDirectory: URL) {
        self.database = database
        self.storage = storage
        self.storageKey = storageKey
        self.stagingDirectory = stagingDirectory
    }
}

/// Where the database lives: an SQLite file (embedded default) or a PostgreSQL server.
public enum DatabaseLocation: Sendable, Equatable {
    case sqlite(path: String)
    case postgres(url: String)

    /// `postgres://…` or `postgresql://…` selects PostgreSQL; anything else is an SQLite file path.
    public init(_ value: String) {
        if value.hasPrefix("postgres://") || value.hasPrefix("postgresql://") {
            self = .postgres(url: value)
        } else {
            self = .sqlite(path: value.hasPrefix("sqlite://") ? String(value.dropFirst("sqlite://".count)) : value)
        }
    }
}

/// Where photo files live.
public enum StorageLocation: Sendable, Equatable {
    /// A folder on this machine (embedded default).
    case localFolder(path: String)
    /// An S3-compatible bucket (OPS-4): instances share it, with no shared folder.
    case s3(S3Settings)
}
