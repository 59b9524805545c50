import DisposableAPI
import DisposableServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

/// ORG-2's numbers as the organizers read them: guests who joined against those who shot, and downloads — whole
/// ZIPs, and originals saved (a download link), not the viewer showing one.
@Suite("The organizer's numbers (ORG-2)")
struct OrganizerNumbersTests {
    @Test("Guests who shot of those who joined; ZIPs and saved originals counted, views and resumed ranges not", arguments: TestEngine.allCases)
    func numbers(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let owner = try await app.userToken()
            let event = try await app.createEvent(token: owner)
            let (id, code) = (event["id"] as! String, event["code"] as! String)
            let ana = try await app.guestToken(code: code, name: "Ana")
            let ben = try await app.guestToken(code: code, name: "Ben")
            _ = try await app.guestToken(code: code, name: "Cleo")  // joined, never shot
            var shots: [String] = []
            for (token, width) in [(ana, 200), (ana, 201), (ben, 202), (owner, 203)] {
                let shot = try #require(
                    try await app.upload(try await TestImages.jpeg(width: width, height: 150), event: id, token: token).string("id"))
                _ = try await app.waitUntilProcessed(shot, token: token)
                shots.append(shot)
            }
            for _ in 0..<2 { #expect(try await app.call(.get, "/api/v1/events/\(id)/archive.zip", token: ben).status == .ok) }
            #expect(try await app.call(.get, "/api/v1/photos/\(shots[0])/original?download", token: ben).status == .ok)
            #expect(try await app.call(.get, "/api/v1/photos/\(shots[0])/original", token: ben).status == .ok, "the viewer's look")
            let resumed = try await app.call(.get, "/api/v1/photos/\(shots[1])/original?download", token: ben, headers: [.range: "bytes=100-"])
            #expect(resumed.status == .partialContent, "a resumed download counts once, at its start")

            let stats = try await app.call(.get, "/api/v1/events/\(id)/stats", token: owner).decode(EventStats.self)
            #expect(stats.guests == 3 && stats.guestsWhoShot == 2, "the organizer's own shot is not a guest's")
            #expect(stats.downloads == EventStats.Downloads(zips: 2, originals: 1))
            #expect(stats.photos == 4)
        }
    }
}
