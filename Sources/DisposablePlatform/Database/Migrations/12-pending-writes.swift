/// Schema step 12: pending writes. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v12PendingWrites = Migration(
        version: 12,
        name: "pending writes",
        statements: [
            """
            CREATE TABLE pending_writes (
                photo_id TEXT PRIMARY KEY,
                event_id TEXT NOT NULL,
                instance TEXT NOT NULL,
                started_at BIGINT NOT NULL
            )
            """
        ]
    )
}
