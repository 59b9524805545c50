/// Schema step 36: story board. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v36StoryBoard = Migration(
        version: 36, name: "story board",
        statements: [
            // Stories 20–23, 34: a capsule shared to the Story Board, its friends' reactions (one each) and comments.
            "ALTER TABLE capsules ADD COLUMN shared_at BIGINT",
            """
            CREATE TABLE capsule_reactions (
                capsule_id TEXT NOT NULL REFERENCES capsules(id) ON DELETE CASCADE,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                emoji TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                PRIMARY KEY (capsule_id, user_id)
            )
            """,
            """
            CREATE TABLE capsule_comments (
                id TEXT PRIMARY KEY,
                capsule_id TEXT NOT NULL REFERENCES capsules(id) ON DELETE CASCADE,
                author_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                text TEXT NOT NULL,
                created_at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX capsule_comments_by_capsule ON capsule_comments (capsule_id, created_at)",
        ]
    )
}
