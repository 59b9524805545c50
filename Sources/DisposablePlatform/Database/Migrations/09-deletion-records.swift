/// Schema step 9: deletion records. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v09DeletionRecords = Migration(
        version: 9,
        name: "deletion records",
        statements: [
            """
            CREATE TABLE deletion_records (
                event_id TEXT PRIMARY KEY,
                organizer_id TEXT NOT NULL,
                reason TEXT NOT NULL,
                ended_at BIGINT NOT NULL,
                deleted_at BIGINT NOT NULL,
                photo_count INTEGER NOT NULL,
                byte_count BIGINT NOT NULL
            )
            """
        ]
    )
}
