/// Schema step 13: join keys. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v13JoinKeys = Migration(
        version: 13,
        name: "join keys",
        statements: [
            "ALTER TABLE events ADD COLUMN join_key TEXT",
            // 128 random bits from SQLite's generator (seeded by the system's).
            "UPDATE events SET join_key = lower(hex(randomblob(16))) WHERE join_key IS NULL",
        ],
        postgresStatements: [
            "ALTER TABLE events ADD COLUMN join_key TEXT",
            // 122 random bits from a version-4 UUID (built in since PostgreSQL 13).
            "UPDATE events SET join_key = replace(gen_random_uuid()::text, '-', '') WHERE join_key IS NULL",
        ]
    )
}
