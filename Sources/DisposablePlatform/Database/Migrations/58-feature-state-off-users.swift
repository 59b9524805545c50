/// Schema step 58: what other features kept on `users` moves to tables of their own — the library's change counter,
/// the push notices an account lets through, the last capsule month made and the last moments recap told — each
/// copied, then dropped from `users`. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v58FeatureStateOffUsers = Migration(
        version: 58, name: "feature state off users",
        statements: [
            """
            CREATE TABLE library_sequences (
                user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                seq BIGINT NOT NULL
            )
            """,
            "INSERT INTO library_sequences (user_id, seq) SELECT id, library_seq FROM users WHERE library_seq > 0",
            """
            CREATE TABLE push_settings (
                user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                kinds TEXT NOT NULL
            )
            """,
            "INSERT INTO push_settings (user_id, kinds) SELECT id, push_kinds FROM users WHERE push_kinds IS NOT NULL",
            """
            CREATE TABLE capsule_releases (
                user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                month TEXT NOT NULL
            )
            """,
            "INSERT INTO capsule_releases (user_id, month) SELECT id, capsule_month FROM users WHERE capsule_month IS NOT NULL",
            """
            CREATE TABLE moments_recaps (
                user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                year INTEGER NOT NULL
            )
            """,
            "INSERT INTO moments_recaps (user_id, year) SELECT id, moments_recap_year FROM users WHERE moments_recap_year IS NOT NULL",
            "ALTER TABLE users DROP COLUMN library_seq",
            "ALTER TABLE users DROP COLUMN push_kinds",
            "ALTER TABLE users DROP COLUMN capsule_month",
            "ALTER TABLE users DROP COLUMN moments_recap_year",
        ]
    )
}
