import Foundation
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// Files whose row never came (a crash between storing and recording) are found from the database's record of
/// writes in progress, not by listing the store (REL-1).
@Suite("Pending writes")
struct PendingWritesTests {
    @Test("Files written without their row are removed once the write is stale; recorded photos keep theirs", arguments: TestEngine.allCases)
    func orphansAreReconciled(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            // setup: a recorded photo, and a write that was begun and stored but never recorded
            let f = try await UploadTests.fixture(app)
            let kept = try await GalleryTests.shoot(app, 1, event: f.event, token: f.guest)[0]
            let writes = app.services.pendingWrites
            try await writes.begin(eventID: f.event, photoID: "orphan")
            try await app.services.blobs.put(data: Data("half an upload".utf8), key: BlobKey.original(f.event, "orphan"))
            #expect(app.storedFiles().contains("events/\(f.event)/orphan/original"))

            // MUT + validate: while another instance may still be writing, a fresh write is left alone…
            try await writes.reconcile(atStart: false)
            #expect(app.storedFiles().contains("events/\(f.event)/orphan/original"))
            // …once it is stale (or when the instance that began it starts again) its files go, and only them.
            app.clock.advance(by: PendingWrites.settleTime + 1)
            try await writes.reconcile(atStart: false)
            let files = app.storedFiles()
            #expect(!files.contains { $0.contains("orphan") }, "\(files)")
            #expect(files.contains("events/\(f.event)/\(kept)/original"))
            let photo = try await app.call(.get, "/api/v1/photos/\(kept)/original", token: f.guest)
            #expect(photo.status == .ok)
        }
    }
}
