/// Schema step 39: sign-up by mail. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v39SignUpByMail = Migration(
        version: 39, name: "sign-up by mail",
        statements: [
            // Registrations waiting for their owner to open the mailed link: the account is made then.
            """
            CREATE TABLE pending_sign_ups (
                token_hash TEXT PRIMARY KEY,
                email TEXT NOT NULL,
                name TEXT NOT NULL,
                password_hash TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL
            )
            """
        ]
    )
}
