/// Schema step 26: resumable uploads to the library. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v26ResumableUploadsToTheLibrary = Migration(
        version: 26,
        name: "resumable uploads to the library",
        statements: [
            // `event` (into `event_id`) or `library` (the uploader's own library; `event_id` is then empty).
            "ALTER TABLE resumable_uploads ADD COLUMN target TEXT NOT NULL DEFAULT 'event'"
        ]
    )
}
