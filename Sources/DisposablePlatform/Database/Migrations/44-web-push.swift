/// Schema step 44: Web Push subscriptions. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v44WebPush = Migration(
        version: 44, name: "web push",
        statements: [
            // A browser's push subscription (RFC 8030) for an account: where to send, and the keys to
            // encrypt for it (RFC 8291); the page's language, for the words.
            """
            CREATE TABLE push_subscriptions (
                id TEXT PRIMARY KEY,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                endpoint TEXT NOT NULL UNIQUE,
                p256dh TEXT NOT NULL,
                auth TEXT NOT NULL,
                language TEXT NOT NULL,
                device TEXT,
                created_at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX push_subscriptions_by_user ON push_subscriptions (user_id)",
            // Which kinds of notice an account wants on its phones (a JSON list; NULL: all).
            "ALTER TABLE users ADD COLUMN push_kinds TEXT",
            // When a notice was handed to the push sender; those before this step never are.
            "ALTER TABLE notifications ADD COLUMN pushed_at BIGINT",
            "UPDATE notifications SET pushed_at = created_at",
            "CREATE INDEX notifications_unpushed ON notifications (pushed_at, created_at)",
        ]
    )
}
