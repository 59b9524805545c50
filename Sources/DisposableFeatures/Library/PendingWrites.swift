import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import Logging

/// Writes to the store that a database row will vouch for, recorded before they start (REL-1).
///
/// A photo's original is stored before its row is committed, so a crash in between leaves files without a
/// row — never a row without its file. Each such write is recorded here first and forgotten in the
/// transaction that commits the row; a record still here after a while names files nobody will ever
/// reference, and `reconcile` removes them. No listing of the whole store is ever needed.
package struct PendingWrites: Sendable {
    let rows: PendingWriteRepository
    package let blobs: any BlobStore
    package let clock: any AppClock
    package let logger: Logger
    /// Who writes: host and port, the same again when this instance restarts, never shared by two running ones.
    package let instance: String

    init(rows: PendingWriteRepository, blobs: any BlobStore, clock: any AppClock, logger: Logger, instance: String) {
        self.rows = rows
        self.blobs = blobs
        self.clock = clock
        self.logger = logger
        self.instance = instance
    }
    /// A write older than this is over, one way or another (an upload is stored and recorded in seconds).
    package static let settleTime: TimeInterval = 10 * 60

    /// Records that files of this photo are about to be written.
    package func begin(eventID: String, photoID: String) async throws {
        try await rows.begin(eventID: eventID, photoID: photoID, instance: instance, now: clock.now)
    }

    /// Records that files of a library asset's revision (`LibraryFiles`) are about to be written.
    package func begin(_ write: LibraryFiles) async throws {
        try await rows.begin(write, startedAt: clock.now, instance: instance)
    }

    /// The files are named by a committed row.
    package func end(photoID: String) async throws {
        try await rows.end(photoID: photoID)
    }

    /// Removes a library write's files and forgets it.
    package func abandon(_ write: LibraryFiles) async throws {
        try await blobs.delete(prefix: write.prefix)
        try await rows.end(photoID: write.writeID)
    }

    /// Ends a write whose photo will not be recorded, after its files are removed.
    package func abandon(eventID: String, photoID: String) async throws {
        try await blobs.delete(prefix: BlobKey.photo(eventID, photoID))
        try await rows.end(photoID: photoID)
    }

    /// Removes the files of writes that never got their row: those older than `settleTime` (other instances
    /// may be writing right now), and at start-up (`atStart`) every write this instance began before it stopped.
    package func reconcile(atStart: Bool) async throws {
        var removed = 0
        for write in try await rows.unsettled(before: clock.now - Self.settleTime, atStart: atStart, instance: instance) {
            if let prefix = write.prefix {
                let files = LibraryFiles(writeID: write.id, prefix: prefix)
                if try await rows.isRecorded(files) {
                    try await rows.end(photoID: write.id)
                } else {
                    try await abandon(files)
                    removed += 1
                }
            } else if write.recorded {
                try await rows.end(photoID: write.id)
            } else {
                try await abandon(eventID: write.eventID, photoID: write.id)
                removed += 1
            }
        }
        if removed > 0 { logger.notice("Removed the files of \(removed) uploads that an interrupted run never recorded.") }
    }
}
