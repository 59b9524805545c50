/// Schema step 33: usernames and appearance. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v33UsernamesAndAppearance = Migration(
        version: 33, name: "usernames and appearance",
        statements: [
            // The capsule seed's stories 2, 7–8 and 11: a unique handle friends find each other by (stored lowercase, so
            // unique whatever the case), and light or dark pages whatever the system says (NULL: follow the system).
            "ALTER TABLE users ADD COLUMN username TEXT",
            "CREATE UNIQUE INDEX users_by_username ON users (username)",
            "ALTER TABLE users ADD COLUMN appearance TEXT",
        ]
    )
}
