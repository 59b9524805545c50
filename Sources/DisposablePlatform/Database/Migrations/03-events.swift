/// Schema step 3: events. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v03Events = Migration(
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
    )
}
