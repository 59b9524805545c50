/// Schema step 22: resumable uploads. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v22ResumableUploads = Migration(
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
    )
}
