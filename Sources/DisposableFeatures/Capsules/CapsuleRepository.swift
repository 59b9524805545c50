import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// Capsules in the database (CAP-2), and the library photos they are made of.
struct CapsuleRepository: Sendable {
    package let database: Database

    /// A library photo a capsule may hold.
    package struct Candidate: Sendable {
        package let asset: LibraryAsset
        package let signals: PhotoSignals?
        package var selection: SelectionCandidate { SelectionCandidate(id: asset.id, takenAt: asset.takenAt, signals: signals) }
    }

    /// Accounts that may have a capsule to release: photos or moments of `latest` (the last month over anywhere) and no
    /// capsule for it, or of the month before (still last month where the day is behind) and no capsule for that.
    /// Most of a month, once the 1st's capsules are out, it finds nobody.
    package func undecided(upTo latest: CapsuleMonth) async throws -> [(userID: String, timeZone: String?, decided: CapsuleMonth?)] {
        func photos(of month: CapsuleMonth) -> SQLQueryString {
            let dates = month.photoDates
            // Moments count too (a quiet month): written within the month somewhere on Earth.
            let (from, to) = (dates.lowerBound - 14 * 3600, dates.upperBound + 14 * 3600)
            return """
                (EXISTS (SELECT 1 FROM library_assets a WHERE a.user_id = users.id AND a.deleted_at IS NULL AND a.trashed_at IS NULL
                        AND a.taken_at >= \(bind: dates.lowerBound.millisecondsSince1970) AND a.taken_at < \(bind: dates.upperBound.millisecondsSince1970))
                 OR EXISTS (SELECT 1 FROM moments m WHERE m.user_id = users.id
                        AND m.created_at >= \(bind: from.millisecondsSince1970) AND m.created_at < \(bind: to.millisecondsSince1970)))
                """
        }
        let before = latest.previous
        let undecidedLatest = "(r.month IS NULL OR r.month < \(bind: latest.text)) AND " + photos(of: latest)
        let undecidedBefore = "(r.month IS NULL OR r.month < \(bind: before.text)) AND " + photos(of: before)
        return try await database.read { db in
            try await db.raw(
                "SELECT users.id, users.time_zone, r.month AS capsule_month FROM users LEFT JOIN capsule_releases r ON r.user_id = users.id WHERE ("
                    + undecidedLatest + ") OR (" + undecidedBefore + ")"
            ).all().map { row in
                (
                    try row.decode(column: "id", as: String.self), try row.decode(column: "time_zone", as: String?.self),
                    try row.decode(column: "capsule_month", as: String?.self).flatMap(CapsuleMonth.init)
                )
            }
        }
    }

    /// Marks `month`'s capsule made for the account, unless it already was (by this instance or another); says whether
    /// it was this call that did.
    package static func decide(_ month: CapsuleMonth, userID: String, in db: any SQLDatabase) async throws -> Bool {
        try await db.raw(
            """
            INSERT INTO capsule_releases (user_id, month) SELECT id, \(bind: month.text) FROM users WHERE id = \(bind: userID)
            ON CONFLICT (user_id) DO UPDATE SET month = excluded.month WHERE capsule_releases.month < excluded.month
            RETURNING user_id
            """
        ).first() != nil
    }

    /// Whether the month's photos are still arriving: one is being developed, or came in after `since` (an import
    /// under way). A capsule waits for them.
    package static func arriving(userID: String, month: CapsuleMonth, since: Date, in db: any SQLDatabase) async throws -> Bool {
        let dates = month.photoDates
        return try await db.raw(
            """
            SELECT 1 AS one FROM library_assets
            WHERE user_id = \(bind: userID) AND deleted_at IS NULL AND trashed_at IS NULL
              AND (status = 'processing' OR uploaded_at > \(bind: since.millisecondsSince1970))
              AND taken_at >= \(bind: dates.lowerBound.millisecondsSince1970) AND taken_at < \(bind: dates.upperBound.millisecondsSince1970)
            LIMIT 1
            """
        ).first() != nil
    }

    /// The month's photos: ready, in the library (not in the trash), not videos.
    package static func candidates(userID: String, month: CapsuleMonth, in db: any SQLDatabase) async throws -> [Candidate] {
        let dates = month.photoDates
        return try await db.raw(
            """
            SELECT * FROM library_assets
            WHERE user_id = \(bind: userID) AND deleted_at IS NULL AND trashed_at IS NULL AND status = 'ready'
              AND taken_at >= \(bind: dates.lowerBound.millisecondsSince1970) AND taken_at < \(bind: dates.upperBound.millisecondsSince1970)
            ORDER BY taken_at, id
            """
        ).all().map { row in
            Candidate(asset: try LibraryAsset.from(row), signals: PhotoSignals(stored: try row.decode(column: "signals", as: String?.self)))
        }.filter { !$0.asset.format.isVideo }
    }

    package func candidates(userID: String, month: CapsuleMonth) async throws -> [Candidate] {
        try await database.read { db in try await Self.candidates(userID: userID, month: month, in: db) }
    }

    /// A new capsule, unless the account has one for that month already; says whether it was made.
    package static func insert(_ capsule: Capsule, in db: any SQLDatabase) async throws -> Bool {
        try await db.raw(
            """
            INSERT INTO capsules (id, user_id, month, asset_ids, song_title, song_artist, released_at, updated_at)
            VALUES (\(bind: capsule.id), \(bind: capsule.userID), \(bind: capsule.month.text), \(bind: try Self.encode(capsule.assetIDs)),
                    \(bind: capsule.songTitle), \(bind: capsule.songArtist),
                    \(bind: capsule.releasedAt.millisecondsSince1970), \(bind: capsule.updatedAt.millisecondsSince1970))
            ON CONFLICT (user_id, month) DO NOTHING RETURNING id
            """
        ).first() != nil
    }

    package func find(id: String) async throws -> Capsule? {
        try await database.read { db in try await db.raw("SELECT * FROM capsules WHERE id = \(bind: id)").first().map(Self.capsule) }
    }

    package func find(userID: String, month: CapsuleMonth) async throws -> Capsule? {
        try await database.read { db in
            try await db.raw("SELECT * FROM capsules WHERE user_id = \(bind: userID) AND month = \(bind: month.text)").first().map(Self.capsule)
        }
    }

    /// Newest first.
    package func all(userID: String) async throws -> [Capsule] {
        try await database.read { db in try await Self.all(userID: userID, in: db) }
    }

    /// An owner's capsules, the latest month first (also read by the data export).
    package static func all(userID: String, in db: any SQLDatabase) async throws -> [Capsule] {
        try await db.raw("SELECT * FROM capsules WHERE user_id = \(bind: userID) ORDER BY month DESC").all().map(Self.capsule)
    }

    package func update(_ capsule: Capsule) async throws {
        try await database.sql { db in
            try await db.raw(
                """
                UPDATE capsules SET asset_ids = \(bind: try Self.encode(capsule.assetIDs)), quote = \(bind: capsule.quote),
                    song_title = \(bind: capsule.songTitle), song_artist = \(bind: capsule.songArtist),
                    updated_at = \(bind: capsule.updatedAt.millisecondsSince1970)
                WHERE id = \(bind: capsule.id)
                """
            ).run()
        }
    }

    /// These assets of the account, as they are now (any missing, trashed or deleted left out), in the order asked.
    package func assets(_ ids: [String], userID: String) async throws -> [LibraryAsset] {
        guard !ids.isEmpty else { return [] }
        let found = try await database.read { db in
            try await db.raw(
                """
                SELECT * FROM library_assets
                WHERE user_id = \(bind: userID) AND id IN (\(binds: ids)) AND deleted_at IS NULL AND trashed_at IS NULL
                """
            ).all().map(LibraryAsset.from)
        }
        let byID = Dictionary(found.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return ids.compactMap { byID[$0] }
    }

    /// The clip's new version, or none.
    package func setClip(_ capsule: Capsule, version: Int?) async throws {
        try await database.sql { db in
            try await db.raw("UPDATE capsules SET clip_version = \(bind: version) WHERE id = \(bind: capsule.id)").run()
        }
    }

    private static func capsule(from row: any SQLRow) throws -> Capsule {
        Capsule(
            id: try row.decode(column: "id", as: String.self), userID: try row.decode(column: "user_id", as: String.self),
            month: CapsuleMonth(try row.decode(column: "month", as: String.self)) ?? .init(year: 1970, month: 1),
            assetIDs: (try? JSONDecoder().decode([String].self, from: Data(try row.decode(column: "asset_ids", as: String.self).utf8))) ?? [],
            quote: try row.decode(column: "quote", as: String?.self), songTitle: try row.decode(column: "song_title", as: String?.self),
            songArtist: try row.decode(column: "song_artist", as: String?.self),
            releasedAt: Date(millisecondsSince1970: try row.decode(column: "released_at", as: Int64.self)),
            updatedAt: Date(millisecondsSince1970: try row.decode(column: "updated_at", as: Int64.self)),
            sharedAt: try row.decode(column: "shared_at", as: Int64?.self).map(Date.init(millisecondsSince1970:)),
            clipVersion: try row.decode(column: "clip_version", as: Int?.self))
    }

    private static func encode(_ ids: [String]) throws -> String { String(decoding: try JSONEncoder().encode(ids), as: UTF8.self) }

    /// Shares the capsule to the Story Board (`at`) unless it is already, or takes it back (nil); whether it changed.
    @discardableResult
    package static func markShared(_ id: String, at time: Date?, in db: any SQLDatabase) async throws -> Bool {
        guard let time else {
            return try await db.raw("UPDATE capsules SET shared_at = NULL WHERE id = \(bind: id) RETURNING id").first() != nil
        }
        return try await db.raw(
            "UPDATE capsules SET shared_at = \(bind: time.millisecondsSince1970) WHERE id = \(bind: id) AND shared_at IS NULL RETURNING id"
        ).first() != nil
    }
}

package struct Capsule: Sendable, Equatable {
    package let id: String
    package let userID: String
    package let month: CapsuleMonth
    package var assetIDs: [String]
    package var quote: String?
    package var songTitle: String?
    package var songArtist: String?
    package let releasedAt: Date
    package var updatedAt: Date
    /// On the Story Board since then.
    package var sharedAt: Date? = nil
    /// The song's clip, when there is one (its version).
    package var clipVersion: Int? = nil

    package init(
        id: String, userID: String, month: CapsuleMonth, assetIDs: [String], quote: String? = nil, songTitle: String? = nil,
        songArtist: String? = nil, releasedAt: Date, updatedAt: Date, sharedAt: Date? = nil, clipVersion: Int? = nil
    ) {
        self.id = id
        self.userID = userID
        self.month = month
        self.assetIDs = assetIDs
        self.quote = quote
        self.songTitle = songTitle
        self.songArtist = songArtist
        self.releasedAt = releasedAt
        self.updatedAt = updatedAt
        self.sharedAt = sharedAt
        self.clipVersion = clipVersion
    }

    /// Where its files live: with the owner's library, so they go with it.
    package var folder: String { LibraryFiles.library(of: userID) + "capsules/\(month.text)/" }
    package var clipKey: String { folder + "clip.m4a" }
    /// "♪ Title — Artist": the collage's words while the owner has written none of their own.
    package var songLine: String? { songTitle.map { "♪ \($0)" + (songArtist.map { " — \($0)" } ?? "") } }
}
