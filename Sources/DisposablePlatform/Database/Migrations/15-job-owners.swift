/// Schema step 15: job owners. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v15JobOwners = Migration(
        version: 15,
        name: "job owners",
        statements: [
            "ALTER TABLE jobs ADD COLUMN owner TEXT NOT NULL DEFAULT ''",
            "CREATE INDEX jobs_by_owner ON jobs (owner, run_after, id)",
        ]
    )
}
