/// Schema step 1: users. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v01Users = Migration(
        version: 1,
        name: "users",
        statements: [
            """
            CREATE TABLE users (
                id TEXT PRIMARY KEY,
                email TEXT NOT NULL UNIQUE,
                name TEXT NOT NULL,
                password_hash TEXT NOT NULL,
                is_admin BOOLEAN NOT NULL,
                created_at BIGINT NOT NULL
            )
            """
        ]
    )
}
