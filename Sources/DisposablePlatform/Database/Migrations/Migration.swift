import DisposableAPI
import DisposableCore
import Foundation
import Logging
import SQLKit

/// One ordered schema change. Statements are plain SQL both engines accept, unless `postgres` differs.
package struct Migration: Sendable {
    package let version: Int
    package let name: String
    package let statements: [String]
    package var postgresStatements: [String]? = nil

    package func statements(for kind: DatabaseKind) -> [String] {
        kind == .postgres ? (postgresStatements ?? statements) : statements
    }
}

/// The schema, one small step each, one file each in `Migrations/` (`NN-name.swift`). Append only: a released
/// step is never edited.
///
/// Conventions: ids are opaque TEXT, times are BIGINT milliseconds since 1970, flags are BOOLEAN.
package let migrations: [Migration] = [
    .v01Users,
    .v02InstanceSettings,
    .v03Events,
    .v04Guests,
    .v05AccessTokens,
    .v06Photos,
    .v07Jobs,
    .v08ChangeLog,
    .v09DeletionRecords,
    .v10TermsAcceptanceAndPersonalLinks,
    .v11ApprovalQueue,
    .v12PendingWrites,
    .v13JoinKeys,
    .v14TokenLifetimes,
    .v15JobOwners,
    .v16WallLinks,
    .v17Quotas,
    .v18PasswordResets,
    .v19SessionDevices,
    .v20SupportTickets,
    .v21Avatars,
    .v22ResumableUploads,
    .v23PersonalLibrary,
    .v24LivePhotos,
    .v25LibraryVideos,
    .v26ResumableUploadsToTheLibrary,
    .v27Captions,
    .v28Guestbook,
    .v29Notifications,
    .v30EventVideos,
    .v31PhotoSignalsAndRecaps,
    .v32MomentsAndTimeZones,
    .v33UsernamesAndAppearance,
    .v34MonthlyCapsules,
    .v35Friends,
    .v36StoryBoard,
    .v37CapsuleSongClips,
    .v38SecondReview,
    .v39SignUpByMail,
    .v40OrganizerTerms,
    .v41RenderPhases,
    .v42LibraryCaptions,
    .v43Scrobblers,
    .v44WebPush,
    .v45OpenID,
    .v46GuestPush,
    .v47ProvenAddresses,
    .v48FairStaging,
    .v49RevealMoment,
    .v50FirstLooks,
    .v51AppPasswords,
    .v52WebDAV,
    .v53ClientErrors,
    .v54CoOrganizers,
    .v55DownloadCounts,
    .v56LocalCaptureTimes,
    .v57ApprovalWaitingIndex,
    .v58FeatureStateOffUsers,
]

/// Applies the steps a database has not seen yet, each in its own transaction.
public func migrateDatabase(_ database: any DatabaseEngine, logger: Logger) async throws {
    try await migrateDatabase(database, logger: logger, steps: migrations)
}

/// The first `steps` only: a database as an earlier release left it (the upgrade tests start from one).
package func migrateDatabase(_ database: any DatabaseEngine, logger: Logger, steps: [Migration]) async throws {
    try await database.sql { db in
        try await db.raw(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)"
        ).run()
    }
    for migration in steps {
        try await database.transaction { db in
            if database.kind == .postgres {
                // Several instances may start at once: only one of them migrates, the others wait.
                try await db.raw("SELECT pg_advisory_xact_lock(74042026)").run()
            }
            let applied = try await db.raw("SELECT version FROM schema_migrations WHERE version = \(bind: migration.version)")
                .first()
            guard applied == nil else { return }
            for statement in migration.statements(for: database.kind) {
                try await db.raw(SQLQueryString(statement)).run()
            }
            try await db.raw(
                """
                INSERT INTO schema_migrations (version, name, applied_at)
                VALUES (\(bind: migration.version), \(bind: migration.name), \(bind: Date().millisecondsSince1970))
                """
            ).run()
            logger.info("Applied migration \(migration.version): \(migration.name)")
        }
    }
}
