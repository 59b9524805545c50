/// Schema step 54: an event's co-organizers, and the one-time links that make them. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v54CoOrganizers = Migration(
        version: 54, name: "co-organizers",
        statements: [
            """
            CREATE TABLE co_organizers (
                event_id TEXT NOT NULL REFERENCES events(id) ON DELETE CASCADE,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                added_at BIGINT NOT NULL,
                PRIMARY KEY (event_id, user_id)
            )
            """,
            "CREATE INDEX co_organizers_by_user ON co_organizers (user_id)",
            """
            CREATE TABLE co_organizer_invitations (
                token_hash TEXT PRIMARY KEY,
                event_id TEXT NOT NULL REFERENCES events(id) ON DELETE CASCADE,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX co_organizer_invitations_by_event ON co_organizer_invitations (event_id)",
        ]
    )
}
