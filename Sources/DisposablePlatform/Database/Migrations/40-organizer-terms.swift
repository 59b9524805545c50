/// Schema step 40: the terms an organizer accepted at registration. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v40OrganizerTerms = Migration(
        version: 40, name: "organizer terms",
        statements: [
            // Which version of the terms and privacy notice an account accepted, and when, as
            // guests' are kept; a registration waiting for its mailed link holds the version until then.
            "ALTER TABLE users ADD COLUMN terms_version TEXT",
            "ALTER TABLE users ADD COLUMN terms_accepted_at BIGINT",
            "ALTER TABLE pending_sign_ups ADD COLUMN terms_version TEXT",
        ]
    )
}
