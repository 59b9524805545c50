import Foundation
import HTTPTypes
import NIOCore
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// The phone makes the first look: a photo sent with its own small JPEG is seen by everyone at its acknowledgement;
/// the server's thumbnail and preview follow, replace it and are compared with it.
@Suite("First looks from the phone")
struct FirstLookTests {
    @Test(
        "Sent with its first look, a photo reaches another guest at once (upright, bare); the server's renders replace it, made in one decode",
        arguments: TestEngine.allCases)
    func seenAtOnce(engine: TestEngine) async throws {
        // A 12 MP photo held sideways (EXIF orientation 6) with a location, and the phone's upright first look of it.
        let photo = try await TestImages.structured(
            width: 4032, height: 3024,
            exif: ["-Orientation#=6", "-GPSLatitude=48.8584", "-GPSLatitudeRef=N", "-GPSLongitude=2.2945", "-GPSLongitudeRef=E"])
        let firstLook = try await TestImages.firstLook(of: photo)
        #expect(TestImages.jpegSize(firstLook).map { [$0.width, $0.height] } == [480, 640])
        // No media workers: nothing renders until the test does.
        try await TestApp.run(engine, live: true, configure: { $0.mediaWorkers = 0 }) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer)
            let (eventID, code) = (event["id"] as! String, event["code"] as! String)
            let maggie = try await app.guestToken(code: code, name: "Maggie")
            let ben = try await app.guestToken(code: code, name: "Ben")
            let stream = try await app.subscribe(event: eventID, token: ben)

            let uploaded = try await app.uploadForm(photo, firstLook: firstLook, event: eventID, token: maggie)
            #expect(uploaded.status == .created, "\(uploaded.text)")
            #expect(uploaded.string("status") == "ready")
            let id = try #require(uploaded.string("id"))

            // Ben sees it now: its size as displayed, the first look standing in for thumbnail and preview.
            let ready = try await EventNightTests.change("photo-ready", of: id, on: stream)
            #expect(ready["previewPending"] as? Bool == true)
            #expect(ready["width"] as? Int == 3024 && ready["height"] as? Int == 4032)
            let early = try #require(ready["urls"] as? [String: String])
            let earlyThumbnail = try #require(early["thumbnail"])
            #expect(early["preview"] == earlyThumbnail && earlyThumbnail.contains("first-look.jpg"))
            let shown = Data(buffer: try await app.call(.get, earlyThumbnail, token: nil).body)
            #expect(TestImages.jpegSize(shown).map { [$0.width, $0.height] } == [480, 640])
            #expect(shown != firstLook, "kept as sent, not encoded again")
            #expect(try await exifTags(shown).isEmpty)
            let psnr = try #require(try await TestImages.psnr(shown, firstLook))
            #expect(psnr >= 30, "\(psnr) dB from what the phone sent")
            // Through the session's address too, never cached as the thumbnail.
            let standIn = try await app.call(.get, "/api/v1/photos/\(id)/thumbnail", token: ben)
            #expect(standIn.status == .ok && Data(buffer: standIn.body) == shown)
            #expect(standIn.headers[.cacheControl] == "private, no-store")

            // The server's renders, in the previews' turn: both from one decode, and they replace it.
            let job = try #require(try await app.services.jobs.claim(now: app.clock.now))
            #expect(job.kind == .renderPreview)
            try await app.services.renderer.renderPreview(photoID: job.subjectID, jobID: job.id)
            #expect(try await app.services.jobs.claim(now: app.clock.now) == nil)
            let updated = try await EventNightTests.change("photo-updated", of: id, on: stream)
            #expect(updated["previewPending"] == nil)
            let final = try #require(updated["urls"] as? [String: String])
            #expect(final["thumbnail"]?.contains("thumbnail.jpg") == true && final["preview"]?.contains("preview.jpg") == true)
            let thumbnail = Data(buffer: try await app.call(.get, try #require(final["thumbnail"]), token: nil).body)
            #expect(TestImages.jpegSize(thumbnail).map { [$0.width, $0.height] } == [300, 400])
            let preview = Data(buffer: try await app.call(.get, try #require(final["preview"]), token: nil).body)
            #expect(TestImages.jpegSize(preview).map { [$0.width, $0.height] } == [1200, 1600])
            #expect(!(try await exifTags(preview)).contains("GPS"))
            // The first look is gone; its address, in a gallery fetched just before, shows the server's thumbnail.
            #expect(!app.storedFiles().contains { $0.hasSuffix("first-look.jpg") })
            #expect(Data(buffer: try await app.call(.get, earlyThumbnail, token: nil).body) == thumbnail)
            let metrics = try await app.call(.get, "/metrics", token: try await app.adminToken()).text
            #expect(metrics.contains("disposable_first_looks_total{outcome=\"confirmed\"}"))
        }
    }

    @Test("A first look of another picture is shown until the server's thumbnail, then replaced; that guest's next ones wait for the server")
    func anotherPicture() async throws {
        let photo = try await TestImages.structured(width: 1600, height: 1200)
        let other = try await TestImages.firstLook(of: try await TestImages.structured(width: 1600, height: 1200))
        try await TestApp.run(.sqlite, live: true, configure: { $0.mediaWorkers = 0 }) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer)
            let (eventID, code) = (event["id"] as! String, event["code"] as! String)
            let maggie = try await app.guestToken(code: code, name: "Maggie")
            let uploaded = try await app.uploadForm(photo, firstLook: other, event: eventID, token: maggie)
            #expect(uploaded.string("status") == "ready", "\(uploaded.text)")
            let id = try #require(uploaded.string("id"))

            let job = try #require(try await app.services.jobs.claim(now: app.clock.now))
            try await app.services.renderer.renderPreview(photoID: job.subjectID, jobID: job.id)
            let replaced = try await app.call(.get, "/api/v1/photos/\(id)", token: maggie)
            let urls = try #require(replaced["urls"] as? [String: Any])
            let thumbnail = Data(buffer: try await app.call(.get, try #require(urls["thumbnail"] as? String), token: nil).body)
            let reference = try await TestImages.libvipsThumbnail(photo, size: 400)
            #expect(try #require(try await TestImages.psnr(thumbnail, reference)) >= 33, "the server's own thumbnail")
            let metrics = try await app.call(.get, "/metrics", token: try await app.adminToken()).text
            #expect(metrics.contains("disposable_first_looks_total{outcome=\"refuted\"}"))

            // Maggie's next photo, with a true first look, waits for the server like one without.
            let next = try await TestImages.structured(width: 1600, height: 1200)
            let again = try await app.uploadForm(next, firstLook: try await TestImages.firstLook(of: next), event: eventID, token: maggie)
            #expect(again.status == .created && again.string("status") == "processing", "\(again.text)")
            // Ben's are still shown at once.
            let ben = try await app.guestToken(code: code, name: "Ben")
            let third = try await TestImages.structured(width: 1600, height: 1200)
            let bens = try await app.uploadForm(third, firstLook: try await TestImages.firstLook(of: third), event: eventID, token: ben)
            #expect(bens.string("status") == "ready", "\(bens.text)")
        }
    }

    @Test("Hostile first looks are refused with a sentence, the photo with them: nothing kept, no shot used")
    func hostile() async throws {
        let photo = try await TestImages.jpeg(width: 800, height: 600)
        // Each with the reason its refusal gives.
        let cases: [(String, Data, String)] = [
            ("garbage", Data("not a picture at all".utf8), "not a JPEG"),
            ("2400 × 1800", try await TestImages.flat(width: 2400, height: 1800), "2400×1800 pixels, more than 640"),
            ("640 × 100 for a 4:3 photo", try await TestImages.flat(width: 640, height: 100), "not the shape of the photo"),
            ("over 100 KB", try await TestImages.jpeg(width: 640, height: 480), "larger than 100 KB"),
            ("a PNG", try await TestImages.image("png", width: 320, height: 240), "not a JPEG"),
            (
                "EXIF with GPS", try await TestImages.flat(width: 320, height: 240, exif: ["-GPSLatitude=48.8584", "-GPSLatitudeRef=N"]),
                "metadata"
            ),
            ("cut short", Data(try await TestImages.flat(width: 320, height: 240).dropLast(40)), "cannot be read"),
            ("XMP with a name", try await TestImages.flat(width: 320, height: 240, exif: ["-XMP-dc:Creator=Maggie Smith"]), "metadata"),
            ("IPTC with a name", try await TestImages.flat(width: 320, height: 240, exif: ["-IPTC:By-line=Maggie Smith"]), "metadata"),
        ]
        #expect(cases[3].1.count > FirstLook.maxBytes)
        try await TestApp.run(.sqlite, configure: { $0.mediaWorkers = 0 }) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer, ["shotsPerGuest": 3])
            let (eventID, code) = (event["id"] as! String, event["code"] as! String)
            let maggie = try await app.guestToken(code: code)
            let before = app.storedFiles()
            for (index, (name, firstLook, reason)) in cases.enumerated() {
                let refused = try await app.uploadForm(photo, firstLook: firstLook, event: eventID, token: maggie, key: "hostile-\(index)")
                let detail = refused.expectProblem(.unprocessableContent)
                #expect(refused.string("type")?.hasSuffix("/first-look-refused") == true, "\(name): \(refused.text)")
                #expect(detail.contains("small picture sent with this photo was refused: it") && detail.contains(reason), "\(name): \(detail)")
            }
            #expect(app.storedFiles() == before)
            #expect(try await EventVideoTests.shotsLeft(app, maggie) == 3)
            #expect((try await app.call(.get, "/api/v1/events/\(eventID)/photos", token: organizer)["items"] as? [Any])?.isEmpty == true)
            // A form without its photo, or with a broken boundary, is a clear 400.
            let noPhoto = try await app.call(
                .post, "/api/v1/events/\(eventID)/photos", token: maggie,
                headers: [.contentType: "multipart/form-data; boundary=abc"],
                body: Data("--abc\r\nContent-Disposition: form-data; name=\"firstLook\"\r\n\r\nxyz\r\n--abc--\r\n".utf8))
            noPhoto.expectProblem(.badRequest)
            let unclosed = try await app.call(
                .post, "/api/v1/events/\(eventID)/photos", token: maggie, headers: [.contentType: "multipart/form-data; boundary=abc"],
                body: Data("--abc\r\nContent-Disposition: form-data; name=\"photo\"\r\n\r\n".utf8) + photo + Data("\r\n--abc".utf8))
            #expect(unclosed.expectProblem(.badRequest).contains("ends early"))
            let noBoundary = try await app.call(
                .post, "/api/v1/events/\(eventID)/photos", token: maggie, headers: [.contentType: "multipart/form-data"], body: Data("x".utf8))
            noBoundary.expectProblem(.badRequest)
            // The same photo without a first look is taken.
            #expect(try await app.uploadForm(photo, firstLook: nil, event: eventID, token: maggie).status == .created)
        }
    }

    @Test("Only a first look's picture is kept: its comment, colour profile, progressive scans and trailing bytes are not; CMYK is refused")
    func onlyThePicture() async throws {
        let photo = try await TestImages.structured(width: 1600, height: 1200)
        // What a sender could hide beside the picture: a comment and bytes after its end, in a progressive file
        // with a colour profile (allowed: a phone's canvas may carry one).
        let plain = try await TestImages.firstLook(of: photo)
        let dressed = try writeTemporaryFile(plain, suffix: ".jpg")
        defer { try? FileManager.default.removeItem(at: dressed) }
        let progressive = dressed.path + ".progressive.jpg"
        defer { try? FileManager.default.removeItem(atPath: progressive) }
        #expect(try await runTool("/usr/bin/vips", ["copy", dressed.path, progressive + "[interlace,profile=srgb]"]).status == 0)
        // vips writes an EXIF block beside the profile: it goes, the comment comes.
        let comment = ["-q", "-overwrite_original", "-EXIF:all=", "-XMP:all=", "-Comment=Maggie Smith, 12 rue des Lilas", progressive]
        #expect(try await runTool("/usr/bin/exiftool", comment).status == 0)
        let sent = try Data(contentsOf: URL(fileURLWithPath: progressive)) + Data("TRAILER Maggie's address".utf8)
        #expect(String(decoding: sent, as: UTF8.self).contains("Maggie Smith"))
        try await TestApp.run(.sqlite, configure: { $0.mediaWorkers = 0 }) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer)
            let (eventID, code) = (event["id"] as! String, event["code"] as! String)
            let maggie = try await app.guestToken(code: code)
            let uploaded = try await app.uploadForm(photo, firstLook: sent, event: eventID, token: maggie)
            #expect(uploaded.status == .created && uploaded.string("status") == "ready", "\(uploaded.text)")
            let id = try #require(uploaded.string("id"))
            let shown = Data(buffer: try await app.call(.get, "/api/v1/photos/\(id)/thumbnail", token: organizer).body)
            let text = String(decoding: shown, as: UTF8.self)
            #expect(!text.contains("Maggie") && !text.contains("ICC_PROFILE") && !text.contains("TRAILER"))
            #expect(shown.suffix(2) == Data([0xFF, 0xD9]), "ends at its end-of-image marker")
            #expect(TestImages.jpegSize(shown).map { [$0.width, $0.height] } == [640, 480])
            let psnr = try #require(try await TestImages.psnr(shown, plain))
            #expect(psnr >= 40, "\(psnr) dB from the picture the phone made")

            // Four colour channels are not a canvas's picture, and browsers show them wrongly.
            let cmyk = try await TestImages.firstLookInCMYK(of: photo)
            #expect(cmyk.count <= FirstLook.maxBytes)
            let refused = try await app.uploadForm(photo + Data("2".utf8), firstLook: cmyk, event: eventID, token: maggie)
            #expect(refused.expectProblem(.unprocessableContent).contains("not in YCbCr or grey"))
        }
    }

    @Test("Where the organizer approves guests' photos, a first look is checked but moderation sees what the server made")
    func approval() async throws {
        let photo = try await TestImages.structured(width: 1600, height: 1200)
        try await TestApp.run(.sqlite, configure: { $0.mediaWorkers = 0 }) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer, ["requireApproval": true])
            let (eventID, code) = (event["id"] as! String, event["code"] as! String)
            let maggie = try await app.guestToken(code: code)
            let sent = try await app.uploadForm(photo, firstLook: try await TestImages.firstLook(of: photo), event: eventID, token: maggie)
            #expect(sent.status == .created && sent.string("status") == "processing", "\(sent.text)")
            #expect(!app.storedFiles().contains { $0.hasSuffix("first-look.jpg") })
            let bad = try await app.uploadForm(photo + Data("2".utf8), firstLook: Data("junk".utf8), event: eventID, token: maggie)
            bad.expectProblem(.unprocessableContent)
        }
    }

    @Test("In pieces (tus), the first look is its own small request before the last byte; a bad one is refused, the upload goes on")
    func resumable() async throws {
        let photo = try await TestImages.structured(width: 1600, height: 1200)
        let firstLook = try await TestImages.firstLook(of: photo)
        try await TestApp.run(.sqlite, configure: { $0.mediaWorkers = 0 }) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer)
            let (eventID, code) = (event["id"] as! String, event["code"] as! String)
            let maggie = try await app.guestToken(code: code)
            func tus(_ method: HTTPRequest.Method, _ path: String, _ fields: [String: String], body: Data? = nil) async throws -> APIResponse {
                var headers: HTTPFields = [.init("Tus-Resumable")!: "1.0.0", .authorization: "Bearer \(maggie)"]
                for (name, value) in fields { headers[HTTPField.Name(name)!] = value }
                return try await app.send(path, method: method, headers: headers, body: body.map { ByteBuffer(data: $0) })
            }
            let created = try await tus(
                .post, "/api/v1/uploads",
                ["Upload-Length": String(photo.count), "Upload-Metadata": ResumableUploadTests.metadata(["event": eventID, "source": "camera"])])
            let location = try #require(created.headers[.location], "\(created.text)")
            let stream = "application/offset+octet-stream"
            #expect(try await tus(.patch, location, ["Upload-Offset": "0", "Content-Type": stream], body: photo.prefix(5000)).status == .noContent)
            let wrongShape = try await TestImages.flat(width: 640, height: 100)
            let junk = try await tus(.put, location + "/first-look", ["Content-Type": "image/jpeg"], body: Data("junk".utf8))
            #expect(junk.expectProblem(.unprocessableContent).contains("it is not a JPEG. The upload goes on"))
            try await tus(.put, location + "/first-look", ["Content-Type": "image/jpeg"], body: try await TestImages.jpeg(width: 640, height: 480))
                .expectProblem(.unprocessableContent)
            #expect(try await tus(.put, location + "/first-look", ["Content-Type": "image/jpeg"], body: firstLook).status == .noContent)
            let last = try await tus(.patch, location, ["Upload-Offset": "5000", "Content-Type": stream], body: photo.dropFirst(5000))
            let id = try #require(last.headers[.init("X-Photo-ID")!], "\(last.text)")
            let shown = try await app.call(.get, "/api/v1/photos/\(id)", token: maggie)
            #expect(shown.string("status") == "ready" && shown.json["firstLook"] as? Bool == true, "\(shown.text)")
            try await tus(.put, location + "/first-look", ["Content-Type": "image/jpeg"], body: firstLook).expectProblem(.conflict)

            // A first look of another shape is found out at the last byte: the photo is kept, without it.
            let other = try await TestImages.structured(width: 1600, height: 1200)
            let second = try await tus(
                .post, "/api/v1/uploads",
                ["Upload-Length": String(other.count), "Upload-Metadata": ResumableUploadTests.metadata(["event": eventID, "source": "camera"])])
            let secondLocation = try #require(second.headers[.location])
            let wrongShapeSent = try await tus(.put, secondLocation + "/first-look", ["Content-Type": "image/jpeg"], body: wrongShape)
            #expect(wrongShapeSent.status == .noContent, "\(wrongShapeSent.text)")
            let done = try await tus(.patch, secondLocation, ["Upload-Offset": "0", "Content-Type": stream], body: other)
            let secondID = try #require(done.headers[.init("X-Photo-ID")!], "\(done.text)")
            let kept = try await app.call(.get, "/api/v1/photos/\(secondID)", token: maggie)
            #expect(kept.string("status") == "processing" && kept.json["firstLook"] == nil, "\(kept.text)")
            #expect(!app.storedFiles().contains { $0.hasSuffix(".first-look") })
        }
    }

    @Test("An iPhone's HEIC with its first look is seen at its acknowledgement, as a JPEG is")
    func heic() async throws {
        let photo = try await TestImages.image("heic", width: 1024, height: 768)
        let firstLook = try await TestImages.firstLook(of: photo, size: 320)
        try await TestApp.run(.sqlite, configure: { $0.mediaWorkers = 0 }) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer)
            let sent = try await app.uploadForm(photo, firstLook: firstLook, event: event["id"] as! String, token: organizer)
            #expect(sent.status == .created && sent.string("status") == "ready", "\(sent.text)")
            #expect(sent.json["format"] as? String == "heic")
        }
    }
}
