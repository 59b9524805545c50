/// Schema step 43: a person's scrobbler, for the capsule's song. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v43Scrobblers = Migration(
        version: 43, name: "scrobblers",
        statements: [
            // The self-hosted Maloja server a person linked on My account, and its API key (a secret of
            // theirs: never answered back).
            """
            CREATE TABLE scrobblers (
                user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                kind TEXT NOT NULL,
                url TEXT NOT NULL,
                api_key TEXT NOT NULL,
                linked_at BIGINT NOT NULL
            )
            """
        ]
    )
}
