/// Schema step 18: password resets. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v18PasswordResets = Migration(
        version: 18,
        name: "password resets",
        statements: [
            """
            CREATE TABLE password_resets (
                token_hash TEXT PRIMARY KEY,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                used_at BIGINT
            )
            """,
            "CREATE INDEX password_resets_by_user ON password_resets (user_id)",
        ]
    )
}
