/// Schema step 46: a guest's phone gets the bell's notices too. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v46GuestPush = Migration(
        version: 46, name: "guest push",
        statements: [
            // A subscription is an account's or a guest's (a guest without an account is told that the
            // photos are revealed, or that someone liked theirs, like anyone). Rebuilt, as SQLite cannot loosen a
            // NOT NULL; gone with the account, or with the guest (and so with the event).
            """
            CREATE TABLE push_subscriptions_new (
                id TEXT PRIMARY KEY,
                user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
                guest_id TEXT REFERENCES guests(id) ON DELETE CASCADE,
                endpoint TEXT NOT NULL UNIQUE,
                p256dh TEXT NOT NULL,
                auth TEXT NOT NULL,
                language TEXT NOT NULL,
                device TEXT,
                created_at BIGINT NOT NULL,
                CHECK ((user_id IS NULL) <> (guest_id IS NULL))
            )
            """,
            """
            INSERT INTO push_subscriptions_new (id, user_id, endpoint, p256dh, auth, language, device, created_at)
            SELECT id, user_id, endpoint, p256dh, auth, language, device, created_at FROM push_subscriptions
            """,
            "DROP TABLE push_subscriptions",
            "ALTER TABLE push_subscriptions_new RENAME TO push_subscriptions",
            "CREATE INDEX push_subscriptions_by_user ON push_subscriptions (user_id)",
            "CREATE INDEX push_subscriptions_by_guest ON push_subscriptions (guest_id)",
        ]
    )
}
