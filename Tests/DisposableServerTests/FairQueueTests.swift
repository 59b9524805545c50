import Foundation
import Testing

@testable import DisposableServer

/// Issue 19, item 10: one guest's burst does not hold up everyone else's photos.
@Suite("Fair processing queue")
struct FairQueueTests {
    @Test("Owners take turns: a guest's single photo comes right after the first of another's burst", arguments: TestEngine.allCases)
    func takingTurns(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            // Due a day from the app's clock, so the app's own workers (on that clock) leave them alone.
            let later = app.clock.now + 86_400
            try await app.services.database.sql { db in
                for index in 0..<5 {
                    try await JobQueue.enqueue(.renderPhoto, subjectID: "a\(index)", owner: "A", now: later + Double(index), in: db)
                }
                try await JobQueue.enqueue(.renderPhoto, subjectID: "b0", owner: "B", now: later + 10, in: db)
                try await JobQueue.enqueue(.renderPhoto, subjectID: "c0", owner: "C", now: later + 11, in: db)
            }
            var order: [String] = []
            while let job = try await app.services.jobs.claim(now: later + 60) { order.append(job.subjectID) }
            #expect(order == ["a0", "b0", "c0", "a1", "a2", "a3", "a4"])
        }
    }
}
