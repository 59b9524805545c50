import DisposableAPI
import Foundation
import Logging
import SQLKit

/// One ordered schema change. Statements are plain SQL both engines accept, unless `postgres` differs.
struct Migration: Sendable {
    let version: Int
    let name: String
    let statements: [String]
    var postgresStatements: [String]? = nil

    func statements(for kind: DatabaseKind) -> [String] {
        kind == .postgres ? (postgresStatements ?? statements) : statements
    }
}

/// The schema, one small step each. Append only: a released step is never edited.
///
/// Conventions: ids are opaque TEXT, times are BIGINT milliseconds since 1970, flags are BOOLEAN.
let migrations: [Migration] = [
    Migration(
        version: 1,
        name: "users",
        statements: [
            """
            CREATE TABLE users (
                id TEXT PRIMARY KEY,
                email TEXT NOT NULL UNIQUE,
                name TEXT NOT NULL,
                password_hash TEXT NOT NULL,
                is_admin BOOLEAN NOT NULL,
                created_at BIGINT NOT NULL
            )
            """
        ]
    ),
    Migration(
        version: 2,
        name: "instance settings",
        statements: ["CREATE TABLE instance_settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)"]
    ),
    Migration(
        version: 3,
        name: "events",
        statements: [
            """
            CREATE TABLE events (
                id TEXT PRIMARY KEY,
                organizer_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                code TEXT NOT NULL UNIQUE,
                name TEXT NOT NULL,
                description TEXT NOT NULL,
                starts_at BIGINT NOT NULL,
                ends_at BIGINT NOT NULL,
                shots_per_guest INTEGER NOT NULL,
                reveal_mode TEXT NOT NULL,
                reveal_at BIGINT,
                allow_library_uploads BOOLEAN NOT NULL,
                allow_guest_downloads BOOLEAN NOT NULL,
                password_hash TEXT,
                max_guests INTEGER,
                guest_count INTEGER NOT NULL DEFAULT 0,
                first_photo_at BIGINT,
                created_at BIGINT NOT NULL,
                updated_at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX events_by_organizer ON events (organizer_id, starts_at)",
        ]
    ),
    Migration(
        version: 4,
        name: "guests",
        statements: [
            """
            CREATE TABLE guests (
                id TEXT PRIMARY KEY,
                event_id TEXT NOT NULL REFERENCES events(id) ON DELETE CASCADE,
                user_id TEXT REFERENCES users(id) ON DELETE SET NULL,
                name TEXT NOT NULL,
                joined_at BIGINT NOT NULL,
                left_at BIGINT,
                shots_used INTEGER NOT NULL DEFAULT 0
            )
            """,
            "CREATE INDEX guests_by_event ON guests (event_id)",
            "CREATE INDEX guests_by_user ON guests (user_id)",
        ]
    ),
    Migration(
        version: 5,
        name: "access tokens",
        statements: [
            """
            CREATE TABLE access_tokens (
                token_hash TEXT PRIMARY KEY,
                user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
                guest_id TEXT REFERENCES guests(id) ON DELETE CASCADE,
                created_at BIGINT NOT NULL,
                CHECK ((user_id IS NULL) <> (guest_id IS NULL))
            )
            """,
            "CREATE INDEX access_tokens_by_user ON access_tokens (user_id)",
            "CREATE INDEX access_tokens_by_guest ON access_tokens (guest_id)",
        ]
    ),
    Migration(
        version: 6,
        name: "photos",
        statements: [
            """
            CREATE TABLE photos (
                id TEXT PRIMARY KEY,
                event_id TEXT NOT NULL REFERENCES events(id) ON DELETE CASCADE,
                uploader_id TEXT NOT NULL,
                shooter_name TEXT NOT NULL,
                shooter_number INTEGER NOT NULL,
                idempotency_key TEXT,
                sha256 TEXT NOT NULL,
                format TEXT NOT NULL,
                source TEXT NOT NULL,
                byte_size BIGINT NOT NULL,
                width INTEGER,
                height INTEGER,
                taken_at BIGINT NOT NULL,
                uploaded_at BIGINT NOT NULL,
                status TEXT NOT NULL,
                failure TEXT,
                derivative_bytes BIGINT NOT NULL DEFAULT 0
            )
            """,
            "CREATE UNIQUE INDEX photos_by_content ON photos (event_id, sha256)",
            "CREATE UNIQUE INDEX photos_by_idempotency_key ON photos (uploader_id, idempotency_key)",
            "CREATE INDEX photos_by_upload_time ON photos (event_id, uploaded_at, id)",
            "CREATE INDEX photos_by_capture_time ON photos (event_id, taken_at, id)",
            "CREATE INDEX photos_by_uploader ON photos (event_id, uploader_id, uploaded_at)",
            // The organizer has no guest row; their photos are numbered from this counter.
            "ALTER TABLE events ADD COLUMN organizer_shots INTEGER NOT NULL DEFAULT 0",
        ]
    ),
    Migration(
        version: 7,
        name: "jobs",
        statements: [
            """
            CREATE TABLE jobs (
                id TEXT PRIMARY KEY,
                kind TEXT NOT NULL,
                subject_id TEXT NOT NULL,
                attempts INTEGER NOT NULL DEFAULT 0,
                run_after BIGINT NOT NULL,
                leased_until BIGINT,
                created_at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX jobs_by_due_time ON jobs (run_after, id)",
            "CREATE INDEX jobs_by_subject ON jobs (subject_id)",
        ]
    ),
    Migration(
        version: 8,
        name: "change log",
        statements: [
            """
            CREATE TABLE changes (
                event_id TEXT NOT NULL REFERENCES events(id) ON DELETE CASCADE,
                seq BIGINT NOT NULL,
                kind TEXT NOT NULL,
                photo_id TEXT,
                uploader_id TEXT,
                payload TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                PRIMARY KEY (event_id, seq)
            )
            """,
            // The per-event counter the sequence numbers come from, and what the clock has announced.
            "ALTER TABLE events ADD COLUMN change_seq BIGINT NOT NULL DEFAULT 0",
            "ALTER TABLE events ADD COLUMN reveal_announced BOOLEAN NOT NULL DEFAULT FALSE",
            "ALTER TABLE events ADD COLUMN end_announced BOOLEAN NOT NULL DEFAULT FALSE",
            "CREATE INDEX events_by_end ON events (ends_at)",
        ]
    ),
    Migration(
        version: 9,
        name: "deletion records",
        statements: [
            """
            CREATE TABLE deletion_records (
                event_id TEXT PRIMARY KEY,
                organizer_id TEXT NOT NULL,
                reason TEXT NOT NULL,
                ended_at BIGINT NOT NULL,
                deleted_at BIGINT NOT NULL,
                photo_count INTEGER NOT NULL,
                byte_count BIGINT NOT NULL
            )
            """
        ]
    ),
    Migration(
        version: 10,
        name: "terms acceptance and personal links",
        statements: [
            "ALTER TABLE guests ADD COLUMN terms_version TEXT",
            "ALTER TABLE guests ADD COLUMN terms_accepted_at BIGINT",
            """
            CREATE TABLE guest_links (
                token_hash TEXT PRIMARY KEY,
                guest_id TEXT NOT NULL REFERENCES guests(id) ON DELETE CASCADE,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX guest_links_guest ON guest_links (guest_id)",
        ]
    ),
    Migration(
        version: 11,
        name: "approval queue",
        statements: [
            "ALTER TABLE events ADD COLUMN require_approval BOOLEAN NOT NULL DEFAULT FALSE",
            "ALTER TABLE photos ADD COLUMN approved BOOLEAN NOT NULL DEFAULT TRUE",
        ]
    ),
    Migration(
        version: 12,
        name: "pending writes",
        statements: [
            """
            CREATE TABLE pending_writes (
                photo_id TEXT PRIMARY KEY,
                event_id TEXT NOT NULL,
                instance TEXT NOT NULL,
                started_at BIGINT NOT NULL
            )
            """
        ]
    ),
    Migration(
        version: 13,
        name: "join keys",
        statements: [
            "ALTER TABLE events ADD COLUMN join_key TEXT",
            // 128 random bits from SQLite's generator (seeded by the system's).
            "UPDATE events SET join_key = lower(hex(randomblob(16))) WHERE join_key IS NULL",
        ],
        postgresStatements: [
            "ALTER TABLE events ADD COLUMN join_key TEXT",
            // 122 random bits from a version-4 UUID (built in since PostgreSQL 13).
            "UPDATE events SET join_key = replace(gen_random_uuid()::text, '-', '') WHERE join_key IS NULL",
        ]
    ),
    Migration(
        version: 14,
        name: "token lifetimes",
        statements: [
            "ALTER TABLE access_tokens ADD COLUMN last_used_at BIGINT",
            "UPDATE access_tokens SET last_used_at = created_at",
            "CREATE INDEX access_tokens_last_used ON access_tokens (last_used_at)",
            "CREATE INDEX guest_links_expiry ON guest_links (expires_at)",
        ]
    ),
    Migration(
        version: 15,
        name: "job owners",
        statements: [
            "ALTER TABLE jobs ADD COLUMN owner TEXT NOT NULL DEFAULT ''",
            "CREATE INDEX jobs_by_owner ON jobs (owner, run_after, id)",
        ]
    ),
    Migration(
        version: 16,
        name: "wall links",
        statements: [
            "ALTER TABLE events ADD COLUMN wall_key TEXT",
            "CREATE UNIQUE INDEX events_wall_key ON events (wall_key)",
        ]
    ),
    Migration(
        version: 17,
        name: "quotas",
        statements: [
            // NULL: the instance's default quota (instance_settings 'default_quota_bytes').
            "ALTER TABLE users ADD COLUMN quota_bytes BIGINT",
            // The originals of the photos in their events, kept in step in the transactions that add and remove them.
            "ALTER TABLE users ADD COLUMN used_bytes BIGINT NOT NULL DEFAULT 0",
            """
            UPDATE users SET used_bytes = (
                SELECT COALESCE(SUM(photos.byte_size), 0) FROM photos JOIN events ON events.id = photos.event_id
                WHERE events.organizer_id = users.id)
            """,
        ]
    ),
    Migration(
        version: 18,
        name: "password resets",
        statements: [
            """
            CREATE TABLE password_resets (
                token_hash TEXT PRIMARY KEY,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                used_at BIGINT
            )
            """,
            "CREATE INDEX password_resets_by_user ON password_resets (user_id)",
        ]
    ),
    Migration(
        version: 19,
        name: "session devices",
        // "Chrome on Android": what the account's sessions page names each session by (issue 22, item 7).
        statements: ["ALTER TABLE access_tokens ADD COLUMN device TEXT"]
    ),
    Migration(
        version: 20,
        name: "support tickets",
        statements: [
            """
            CREATE TABLE support_tickets (
                id TEXT PRIMARY KEY,
                user_id TEXT REFERENCES users(id) ON DELETE SET NULL,
                email TEXT,
                subject TEXT NOT NULL,
                message TEXT NOT NULL,
                status TEXT NOT NULL,
                answer TEXT,
                created_at BIGINT NOT NULL,
                answered_at BIGINT,
                closed_at BIGINT
            )
            """,
            "CREATE INDEX support_tickets_by_status ON support_tickets (status, created_at)",
        ]
    ),
    Migration(
        version: 21,
        name: "avatars",
        // NULL: no picture; else a number that changes with each new one (its URL carries it, so caches follow).
        statements: ["ALTER TABLE users ADD COLUMN avatar_version INTEGER"]
    ),
    Migration(
        version: 22,
        name: "resumable uploads",
        statements: [
            // A shot held by a resumable upload still under way (UP-4): counted as used until the upload becomes a
            // photo (then it is `shots_used`) or ends without one (then it is given back).
            "ALTER TABLE guests ADD COLUMN shots_reserved INTEGER NOT NULL DEFAULT 0",
            // One tus upload: its bytes so far are in the instance's uploads/ folder, fsynced up to `received`.
            """
            CREATE TABLE resumable_uploads (
                id TEXT PRIMARY KEY,
                event_id TEXT NOT NULL,
                uploader_id TEXT NOT NULL,
                guest_id TEXT,
                length BIGINT NOT NULL,
                received BIGINT NOT NULL,
                idempotency_key TEXT,
                source TEXT NOT NULL,
                metadata TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                photo_id TEXT
            )
            """,
            "CREATE INDEX resumable_uploads_by_expiry ON resumable_uploads (expires_at)",
        ]
    ),
    Migration(
        version: 23,
        name: "personal library",
        statements: [
            // The library's change counter (LIB-4): each change to one of the user's assets takes the next number.
            "ALTER TABLE users ADD COLUMN library_seq BIGINT NOT NULL DEFAULT 0",
            // One asset of a user's own library (LIB-1). Its files are under library/<user>/<asset>/<file_revision>/;
            // an edit writes a new revision's files. `revision` is the counter value of its last change, `last_change`
            // what that change was; a deleted asset stays as a row without files (a tombstone) so that sync clients
            // hear of the deletion.
            """
            CREATE TABLE library_assets (
                id TEXT PRIMARY KEY,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                sha256 TEXT NOT NULL,
                format TEXT NOT NULL,
                byte_size BIGINT NOT NULL,
                derivative_bytes BIGINT NOT NULL DEFAULT 0,
                width INTEGER,
                height INTEGER,
                taken_at BIGINT NOT NULL,
                taken_at_given BOOLEAN NOT NULL,
                uploaded_at BIGINT NOT NULL,
                file_name TEXT NOT NULL,
                idempotency_key TEXT,
                status TEXT NOT NULL,
                file_revision INTEGER NOT NULL,
                revision BIGINT NOT NULL,
                last_change TEXT NOT NULL,
                trashed_at BIGINT,
                deleted_at BIGINT,
                source_photo_id TEXT
            )
            """,
            "CREATE UNIQUE INDEX library_assets_content ON library_assets (user_id, sha256) WHERE deleted_at IS NULL",
            "CREATE UNIQUE INDEX library_assets_key ON library_assets (user_id, idempotency_key)",
            "CREATE INDEX library_assets_timeline ON library_assets (user_id, taken_at, id)",
            "CREATE INDEX library_assets_feed ON library_assets (user_id, revision)",
            "CREATE INDEX library_assets_trash ON library_assets (trashed_at)",
            // A pending write of library files names the folder it writes (`PendingWrites`); event photos' follow
            // from their ids.
            "ALTER TABLE pending_writes ADD COLUMN blob_prefix TEXT",
        ]
    ),
    Migration(
        version: 24,
        name: "live photos",
        statements: [
            // LIB-3: an asset's motion. `embedded`: a Google motion photo, whose original holds the video at
            // `motion_offset` for `motion_size` bytes; `file`: an Apple Live Photo's video, stored beside the still
            // (`LibraryFiles.motion`) and counted in the quota. `motion_type` is its Content-Type.
            "ALTER TABLE library_assets ADD COLUMN motion TEXT",
            "ALTER TABLE library_assets ADD COLUMN motion_offset BIGINT",
            "ALTER TABLE library_assets ADD COLUMN motion_size BIGINT",
            "ALTER TABLE library_assets ADD COLUMN motion_type TEXT",
        ]
    ),
    Migration(
        version: 25,
        name: "library videos",
        statements: [
            // LIB-1: a video asset's length. Its playable copy is its `motion`: `embedded` over the whole original when
            // browsers play that as it is, else `derivative`, an H.264 MP4 made from it (not counted in the quota).
            "ALTER TABLE library_assets ADD COLUMN duration_ms BIGINT"
        ]
    ),
    Migration(
        version: 26,
        name: "resumable uploads to the library",
        statements: [
            // `event` (into `event_id`) or `library` (the uploader's own library; `event_id` is then empty).
            "ALTER TABLE resumable_uploads ADD COLUMN target TEXT NOT NULL DEFAULT 'event'"
        ]
    ),
    Migration(
        version: 27,
        name: "captions",
        statements: [
            // SOC-1: the shooter's caption of a photo (at most 300 characters, no control characters), or NULL.
            "ALTER TABLE photos ADD COLUMN caption TEXT"
        ]
    ),
    Migration(
        version: 28,
        name: "guestbook",
        statements: [
            // SOC-1: posts are rows of `photos` — a photo (drawings are photos whose source is 'drawing') or a text
            // note, which has no file (its words in `caption`, its sha256 that of its id so it never collides).
            "ALTER TABLE photos ADD COLUMN kind TEXT NOT NULL DEFAULT 'photo'",
            "ALTER TABLE events ADD COLUMN posts_count_as_shots BOOLEAN NOT NULL DEFAULT FALSE",
            // SOC-2: kept in step with `likes` and `comments` in their transactions, so a gallery page reads them
            // with its rows.
            "ALTER TABLE photos ADD COLUMN like_count INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE photos ADD COLUMN comment_count INTEGER NOT NULL DEFAULT 0",
            """
            CREATE TABLE comments (
                id TEXT PRIMARY KEY,
                photo_id TEXT NOT NULL REFERENCES photos(id) ON DELETE CASCADE,
                event_id TEXT NOT NULL REFERENCES events(id) ON DELETE CASCADE,
                author_id TEXT NOT NULL,
                author_name TEXT NOT NULL,
                text TEXT NOT NULL,
                created_at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX comments_by_photo ON comments (photo_id, created_at, id)",
            "CREATE INDEX comments_by_author ON comments (event_id, author_id)",
            // One like per person (guest id, or the organizer's user id) per post.
            """
            CREATE TABLE likes (
                photo_id TEXT NOT NULL REFERENCES photos(id) ON DELETE CASCADE,
                liker_id TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                PRIMARY KEY (photo_id, liker_id)
            )
            """,
            "CREATE INDEX likes_by_liker ON likes (liker_id)",
        ]
    ),
    Migration(
        version: 29, name: "notifications",
        statements: [
            // SOC-3: what a person is told (a like or a comment on their post, a reveal, a coming deletion). The
            // recipient is an uploader id: a guest's id, or a user's (an account sees its guests' too).
            """
            CREATE TABLE notifications (
                id TEXT PRIMARY KEY,
                recipient_id TEXT NOT NULL,
                kind TEXT NOT NULL,
                event_id TEXT NOT NULL REFERENCES events(id) ON DELETE CASCADE,
                photo_id TEXT REFERENCES photos(id) ON DELETE CASCADE,
                comment_id TEXT REFERENCES comments(id) ON DELETE CASCADE,
                actor_id TEXT,
                actor_name TEXT,
                text TEXT,
                created_at BIGINT NOT NULL,
                read_at BIGINT
            )
            """,
            "CREATE INDEX notifications_by_recipient ON notifications (recipient_id, created_at, id)",
            "CREATE INDEX notifications_by_photo ON notifications (photo_id, actor_id)",
            // RET-3: the "deleted on …" notice goes out once per event, whichever instance sees the moment first.
            "ALTER TABLE events ADD COLUMN deletion_warned BOOLEAN NOT NULL DEFAULT FALSE",
        ]
    ),
    Migration(
        version: 30, name: "event videos",
        statements: [
            // SOC-4: short videos in events, where the organizer allows them.
            "ALTER TABLE events ADD COLUMN allow_videos BOOLEAN NOT NULL DEFAULT FALSE",
            // A video post's length (for its tile) and its playable copy's size (for ranges).
            "ALTER TABLE photos ADD COLUMN duration_ms BIGINT",
            "ALTER TABLE photos ADD COLUMN video_bytes BIGINT",
        ]
    ),
    Migration(
        version: 31, name: "photo signals and recaps",
        statements: [
            // CAP-1/2: what the selection knows of each picture (PhotoSignals as JSON), measured at ingest.
            "ALTER TABLE photos ADD COLUMN signals TEXT",
            "ALTER TABLE library_assets ADD COLUMN signals TEXT",
            // CAP-1: everyone was told the event's recap is ready.
            "ALTER TABLE events ADD COLUMN recap_announced BOOLEAN NOT NULL DEFAULT FALSE",
        ]
    ),
    Migration(
        version: 32, name: "moments and time zones",
        statements: [
            // CAP-3: short dated notes of one's own.
            """
            CREATE TABLE moments (
                id TEXT PRIMARY KEY,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                text TEXT NOT NULL,
                created_at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX moments_by_user ON moments (user_id, created_at)",
            // The zone a user's months and years are counted in (IANA name; UTC when unset).
            "ALTER TABLE users ADD COLUMN time_zone TEXT",
        ]
    ),
    Migration(
        version: 33, name: "usernames and appearance",
        statements: [
            // The capsule seed's stories 2, 7–8 and 11: a unique handle friends find each other by (stored lowercase, so
            // unique whatever the case), and light or dark pages whatever the system says (NULL: follow the system).
            "ALTER TABLE users ADD COLUMN username TEXT",
            "CREATE UNIQUE INDEX users_by_username ON users (username)",
            "ALTER TABLE users ADD COLUMN appearance TEXT",
        ]
    ),
    Migration(
        version: 34, name: "monthly capsules",
        statements: capsuleTables + [
            // Notices about no event (a capsule, a year of moments): event_id may be empty, `period` says which
            // month or year. SQLite cannot drop a NOT NULL in place: the table is copied.
            """
            CREATE TABLE notifications_new (
                id TEXT PRIMARY KEY,
                recipient_id TEXT NOT NULL,
                kind TEXT NOT NULL,
                event_id TEXT REFERENCES events(id) ON DELETE CASCADE,
                photo_id TEXT REFERENCES photos(id) ON DELETE CASCADE,
                comment_id TEXT REFERENCES comments(id) ON DELETE CASCADE,
                actor_id TEXT,
                actor_name TEXT,
                text TEXT,
                created_at BIGINT NOT NULL,
                read_at BIGINT,
                period TEXT
            )
            """,
            """
            INSERT INTO notifications_new (id, recipient_id, kind, event_id, photo_id, comment_id, actor_id, actor_name, text, created_at, read_at)
            SELECT id, recipient_id, kind, event_id, photo_id, comment_id, actor_id, actor_name, text, created_at, read_at FROM notifications
            """,
            "DROP TABLE notifications",
            "ALTER TABLE notifications_new RENAME TO notifications",
            "CREATE INDEX notifications_by_recipient ON notifications (recipient_id, created_at, id)",
            "CREATE INDEX notifications_by_photo ON notifications (photo_id, actor_id)",
        ],
        postgresStatements: capsuleTables + [
            "ALTER TABLE notifications ALTER COLUMN event_id DROP NOT NULL",
            "ALTER TABLE notifications ADD COLUMN period TEXT",
        ]
    ),
    Migration(
        version: 35, name: "friends",
        statements: [
            // The capsule seed's stories 10–14: one row per pair, whoever asked; accepted_at set once the other said yes.
            """
            CREATE TABLE friendships (
                requester_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                addressee_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                created_at BIGINT NOT NULL,
                accepted_at BIGINT,
                PRIMARY KEY (requester_id, addressee_id)
            )
            """,
            "CREATE INDEX friendships_by_addressee ON friendships (addressee_id)",
        ]
    ),
    Migration(
        version: 36, name: "story board",
        statements: [
            // Stories 20–23, 34: a capsule shared to the Story Board, its friends' reactions (one each) and comments.
            "ALTER TABLE capsules ADD COLUMN shared_at BIGINT",
            """
            CREATE TABLE capsule_reactions (
                capsule_id TEXT NOT NULL REFERENCES capsules(id) ON DELETE CASCADE,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                emoji TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                PRIMARY KEY (capsule_id, user_id)
            )
            """,
            """
            CREATE TABLE capsule_comments (
                id TEXT PRIMARY KEY,
                capsule_id TEXT NOT NULL REFERENCES capsules(id) ON DELETE CASCADE,
                author_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                text TEXT NOT NULL,
                created_at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX capsule_comments_by_capsule ON capsule_comments (capsule_id, created_at)",
        ]
    ),
    Migration(
        version: 37, name: "capsule song clips",
        statements: [
            // A song's short clip (AAC), beside the capsule's collage; its version names the file's address.
            "ALTER TABLE capsules ADD COLUMN clip_version INTEGER"
        ]
    ),
    Migration(
        version: 38, name: "second review",
        statements: [
            // Issue 37, item 6: the library videos transcoded for an account, in 1080p-equivalent seconds, so that its
            // transcodes stay within a daily budget. Rows older than a day are no longer read.
            """
            CREATE TABLE transcode_usage (
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                at BIGINT NOT NULL,
                seconds BIGINT NOT NULL
            )
            """,
            "CREATE INDEX transcode_usage_by_user ON transcode_usage (user_id, at)",
            // Item 7: a friend request by e-mail address is not shown to the one who asked until it is accepted.
            "ALTER TABLE friendships ADD COLUMN by_email BOOLEAN NOT NULL DEFAULT FALSE",
        ]
    ),
]

/// Migration 34's steps that both engines share.
private let capsuleTables = [
    // CAP-2: a month of one's library in a few photos (their ids, in order, as JSON), with the owner's words
    // and song; one per user and month.
    """
    CREATE TABLE capsules (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        month TEXT NOT NULL,
        asset_ids TEXT NOT NULL,
        quote TEXT,
        song_title TEXT,
        song_artist TEXT,
        released_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
    )
    """,
    "CREATE UNIQUE INDEX capsules_by_month ON capsules (user_id, month)",
    // The last month whose capsule was decided (made, or nothing to make), and the last year whose moments
    // recap was announced: each is done once, by whichever instance gets there first.
    "ALTER TABLE users ADD COLUMN capsule_month TEXT",
    "ALTER TABLE users ADD COLUMN moments_recap_year INTEGER",
]

/// Applies the steps a database has not seen yet, each in its own transaction.
public func migrateDatabase(_ database: any DatabaseEngine, logger: Logger) async throws {
    try await database.sql { db in
        try await db.raw(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)"
        ).run()
    }
    for migration in migrations {
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
