/// Schema step 8: change log. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v08ChangeLog = Migration(
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
    )
}
