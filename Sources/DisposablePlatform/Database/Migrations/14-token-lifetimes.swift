/// Schema step 14: token lifetimes. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v14TokenLifetimes = Migration(
        version: 14,
        name: "token lifetimes",
        statements: [
            "ALTER TABLE access_tokens ADD COLUMN last_used_at BIGINT",
            "UPDATE access_tokens SET last_used_at = created_at",
            "CREATE INDEX access_tokens_last_used ON access_tokens (last_used_at)",
            "CREATE INDEX guest_links_expiry ON guest_links (expires_at)",
        ]
    )
}
