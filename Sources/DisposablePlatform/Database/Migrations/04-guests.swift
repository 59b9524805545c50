/// Schema step 4: guests. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v04Guests = Migration(
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
    )
}
