/// Schema step 35: friends. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v35Friends = Migration(
        version: 35, name: "friends",
        statements: [
            // The capsule seed's stories 10–14: one row per pair, whoever asked; accepted_at set once the other said yes.
            """
            CREATE TABLE friendships (
                requester_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                addressee_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                created_at BIGINT NOT NULL,
                accepted_at BIGINT,
                PRIMARY KEY (requester_id, addressee_id)
            )
            """,
            "CREATE INDEX friendships_by_addressee ON friendships (addressee_id)",
        ]
    )
}
