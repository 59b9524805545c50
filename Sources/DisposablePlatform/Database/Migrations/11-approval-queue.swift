/// Schema step 11: approval queue. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v11ApprovalQueue = Migration(
        version: 11,
        name: "approval queue",
        statements: [
            "ALTER TABLE events ADD COLUMN require_approval BOOLEAN NOT NULL DEFAULT FALSE",
            "ALTER TABLE photos ADD COLUMN approved BOOLEAN NOT NULL DEFAULT TRUE",
        ]
    )
}
