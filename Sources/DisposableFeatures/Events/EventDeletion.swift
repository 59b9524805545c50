import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation

/// Deletes an event wholly — record, files, rows (change log included) — in an order that can be
/// interrupted at any point and run again (RET-1, RET-3).
package struct EventDeletion: Sendable {
    let events: EventRepository
    let records: DeletionRecordRepository
    let photos: PhotoRepository
    package let blobs: any BlobStore
    package let changes: ChangeHub
    package let clock: any AppClock

    init(
        events: EventRepository, records: DeletionRecordRepository, photos: PhotoRepository, blobs: any BlobStore, changes: ChangeHub,
        clock: any AppClock
    ) {
        self.events = events
        self.records = records
        self.photos = photos
        self.blobs = blobs
        self.changes = changes
        self.clock = clock
    }

    package enum Reason: String {
        case expired, organizer
        /// The admin deleted the organizer's account (ADM-4).
        case accountDeleted = "account-deleted"
    }

    package func delete(eventID: String, reason: Reason) async throws {
        // 1. The record first (no content: ids, times, counts), so it exists whatever happens next.
        let totals = try await photos.totals(eventID: eventID)
        try await records.record(eventID: eventID, reason: reason.rawValue, now: clock.now, photos: totals.photos, bytes: totals.bytes)
        // 2. The files: the event is already invisible (expired or being deleted), so none is served meanwhile.
        try await blobs.delete(prefix: BlobKey.event(eventID))
        // 3. The rows.
        try await events.deleteWithPhotos(eventID: eventID)
        await changes.deleted(eventID)
    }

    /// Events whose time is up (ended before `cutoff`), and those whose deletion a crash cut short.
    package func due(endedBy cutoff: Date) async throws -> [String] {
        try await records.due(endedBy: cutoff)
    }

    /// What was deleted when, the newest first (for the admin).
    package func newestRecords(limit: Int) async throws -> [DeletionRecord] {
        try await records.newest(limit: limit)
    }
}
