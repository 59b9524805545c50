/// Makes storage agree with the database after a crash (run at start-up, before serving).
/// An original is stored before its row is committed, so a crash in between leaves a file without a
/// row — never a row without its file. Such files, and unfinished staging files, are removed here.
struct StorageSweep {
    let services: AppServices

    func removeOrphans() async throws {
        if let local = services.blobs as? LocalBlobStore { try local.clearStaging() }
        var removed = 0
        for eventID in try await services.blobs.children(of: "events/") {
            guard try await services.events.find(id: eventID) != nil else {
                try await services.blobs.delete(prefix: BlobKey.event(eventID))
                removed += 1
                continue
            }
            let known = try await services.photos.ids(eventID: eventID)
            for photoID in try await services.blobs.children(of: BlobKey.event(eventID)) where !known.contains(photoID) {
                try await services.blobs.delete(prefix: BlobKey.photo(eventID, photoID))
                removed += 1
            }
        }
        if removed > 0 { services.logger.notice("Removed \(removed) unfinished uploads left by an interrupted run.") }
    }
}
