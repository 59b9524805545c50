/// Schema step 48: unfinished resumable uploads hold what they received, not what they announced. Released steps are
/// never edited.
import DisposableCore

extension Migration {
    package static let v48FairStaging = Migration(
        version: 48, name: "fair staging",
        statements: [
            // The bytes an unfinished upload may have on the server's disk: what it received plus a bounded
            // allowance, raised while a PATCH streams (`ResumableUploadService.admit`, `grant`).
            "ALTER TABLE resumable_uploads ADD COLUMN held BIGINT NOT NULL DEFAULT 0",
            // The sender's network (an IPv6 client's /64), for the per-address cap.
            "ALTER TABLE resumable_uploads ADD COLUMN network TEXT NOT NULL DEFAULT ''",
            // When its first bytes began to arrive: an upload no PATCH ever began is given up after a few minutes.
            "ALTER TABLE resumable_uploads ADD COLUMN patched_at BIGINT",
            "UPDATE resumable_uploads SET held = length, patched_at = created_at",
        ]
    )
}
