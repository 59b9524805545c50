/// Schema step 28: guestbook. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v28Guestbook = Migration(
        version: 28,
        name: "guestbook",
        statements: [
            // SOC-1: posts are rows of `photos` — a photo (drawings are photos whose source is 'drawing') or a text
            // note, which has no file (its words in `caption`, its sha256 that of its id so it never collides).
            "ALTER TABLE photos ADD COLUMN kind TEXT NOT NULL DEFAULT 'photo'",
            "ALTER TABLE events ADD COLUMN posts_count_as_shots BOOLEAN NOT NULL DEFAULT FALSE",
            // SOC-2: kept in step with `likes` and `comments` in their transactions, so a gallery page reads them
            // with its rows.
            "ALTER TABLE photos ADD COLUMN like_count INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE photos ADD COLUMN comment_count INTEGER NOT NULL DEFAULT 0",
            """
            CREATE TABLE comments (
                id TEXT PRIMARY KEY,
                photo_id TEXT NOT NULL REFERENCES photos(id) ON DELETE CASCADE,
                event_id TEXT NOT NULL REFERENCES events(id) ON DELETE CASCADE,
                author_id TEXT NOT NULL,
                author_name TEXT NOT NULL,
                text TEXT NOT NULL,
                created_at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX comments_by_photo ON comments (photo_id, created_at, id)",
            "CREATE INDEX comments_by_author ON comments (event_id, author_id)",
            // One like per person (guest id, or the organizer's user id) per post.
            """
            CREATE TABLE likes (
                photo_id TEXT NOT NULL REFERENCES photos(id) ON DELETE CASCADE,
                liker_id TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                PRIMARY KEY (photo_id, liker_id)
            )
            """,
            "CREATE INDEX likes_by_liker ON likes (liker_id)",
        ]
    )
}
