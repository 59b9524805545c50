/// Schema step 47: whether an account's e-mail address was proven to be its owner's. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v47ProvenAddresses = Migration(
        version: 47, name: "proven addresses",
        statements: [
            // When the address was proven: a mailed sign-up link followed, or a provider that verified it opened or
            // was linked to the account. Only a proven address lets a provider's person into an existing account by
            // e-mail; accounts made before (without a mail server anyone could type any address) count as unproven.
            "ALTER TABLE users ADD COLUMN email_proven_at BIGINT"
        ]
    )
}
