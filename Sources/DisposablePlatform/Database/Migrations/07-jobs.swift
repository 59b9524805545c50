/// Schema step 7: jobs. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v07Jobs = Migration(
        version: 7,
        name: "jobs",
        statements: [
            """
            CREATE TABLE jobs (
                id TEXT PRIMARY KEY,
                kind TEXT NOT NULL,
                subject_id TEXT NOT NULL,
                attempts INTEGER NOT NULL DEFAULT 0,
                run_after BIGINT NOT NULL,
                leased_until BIGINT,
                created_at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX jobs_by_due_time ON jobs (run_after, id)",
            "CREATE INDEX jobs_by_subject ON jobs (subject_id)",
        ]
    )
}
