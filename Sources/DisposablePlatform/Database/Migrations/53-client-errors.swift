/// Schema step 53: the last errors browsers met on the instance's pages, for the admin. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v53ClientErrors = Migration(
        version: 53, name: "client errors",
        statements: [
            """
            CREATE TABLE client_errors (
                id TEXT PRIMARY KEY,
                at BIGINT NOT NULL,
                page TEXT NOT NULL,
                message TEXT NOT NULL,
                stack TEXT,
                browser TEXT
            )
            """,
            "CREATE INDEX client_errors_by_time ON client_errors (at)",
        ]
    )
}
