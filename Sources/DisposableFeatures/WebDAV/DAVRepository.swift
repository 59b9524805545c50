import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// The `dav_entries` table: the library's tree as WebDAV clients made it. An asset's entry reads the asset's size,
/// hash and type from `library_assets` (and is hidden while the asset is in the trash); a plain file's quota is
/// charged and given back here, in the transaction that adds or removes its entry.
struct DAVRepository: Sendable {
    package let database: Database

    package enum Outcome: Sendable {
        case done(replaced: [DAVEntry])
        case quotaExceeded
    }

    private static let columns: SQLQueryString = """
        d.path, d.kind, d.asset_id, d.file_prefix, d.byte_size, d.etag, d.created_at, d.modified_at, d.properties,
        a.sha256 AS a_sha256, a.byte_size AS a_byte_size, a.format AS a_format
        FROM dav_entries d LEFT JOIN library_assets a ON a.id = d.asset_id
        """

    /// Seen: not an asset in the trash (or gone).
    private static let visible: SQLQueryString = "(d.asset_id IS NULL OR (a.trashed_at IS NULL AND a.deleted_at IS NULL))"

    package func entry(userID: String, path: String) async throws -> DAVEntry? {
        try await database.read { db in try await Self.entry(userID: userID, path: path, in: db) }
    }

    private static func entry(userID: String, path: String, in db: any SQLDatabase) async throws -> DAVEntry? {
        try await db.raw("SELECT \(columns) WHERE d.user_id = \(bind: userID) AND d.path = \(bind: path) AND \(visible)").first().map(entry)
    }

    /// What a folder holds, by name; at most `limit`.
    package func children(userID: String, of parent: String, limit: Int) async throws -> [DAVEntry] {
        try await database.read { db in
            try await db.raw(
                """
                SELECT \(Self.columns) WHERE d.user_id = \(bind: userID) AND d.parent = \(bind: parent) AND \(Self.visible)
                ORDER BY d.path LIMIT \(bind: limit)
                """
            ).all().map(Self.entry)
        }
    }

    /// The entry at `path` and everything below it, hidden ones too, shallowest first.
    package func subtree(userID: String, at path: String) async throws -> [DAVEntry] {
        try await database.read { db in try await Self.subtree(userID: userID, at: path, in: db) }
    }

    private static func subtree(userID: String, at path: String, in db: any SQLDatabase) async throws -> [DAVEntry] {
        let below = path + "/"
        return try await db.raw(
            """
            SELECT \(columns) WHERE d.user_id = \(bind: userID)
                AND (d.path = \(bind: path) OR SUBSTR(d.path, 1, CAST(\(bind: below.unicodeScalars.count) AS INTEGER)) = \(bind: below))
            ORDER BY LENGTH(d.path), d.path
            """
        ).all().map(entry)
    }

    /// How many paths show this asset.
    package func placements(assetID: String) async throws -> Int {
        try await database.read { db in
            try await db.raw("SELECT COUNT(*) AS n FROM dav_entries WHERE asset_id = \(bind: assetID)").first()!.decode(column: "n", as: Int.self)
        }
    }

    /// Adds `entry` at its path, replacing what was there (and, for a folder given in `replacing`, what was below
    /// it): plain files' bytes charged or given back, removed files' folders recorded for removal after the commit.
    package func put(_ entry: DAVEntry, userID: String, replacing: Bool, endingWrite: LibraryFiles?, instance: String) async throws -> Outcome {
        let properties = try Self.encode(entry.properties)
        do {
            return try await database.transaction { db in
                let replaced = replacing ? try await Self.remove(userID: userID, at: entry.path, instance: instance, in: db) : []
                if entry.kind == .file, !(try await UserRepository.chargeQuota(entry.byteSize, userID: userID, in: db)) {
                    throw RollBack.quotaExceeded
                }
                try await db.raw(
                    """
                    INSERT INTO dav_entries (user_id, path, parent, kind, asset_id, file_prefix, byte_size, etag, created_at, modified_at, properties)
                    VALUES (\(bind: userID), \(bind: entry.path), \(bind: LibraryPath.parent(entry.path)), \(bind: entry.kind.rawValue),
                        \(bind: entry.assetID), \(bind: entry.filePrefix), \(bind: entry.kind == .file ? entry.byteSize : 0),
                        \(bind: entry.etag), \(bind: entry.createdAt.millisecondsSince1970), \(bind: entry.modifiedAt.millisecondsSince1970),
                        \(bind: properties))
                    """
                ).run()
                if let endingWrite { try await PendingWriteRepository.end(photoID: endingWrite.writeID, in: db) }
                return .done(replaced: replaced)
            }
        } catch RollBack.quotaExceeded {
            return .quotaExceeded
        }
    }

    /// Removes the entry at `path` and everything below it; returns what went.
    package func remove(userID: String, at path: String, instance: String) async throws -> [DAVEntry] {
        try await database.transaction { db in try await Self.remove(userID: userID, at: path, instance: instance, in: db) }
    }

    private static func remove(userID: String, at path: String, instance: String, in db: any SQLDatabase) async throws -> [DAVEntry] {
        let gone = try await subtree(userID: userID, at: path, in: db)
        let below = path + "/"
        try await db.raw(
            """
            DELETE FROM dav_entries WHERE user_id = \(bind: userID)
                AND (path = \(bind: path) OR SUBSTR(path, 1, CAST(\(bind: below.unicodeScalars.count) AS INTEGER)) = \(bind: below))
            """
        ).run()
        for file in gone where file.kind == .file {
            try await UserRepository.releaseQuota(file.byteSize, userID: userID, in: db)
            if let prefix = file.filePrefix {
                try await PendingWriteRepository.begin(
                    Self.files(prefix), startedAt: Date(timeIntervalSince1970: 0), instance: instance, in: db)
            }
        }
        return gone
    }

    /// Moves the entry at `from` and everything below it to `to`, after removing what was at `to`.
    package func move(userID: String, from: String, to: String, instance: String) async throws -> [DAVEntry] {
        try await database.transaction { db in
            let replaced = try await Self.remove(userID: userID, at: to, instance: instance, in: db)
            let below = from + "/"
            let start = from.unicodeScalars.count + 1
            try await db.raw(
                """
                UPDATE dav_entries SET
                    path = \(bind: to) || SUBSTR(path, CAST(\(bind: start) AS INTEGER)),
                    parent = CASE WHEN path = \(bind: from) THEN \(bind: LibraryPath.parent(to)) ELSE \(bind: to) || SUBSTR(parent, CAST(\(bind: start) AS INTEGER)) END
                WHERE user_id = \(bind: userID) AND (path = \(bind: from) OR SUBSTR(path, 1, CAST(\(bind: below.unicodeScalars.count) AS INTEGER)) = \(bind: below))
                """
            ).run()
            return replaced
        }
    }

    package func setProperties(_ properties: [DAVDeadProperty], userID: String, path: String) async throws {
        let json = try Self.encode(properties)
        try await database.sql { db in
            try await db.raw("UPDATE dav_entries SET properties = \(bind: json) WHERE user_id = \(bind: userID) AND path = \(bind: path)").run()
        }
    }

    /// A plain file's folder, as a pending write names it (its id is never an asset's revision).
    package static func files(_ prefix: String) -> LibraryFiles {
        LibraryFiles(writeID: (prefix.split(separator: "/").last.map(String.init) ?? prefix) + "@0", prefix: prefix)
    }

    private enum RollBack: Error { case quotaExceeded }

    private static func encode(_ properties: [DAVDeadProperty]) throws -> String? {
        properties.isEmpty ? nil : String(decoding: try JSONEncoder().encode(properties), as: UTF8.self)
    }

    private static func entry(_ row: any SQLRow) throws -> DAVEntry {
        let column = ColumnReader(row)
        let kind = DAVEntry.Kind(rawValue: try column("kind", as: String.self)) ?? .file
        let json = try column.optional("properties", as: String.self)
        let properties = json.flatMap { try? JSONDecoder().decode([DAVDeadProperty].self, from: Data($0.utf8)) } ?? []
        let assetHash = try column.optional("a_sha256", as: String.self)
        let assetSize = try column.optional("a_byte_size", as: Int64.self)
        let assetFormat = try column.optional("a_format", as: String.self).flatMap(MediaFormat.init(rawValue:))
        let storedSize = try column("byte_size", as: Int64.self)
        let storedTag = try column("etag", as: String.self)
        let contentType: String? =
            switch kind {
            case .asset: assetFormat?.mimeType
            case .file: "application/octet-stream"
            case .folder: nil
            }
        return DAVEntry(
            path: try column("path", as: String.self), kind: kind, assetID: try column.optional("asset_id", as: String.self),
            filePrefix: try column.optional("file_prefix", as: String.self), byteSize: kind == .asset ? assetSize ?? 0 : storedSize,
            etag: assetHash.map { "\"\($0)\"" } ?? storedTag, contentType: contentType,
            createdAt: Date(millisecondsSince1970: try column("created_at", as: Int64.self)),
            modifiedAt: Date(millisecondsSince1970: try column("modified_at", as: Int64.self)), properties: properties)
    }
}
