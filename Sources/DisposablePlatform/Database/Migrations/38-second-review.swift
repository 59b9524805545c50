/// Schema step 38: second review. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v38SecondReview = Migration(
        version: 38, name: "second review",
        statements: [
            // The library videos transcoded for an account, in 1080p-equivalent seconds, so that its
            // transcodes stay within a daily budget. Rows older than a day are no longer read.
            """
            CREATE TABLE transcode_usage (
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                at BIGINT NOT NULL,
                seconds BIGINT NOT NULL
            )
            """,
            "CREATE INDEX transcode_usage_by_user ON transcode_usage (user_id, at)",
            // Item 7: a friend request by e-mail address is not shown to the one who asked until it is accepted.
            "ALTER TABLE friendships ADD COLUMN by_email BOOLEAN NOT NULL DEFAULT FALSE",
        ]
    )
}
