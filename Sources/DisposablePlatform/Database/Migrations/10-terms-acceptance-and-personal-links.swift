/// Schema step 10: terms acceptance and personal links. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v10TermsAcceptanceAndPersonalLinks = Migration(
        version: 10,
        name: "terms acceptance and personal links",
        statements: [
            "ALTER TABLE guests ADD COLUMN terms_version TEXT",
            "ALTER TABLE guests ADD COLUMN terms_accepted_at BIGINT",
            """
            CREATE TABLE guest_links (
                token_hash TEXT PRIMARY KEY,
                guest_id TEXT NOT NULL REFERENCES guests(id) ON DELETE CASCADE,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX guest_links_guest ON guest_links (guest_id)",
        ]
    )
}
