/// Schema step 6: photos. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v06Photos = Migration(
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
    )
}
