import Foundation
import Testing

@testable import DisposableServer

/// On event night the render queue holds hundreds of photos; each is seen by everyone once its thumbnail
/// exists, and its preview follows on the same live stream.
@Suite("Event night: seen with its thumbnail, preview later")
struct EventNightTests {
    @Test(
        "With the render queue held busy, a new photo reaches another guest with its thumbnail (upright, no location); its preview follows on the same stream",
        arguments: TestEngine.allCases)
    func thumbnailFirst(engine: TestEngine) async throws {
        // A 12 MP photo held sideways (EXIF orientation 6) with a location: the early thumbnail must be upright and bare.
        let photo = try await TestImages.structured(
            width: 4032, height: 3024,
            exif: ["-Orientation#=6", "-GPSLatitude=48.8584", "-GPSLatitudeRef=N", "-GPSLongitude=2.2945", "-GPSLongitudeRef=E"])
        // No media workers: the test is the worker, so the queue stays as busy as it says.
        try await TestApp.run(engine, live: true, configure: { $0.mediaWorkers = 0 }) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer)
            let (eventID, code) = (event["id"] as! String, event["code"] as! String)
            let maggie = try await app.guestToken(code: code, name: "Maggie")
            let ben = try await app.guestToken(code: code, name: "Ben")
            let stream = try await app.subscribe(event: eventID, token: ben)

            // Two earlier photos wait in the queue, then the new one, then one more.
            let small = try await TestImages.jpeg(width: 800, height: 600)
            for index in 0..<2 {
                #expect(try await app.upload(small + Data("earlier \(index)".utf8), event: eventID, token: maggie).status == .created)
            }
            let uploaded = try await app.upload(photo, event: eventID, token: maggie)
            let id = try #require(uploaded.string("id"), "\(uploaded.text)")
            #expect(try await app.upload(small + Data("later".utf8), event: eventID, token: maggie).status == .created)

            // A worker reaches the queue: every waiting thumbnail before any preview (the last photo, with none
            // waiting behind it, is made whole at once).
            var claimed: [JobQueue.Kind] = []
            for _ in 0..<4 {
                let job = try #require(try await app.services.jobs.claim(now: app.clock.now))
                claimed.append(job.kind)
                try await app.services.renderer.render(photoID: job.subjectID, jobID: job.id)
            }
            #expect(claimed == [.renderPhoto, .renderPhoto, .renderPhoto, .renderPhoto])

            // Ben sees the new photo now, its thumbnail standing in for the preview.
            let ready = try await Self.change("photo-ready", of: id, on: stream)
            #expect(ready["previewPending"] as? Bool == true)
            #expect(ready["width"] as? Int == 3024 && ready["height"] as? Int == 4032)
            let early = try #require(ready["urls"] as? [String: String])
            #expect(early["preview"] == early["thumbnail"])
            let thumbnail = Data(buffer: try await app.call(.get, try #require(early["thumbnail"]), token: ben).body)
            #expect(TestImages.jpegSize(thumbnail).map { [$0.width, $0.height] } == [300, 400])
            // Upright: close to libvips' own thumbnail (turned the wrong way it measures ≈ 13 dB).
            let psnr = try #require(try await TestImages.psnr(thumbnail, try await TestImages.libvipsThumbnail(photo, size: 400)))
            #expect(psnr >= 33, "\(psnr) dB from libvips' thumbnail")
            #expect(!(try await exifTags(thumbnail)).contains("GPS"))
            // The session's preview address answers with the thumbnail meanwhile, never to be cached as the preview.
            let standIn = try await app.call(.get, "/api/v1/photos/\(id)/preview", token: ben)
            #expect(standIn.status == .ok && Data(buffer: standIn.body) == thumbnail)
            #expect(standIn.headers[.cacheControl] == "private, no-store")

            // The previews, when the machine has time: Ben's same stream swaps this one in.
            var previews = 0
            while let job = try await app.services.jobs.claim(now: app.clock.now) {
                #expect(job.kind == .renderPreview)
                try await app.services.renderer.renderPreview(photoID: job.subjectID, jobID: job.id)
                previews += 1
            }
            #expect(previews == 3)
            let updated = try await Self.change("photo-updated", of: id, on: stream)
            #expect(updated["previewPending"] == nil)
            let final = try #require(updated["urls"] as? [String: String])
            #expect(final["preview"] != final["thumbnail"])
            let preview = Data(buffer: try await app.call(.get, try #require(final["preview"]), token: ben).body)
            #expect(TestImages.jpegSize(preview).map { [$0.width, $0.height] } == [1200, 1600])
            let previewPSNR = try #require(try await TestImages.psnr(preview, try await TestImages.libvipsThumbnail(photo, size: 1600)))
            #expect(previewPSNR >= 40, "\(previewPSNR) dB from libvips' thumbnail")
            #expect(!(try await exifTags(preview)).contains("GPS"))
            // The thumbnail is the one shown first: not made again.
            #expect(Data(buffer: try await app.call(.get, try #require(final["thumbnail"]), token: ben).body) == thumbnail)
        }
    }

    /// The photo of the first `kind` change about `photoID` on the stream.
    static func change(_ kind: String, of photoID: String, on stream: SSEClient) async throws -> [String: Any] {
        while let event = try await stream.next() {
            if event.name == kind, let photo = event.json["photo"] as? [String: Any], photo["id"] as? String == photoID { return photo }
        }
        throw TestSetupError("no \(kind) for \(photoID) on the stream")
    }
}
