/// Schema step 29: notifications. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v29Notifications = Migration(
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
    )
}
