import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// The media fast path (`FastPath/`) is optional: with it or without it, a signed link gets the same answer.
@Suite("Media fast path")
struct FastPathTests {
    @Test("A signed link answered in front of the router and by the router: same status, headers and bytes", arguments: [true, false])
    func sameAnswerBothWays(fastPath: Bool) async throws {
        try await TestApp.run(.sqlite, live: true, configure: { $0.mediaFastPath = fastPath }) { app in
            // setup: a ready photo and its signed links
            let f = try await UploadTests.fixture(app)
            let ids = try await GalleryTests.shoot(app, 1, event: f.event, token: f.guest)
            let photo = try await app.call(.get, "/api/v1/photos/\(ids[0])", token: f.guest)
            let urls = try #require(photo["urls"] as? [String: String])
            for link in [try #require(urls["thumbnail"]), try #require(urls["preview"])] {
                // MUT: the first request reads the file through the router (and keeps it in memory); the second
                // is answered from memory — in front of the router when the fast path is on.
                let before = app.services.requestLog.answeredInFront
                let first = try await app.call(.get, link)
                let second = try await app.call(.get, link)
                let etag = try #require(first.headers[.eTag])
                let firstUnchanged = try await app.call(.get, link, headers: [.ifNoneMatch: etag])
                let secondUnchanged = try await app.call(.get, link, headers: [.ifNoneMatch: etag])

                // validate
                #expect(app.services.requestLog.answeredInFront - before == (fastPath ? 3 : 0), "which path answered")
                #expect(first.status == .ok && second.status == .ok)
                #expect(first.body == second.body && first.body.readableBytes > 500)
                #expect(MediaLinkTests.describing(first.headers) == MediaLinkTests.describing(second.headers))
                #expect(firstUnchanged.status == .notModified && secondUnchanged.status == .notModified)
                #expect(MediaLinkTests.describing(firstUnchanged.headers) == MediaLinkTests.describing(secondUnchanged.headers))
            }
        }
    }
}
