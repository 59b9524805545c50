import DisposableServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

/// The gallery's first page is read once per change of the event and shared by every phone whose page it is; a
/// viewer with marks of their own on it gets it written for them.
@Suite("Gallery pages shared by every phone (PERF-2)")
struct SharedGalleryPageTests {
    @Test(
        "Each viewer still gets their own marks on the shared page: their shots, their likes, their photo awaiting approval",
        arguments: TestEngine.allCases)
    func ownMarksOnASharedPage(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer)
            let id = event["id"] as! String
            let code = event["code"] as! String
            let ana = try await app.guestToken(code: code, name: "Ana")
            let ben = try await app.guestToken(code: code, name: "Ben")
            let cleo = try await app.guestToken(code: code, name: "Cleo")
            let anas = try await GalleryTests.shoot(app, 1, event: id, token: ana)[0]
            let bens = try await GalleryTests.shoot(app, 1, event: id, token: ben)[0]

            /// id → (mine, likedByMe, likeCount) as `token` sees the first page.
            func marks(_ token: String) async throws -> [String: [Int]] {
                let page = try await app.call(.get, "/api/v1/events/\(id)/photos", token: token)
                #expect(page.status == .ok, "\(page.text)")
                var marks: [String: [Int]] = [:]
                for item in page["items"] as? [[String: Any]] ?? [] {
                    marks[item["id"] as? String ?? ""] = [
                        item["mine"] as? Bool == true ? 1 : 0, item["likedByMe"] as? Bool == true ? 1 : 0, item["likeCount"] as? Int ?? -1,
                    ]
                }
                return marks
            }

            // Cleo, who shot nothing, reads first: the page everyone shares.
            #expect(try await marks(cleo) == [anas: [0, 0, 0], bens: [0, 0, 0]])
            #expect(try await marks(ana) == [anas: [1, 0, 0], bens: [0, 0, 0]])
            #expect(try await marks(ben) == [anas: [0, 0, 0], bens: [1, 0, 0]])
            #expect(try await marks(organizer) == [anas: [0, 0, 0], bens: [0, 0, 0]])

            #expect(try await app.call(.put, "/api/v1/photos/\(anas)/like", token: ben).status == .ok)
            #expect(try await marks(cleo) == [anas: [0, 0, 1], bens: [0, 0, 0]])
            #expect(try await marks(ben) == [anas: [0, 1, 1], bens: [1, 0, 0]])
            #expect(try await marks(ana) == [anas: [1, 0, 1], bens: [0, 0, 0]])

            // Approval turned on: Ana's next photo waits. Cleo reads first again; Ana still sees hers, the organizer
            // too, Cleo and Ben not.
            #expect(try await app.call(.patch, "/api/v1/events/\(id)", json: ["requireApproval": true], token: organizer).status == .ok)
            let held = try await GalleryTests.shoot(app, 1, event: id, token: ana)[0]
            #expect(try await marks(cleo).keys.sorted() == [anas, bens].sorted())
            #expect(try await marks(ana)[held] == [1, 0, 0])
            #expect(try await marks(ben)[held] == nil)
            #expect(try await marks(organizer)[held] == [0, 0, 0])
            #expect(try await app.call(.post, "/api/v1/photos/\(held)/approve", token: organizer).status == .ok)
            #expect(try await marks(cleo)[held] == [0, 0, 0])
            #expect(try await marks(ana)[held] == [1, 0, 0])
        }
    }
}
