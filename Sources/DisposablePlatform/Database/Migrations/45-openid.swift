/// Schema step 45: sign in with OpenID Connect. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v45OpenID = Migration(
        version: 45, name: "openid",
        statements: [
            // Which account a provider's person (issuer + subject, never the e-mail) signs in to. One link
            // per account and provider; the e-mail the provider gave, for the admin panel and My account.
            """
            CREATE TABLE openid_links (
                issuer TEXT NOT NULL,
                subject TEXT NOT NULL,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                email TEXT,
                linked_at BIGINT NOT NULL,
                PRIMARY KEY (issuer, subject)
            )
            """,
            "CREATE UNIQUE INDEX openid_links_by_user ON openid_links (user_id, issuer)",
            // A sign-in sent to the provider and not back yet: its `state` (hashed), the `nonce` its ID token must
            // carry, the PKCE verifier, and — when a signed-in person links — whose account. Taken once.
            """
            CREATE TABLE openid_attempts (
                state_hash TEXT PRIMARY KEY,
                nonce TEXT NOT NULL,
                verifier TEXT NOT NULL,
                user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
                next TEXT NOT NULL,
                expires_at BIGINT NOT NULL
            )
            """,
        ]
    )
}
