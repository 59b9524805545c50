import Foundation
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// One guest's burst does not hold up everyone else's photos.
@Suite("Fair processing queue")
struct FairQueueTests {
    @Test("Owners take turns: a guest's single photo comes right after the first of another's burst", arguments: TestEngine.allCases)
    func takingTurns(engine: TestEngine) async throws {
        // No workers of the app's own: they release every lease as they start, and one starting late made a job
        // claimed here claimable again.
        try await TestApp.run(engine, configure: { $0.mediaWorkers = 0 }) { app in
            let later = app.clock.now + 86_400
            try await app.services.database.sql { db in
                for index in 0..<5 {
                    try await JobRepository.enqueue(
                        .renderPhoto, subjectID: "a\(index)", owner: "A", priority: .unseen, now: later + Double(index), in: db)
                }
                try await JobRepository.enqueue(.renderPhoto, subjectID: "b0", owner: "B", priority: .unseen, now: later + 10, in: db)
                try await JobRepository.enqueue(.renderPhoto, subjectID: "c0", owner: "C", priority: .unseen, now: later + 11, in: db)
            }
            var order: [String] = []
            while let job = try await app.services.jobs.claim(now: later + 60) { order.append(job.subjectID) }
            #expect(order == ["a0", "b0", "c0", "a1", "a2", "a3", "a4"])
        }
    }

    @Test(
        "Every photo nobody sees yet before those already shown, event photos before videos and libraries; turns within each",
        arguments: TestEngine.allCases)
    func priorities(engine: TestEngine) async throws {
        try await TestApp.run(engine, configure: { $0.mediaWorkers = 0 }) { app in
            let later = app.clock.now + 86_400
            // Queued oldest first in the order a busy night could: a library import, photos already shown, a video, then photos nobody sees yet.
            let queued: [(String, String, JobQueue.Kind, JobQueue.Priority)] = [
                ("library", "L", .renderAsset, .library), ("preview-a0", "A", .renderPreview, .seen),
                ("preview-a1", "A", .renderPreview, .seen), ("preview-b0", "B", .renderPreview, .seen),
                ("video-c", "C", .renderPhoto, .video), ("thumb-a2", "A", .renderPhoto, .unseen),
                ("thumb-a3", "A", .renderPhoto, .unseen), ("thumb-b1", "B", .renderPhoto, .unseen),
            ]
            try await app.services.database.sql { db in
                for (index, (subject, owner, kind, priority)) in queued.enumerated() {
                    try await JobRepository.enqueue(kind, subjectID: subject, owner: owner, priority: priority, now: later + Double(index), in: db)
                }
            }
            var order: [String] = []
            while let job = try await app.services.jobs.claim(now: later + 60) { order.append(job.subjectID) }
            #expect(order == ["thumb-a2", "thumb-b1", "thumb-a3", "preview-a0", "preview-b0", "preview-a1", "video-c", "library"])
            // The worker kept for photos nobody sees yet leaves everything else to the others.
            try await app.services.database.sql { db in
                try await JobRepository.enqueue(.renderPreview, subjectID: "preview-z", owner: "Z", priority: .seen, now: later, in: db)
            }
            #expect(try await app.services.jobs.claim(now: later + 60, upTo: .unseen) == nil)
            #expect(try await app.services.jobs.claim(now: later + 60)?.subjectID == "preview-z")
        }
    }
}
