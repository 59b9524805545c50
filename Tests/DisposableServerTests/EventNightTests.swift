import Foundation
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// On event night the render queue holds hundreds of photos, most already seen by their phone's first look; a photo
/// sent without one (a script, a browser that could not decode its file) is made before them, in one decode.
@Suite("Event night: the photos nobody sees yet first")
struct EventNightTests {
    @Test(
        "With the render queue held busy by photos already shown, one sent without a first look is made first and reaches another guest whole (upright, no location)",
        arguments: TestEngine.allCases)
    func unseenFirst(engine: TestEngine) async throws {
        // A 12 MP photo held sideways (EXIF orientation 6) with a location: what others see must be upright and bare.
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

            // Two photos shown by their first looks wait for the server's renders, then the new one comes.
            for index in 0..<2 {
                let shown = try await TestImages.structured(width: 800, height: 600) + Data("shown \(index)".utf8)
                let sent = try await app.uploadForm(shown, firstLook: try await TestImages.firstLook(of: shown), event: eventID, token: maggie)
                #expect(sent.status == .created && sent.string("status") == "ready", "\(sent.status) \(sent.text)")
            }
            let uploaded = try await app.upload(photo, event: eventID, token: maggie)
            let id = try #require(uploaded.string("id"), "\(uploaded.text)")
            #expect(uploaded.string("status") == "processing")

            // A worker reaches the queue: the photo nobody sees yet before the renders of those already shown.
            var claimed: [JobQueue.Kind] = []
            while let job = try await app.services.jobs.claim(now: app.clock.now) {
                claimed.append(job.kind)
                switch job.kind {
                case .renderPhoto: try await app.services.renderer.render(photoID: job.subjectID, jobID: job.id)
                default: try await app.services.renderer.renderPreview(photoID: job.subjectID, jobID: job.id)
                }
            }
            #expect(claimed == [.renderPhoto, .renderPreview, .renderPreview])

            // Ben sees it whole, from one decode: thumbnail and preview together, upright, without the location.
            let ready = try await Self.change("photo-ready", of: id, on: stream)
            #expect(ready["previewPending"] == nil && ready["firstLook"] == nil)
            #expect(ready["width"] as? Int == 3024 && ready["height"] as? Int == 4032)
            let urls = try #require(ready["urls"] as? [String: String])
            let thumbnail = Data(buffer: try await app.call(.get, try #require(urls["thumbnail"]), token: ben).body)
            #expect(TestImages.jpegSize(thumbnail).map { [$0.width, $0.height] } == [300, 400])
            // Upright: close to libvips' own thumbnail (turned the wrong way it measures ≈ 13 dB).
            let psnr = try #require(try await TestImages.psnr(thumbnail, try await TestImages.libvipsThumbnail(photo, size: 400)))
            #expect(psnr >= 33, "\(psnr) dB from libvips' thumbnail")
            let preview = Data(buffer: try await app.call(.get, try #require(urls["preview"]), token: ben).body)
            #expect(TestImages.jpegSize(preview).map { [$0.width, $0.height] } == [1200, 1600])
            let previewPSNR = try #require(try await TestImages.psnr(preview, try await TestImages.libvipsThumbnail(photo, size: 1600)))
            #expect(previewPSNR >= 40, "\(previewPSNR) dB from libvips' thumbnail")
            for derivative in [thumbnail, preview] { #expect(!(try await exifTags(derivative)).contains("GPS")) }
        }
    }

    @Test(
        "Two workers on one photo — a lease that ran out while its render waited for the CPU — leave it whole: original and renders",
        arguments: TestEngine.allCases)
    func sameJobTwice(engine: TestEngine) async throws {
        try await TestApp.run(engine, configure: { $0.mediaWorkers = 0 }) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer)
            let (eventID, code) = (event["id"] as! String, event["code"] as! String)
            let guest = try await app.guestToken(code: code, name: "Maggie")
            let picture = try await TestImages.structured(width: 4032, height: 3024)
            let plain = try #require(try await app.upload(picture, event: eventID, token: guest).string("id"))
            let shown = picture + Data("shown".utf8)
            let sent = try await app.uploadForm(shown, firstLook: try await TestImages.firstLook(of: shown), event: eventID, token: guest)
            let withFirstLook = try #require(sent.string("id"), "\(sent.text)")

            // Each job claimed, then claimed again once its lease ran out: two workers render the same photo at once.
            var jobs: [JobQueue.Job] = []
            while let job = try await app.services.jobs.claim(now: app.clock.now) { jobs.append(job) }
            let later = app.clock.now + JobQueue.lease + 1
            while let job = try await app.services.jobs.claim(now: later) { jobs.append(job) }
            #expect(jobs.count == 4 && Set(jobs.map(\.id)).count == 2)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for job in jobs {
                    group.addTask {
                        switch job.kind {
                        case .renderPhoto: try await app.services.renderer.render(photoID: job.subjectID, jobID: job.id)
                        default: try await app.services.renderer.renderPreview(photoID: job.subjectID, jobID: job.id)
                        }
                    }
                }
                try await group.waitForAll()
            }

            for (id, original) in [(plain, picture), (withFirstLook, shown)] {
                let photo = try await app.call(.get, "/api/v1/photos/\(id)", token: organizer)
                #expect(photo.string("status") == "ready" && photo.json["previewPending"] == nil, "\(photo.text)")
                for file in ["thumbnail", "preview"] {
                    #expect(try await app.call(.get, "/api/v1/photos/\(id)/\(file)", token: organizer).status == .ok, "\(file)")
                }
                #expect(Data(buffer: try await app.call(.get, "/api/v1/photos/\(id)/original", token: organizer).body) == original)
            }
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
