/// Schema step 34: monthly capsules. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v34MonthlyCapsules = Migration(
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
    )
}

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
