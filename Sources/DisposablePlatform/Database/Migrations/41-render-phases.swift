/// Schema step 41: an event photo's two render phases and the queue's priorities. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v41RenderPhases = Migration(
        version: 41, name: "render phases",
        statements: [
            // A photo is shown once its thumbnail exists; its preview follows (a `render-preview` job).
            "ALTER TABLE photos ADD COLUMN preview_pending BOOLEAN NOT NULL DEFAULT FALSE",
            // Lower runs first (`JobQueue.Priority`); every job queued before this step was a whole render. `turn`: how
            // many of its owner's jobs of that priority were queued before it — owners take turns by it, read in
            // index order (counting them at each claim cost 140 ms with 1,800 jobs queued, under the write lock).
            "ALTER TABLE jobs ADD COLUMN priority INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE jobs ADD COLUMN turn INTEGER NOT NULL DEFAULT 0",
            "CREATE INDEX jobs_by_turn ON jobs (priority, turn, run_after, id)",
        ]
    )
}
