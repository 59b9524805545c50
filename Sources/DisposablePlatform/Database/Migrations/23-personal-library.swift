/// Schema step 23: personal library. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v23PersonalLibrary = Migration(
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
    )
}
