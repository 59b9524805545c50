/// Schema step 51: app passwords — a device's own revocable password, which opens WebDAV and nothing else.
/// Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v51AppPasswords = Migration(
        version: 51, name: "app passwords",
        statements: [
            // Only the secret's SHA-256 is kept: it is long and random, so a slow hash would buy nothing.
            """
            CREATE TABLE app_passwords (
                id TEXT PRIMARY KEY,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                name TEXT NOT NULL,
                secret_hash TEXT NOT NULL UNIQUE,
                created_at BIGINT NOT NULL,
                last_used_at BIGINT,
                last_used_address TEXT
            )
            """,
            "CREATE INDEX app_passwords_by_user ON app_passwords (user_id)",
        ]
    )
}
