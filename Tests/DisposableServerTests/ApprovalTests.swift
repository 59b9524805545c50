import DisposableServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

/// ORG-4: an event that holds guests' photos until the organizer approves them.
@Suite("Approval queue (ORG-4)")
struct ApprovalTests {
    @Test("A held photo is seen only by its shooter and the organizer until approved, then by everyone", arguments: TestEngine.allCases)
    func approvalQueue(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer, ["requireApproval": true])
            #expect(event["requireApproval"] as? Bool == true)
            let id = event["id"] as! String
            let ana = try await app.guestToken(code: event["code"] as! String, name: "Ana")
            let ben = try await app.guestToken(code: event["code"] as! String, name: "Ben")

            let uploaded = try await app.upload(try await TestImages.jpeg(width: 300, height: 200), event: id, token: ana)
            #expect(uploaded.status == .created)
            #expect(uploaded["approved"] as? Bool == false)
            let photo = try #require(uploaded.string("id"))
            _ = try await app.waitUntilProcessed(photo, token: ana)
            // The organizer's own photos never wait.
            let own = try await app.upload(try await TestImages.jpeg(width: 301, height: 200), event: id, token: organizer)
            #expect(own["approved"] as? Bool == true)
            _ = try await app.waitUntilProcessed(try #require(own.string("id")), token: organizer)

            func galleryIDs(_ token: String) async throws -> Set<String> {
                let page = try await app.call(.get, "/api/v1/events/\(id)/photos", token: token)
                return Set((page["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String })
            }
            func feedPhotos(_ token: String) async throws -> [String] {
                let page = try await app.call(.get, "/api/v1/events/\(id)/changes?since=0", token: token, headers: [.accept: "application/json"])
                return (page["items"] as? [[String: Any]] ?? []).compactMap {
                    (($0["change"] as? [String: Any])?["photo"] as? [String: Any])?["id"] as? String
                }
            }
            #expect(try await feedPhotos(ana).contains(photo), "the shooter sees her own photo in the feed")
            #expect(try await galleryIDs(ana).contains(photo))
            #expect(try await galleryIDs(organizer).contains(photo))
            #expect(try await !galleryIDs(ben).contains(photo))
            try await app.call(.get, "/api/v1/photos/\(photo)/preview", token: ben).expectProblem(.notFound)
            #expect(try await !feedPhotos(ben).contains(photo))
            let stats = try await app.call(.get, "/api/v1/events/\(id)/stats", token: organizer)
            #expect(stats["awaitingApproval"] as? Int == 1)

            try await app.call(.post, "/api/v1/photos/\(photo)/approve", token: ana).expectProblem(.forbidden)
            let approved = try await app.call(.post, "/api/v1/photos/\(photo)/approve", token: organizer)
            #expect(approved.status == .ok)
            #expect(approved["approved"] as? Bool == true)
            #expect(try await galleryIDs(ben).contains(photo))
            #expect(try await feedPhotos(ben).contains(photo))
            #expect(try await app.call(.get, "/api/v1/photos/\(photo)/preview", token: ben).status == .ok)
            // Approving twice changes nothing and announces nothing more.
            let before = try await feedPhotos(ben).count
            #expect(try await app.call(.post, "/api/v1/photos/\(photo)/approve", token: organizer).status == .ok)
            #expect(try await feedPhotos(ben).count == before)
        }
    }
}
