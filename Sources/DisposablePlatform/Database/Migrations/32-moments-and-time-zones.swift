/// Schema step 32: moments and time zones. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v32MomentsAndTimeZones = Migration(
        version: 32, name: "moments and time zones",
        statements: [
            // CAP-3: short dated notes of one's own.
            """
            CREATE TABLE moments (
                id TEXT PRIMARY KEY,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                text TEXT NOT NULL,
                created_at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX moments_by_user ON moments (user_id, created_at)",
            // The zone a user's months and years are counted in (IANA name; UTC when unset).
            "ALTER TABLE users ADD COLUMN time_zone TEXT",
        ]
    )
}
