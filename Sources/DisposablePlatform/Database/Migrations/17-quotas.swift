/// Schema step 17: quotas. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v17Quotas = Migration(
        version: 17,
        name: "quotas",
        statements: [
            // NULL: the instance's default quota (instance_settings 'default_quota_bytes').
            "ALTER TABLE users ADD COLUMN quota_bytes BIGINT",
            // The originals of the photos in their events, kept in step in the transactions that add and remove them.
            "ALTER TABLE users ADD COLUMN used_bytes BIGINT NOT NULL DEFAULT 0",
            """
            UPDATE users SET used_bytes = (
                SELECT COALESCE(SUM(photos.byte_size), 0) FROM photos JOIN events ON events.id = photos.event_id
                WHERE events.organizer_id = users.id)
            """,
        ]
    )
}
