/// Schema step 5: access tokens. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v05AccessTokens = Migration(
        version: 5,
        name: "access tokens",
        statements: [
            """
            CREATE TABLE access_tokens (
                token_hash TEXT PRIMARY KEY,
                user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
                guest_id TEXT REFERENCES guests(id) ON DELETE CASCADE,
                created_at BIGINT NOT NULL,
                CHECK ((user_id IS NULL) <> (guest_id IS NULL))
            )
            """,
            "CREATE INDEX access_tokens_by_user ON access_tokens (user_id)",
            "CREATE INDEX access_tokens_by_guest ON access_tokens (guest_id)",
        ]
    )
}
