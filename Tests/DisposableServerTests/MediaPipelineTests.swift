import DisposableServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

@Suite("Media pipeline (MED-1, MED-2)")
struct MediaPipelineTests {
    @Test(
        "Every accepted format becomes ready with a preview and a thumbnail; originals are kept byte for byte",
        arguments: TestEngine.allCases, ["jpg", "png", "webp", "heic", "avif", "gif"])
    func formats(engine: TestEngine, format: String) async throws {
        try await TestApp.run(engine) { app in
            let f = try await UploadTests.fixture(app)
            let original =
                format == "jpg" ? try await TestImages.jpeg(width: 900, height: 600) : try await TestImages.image(format, width: 900, height: 600)
            let uploaded = try await app.upload(original, event: f.event, token: f.guest)
            #expect(uploaded.status == .created, "\(uploaded.text)")
            #expect(uploaded.string("format") == (format == "jpg" ? "jpeg" : format))
            let photo = try await app.waitUntilProcessed(try #require(uploaded.string("id")), token: f.guest)
            #expect(photo.string("status") == "ready", "\(photo.text)")
            #expect(photo["width"] as? Int == 900)
            #expect(photo["height"] as? Int == 600)
            let id = try #require(photo.string("id"))
            let thumbnail = try await app.call(.get, "/api/v1/photos/\(id)/thumbnail", token: f.guest)
            #expect(thumbnail.headers[.contentType] == "image/jpeg")
            #expect(TestImages.jpegSize(Data(buffer: thumbnail.body)).map { [$0.width, $0.height] } == [400, 267])
            let preview = try await app.call(.get, "/api/v1/photos/\(id)/preview", token: f.guest)
            #expect(TestImages.jpegSize(Data(buffer: preview.body)).map { [$0.width, $0.height] } == [900, 600], "never enlarged")
            let stored = try await app.call(.get, "/api/v1/photos/\(id)/original", token: f.guest)
            #expect(Data(buffer: stored.body) == original)
        }
    }

    @Test("EXIF orientation 6 and 8 are applied: derivatives come out rotated", arguments: TestEngine.allCases, [6, 8])
    func orientation(engine: TestEngine, value: Int) async throws {
        try await TestApp.run(engine) { app in
            let f = try await UploadTests.fixture(app)
            let jpeg = try await TestImages.jpeg(width: 2000, height: 1500, exif: ["-Orientation#=\(value)"])
            let uploaded = try await app.upload(jpeg, event: f.event, token: f.guest)
            let photo = try await app.waitUntilProcessed(try #require(uploaded.string("id")), token: f.guest)
            #expect(photo["width"] as? Int == 1500)
            #expect(photo["height"] as? Int == 2000)
            let id = photo.string("id")!
            let preview = Data(buffer: try await app.call(.get, "/api/v1/photos/\(id)/preview", token: f.guest).body)
            #expect(TestImages.jpegSize(preview).map { [$0.width, $0.height] } == [1200, 1600])
            let thumbnail = Data(buffer: try await app.call(.get, "/api/v1/photos/\(id)/thumbnail", token: f.guest).body)
            #expect(TestImages.jpegSize(thumbnail).map { [$0.width, $0.height] } == [300, 400])
        }
    }

    @Test(
        "A 12 MP photo's preview and thumbnail are the photo made smaller — upright, every part in its place — as libvips' own thumbnail makes them",
        arguments: [1, 6, 8])
    func faithful(orientation: Int) async throws {
        let photo = try await TestImages.structured(width: 4032, height: 3024, exif: orientation == 1 ? [] : ["-Orientation#=\(orientation)"])
        try await TestApp.run(.sqlite) { app in
            let f = try await UploadTests.fixture(app)
            let uploaded = try await app.upload(photo, event: f.event, token: f.guest)
            let id = try #require(uploaded.string("id"), "\(uploaded.text)")
            #expect(try await app.waitUntilProcessed(id, token: f.guest).string("status") == "ready")
            for (derivative, size, floor) in [("preview", 1600, 40.0), ("thumbnail", 400, 33.0)] {
                let made = Data(buffer: try await app.call(.get, "/api/v1/photos/\(id)/\(derivative)", token: f.guest).body)
                let reference = try await TestImages.libvipsThumbnail(photo, size: size)
                // The same image turned the wrong way measures ≈ 13 dB; shifted by two pixels across, ≈ 30.
                let psnr = try #require(try await TestImages.psnr(made, reference), "\(derivative): not the reference's size")
                #expect(psnr >= floor, "\(derivative) at orientation \(orientation): \(psnr) dB from libvips' thumbnail")
            }
        }
    }

    @Test("Capture time comes from EXIF DateTimeOriginal, else the upload time; derivatives carry no metadata")
    func captureTimeAndStripping() async throws {
        try await TestApp.run(.sqlite) { app in
            let f = try await UploadTests.fixture(app)
            let withDate = try await TestImages.jpeg(exif: [
                "-DateTimeOriginal=2026:06:20 18:30:00", "-GPSLatitude=48.8584", "-GPSLatitudeRef=N", "-GPSLongitude=2.2945",
                "-GPSLongitudeRef=E", "-Artist=<script>alert(1)</script>",
            ])
            let a = try await app.waitUntilProcessed(
                try #require(try await app.upload(withDate, event: f.event, token: f.guest).string("id")), token: f.guest)
            #expect(a.string("takenAt") == "2026-06-20T18:30:00.000Z")
            let b = try await app.waitUntilProcessed(
                try #require(try await app.upload(try await TestImages.jpeg(), event: f.event, token: f.guest).string("id")), token: f.guest)
            #expect(b.string("takenAt") == b.string("uploadedAt"))

            for kind in ["preview", "thumbnail"] {
                let bytes = Data(buffer: try await app.call(.get, "/api/v1/photos/\(a.string("id")!)/\(kind)", token: f.guest).body)
                let tags = try await exifTags(bytes)
                #expect(!tags.contains("GPS"), "\(kind): \(tags)")
                #expect(!tags.contains("Date/Time Original"), "\(kind): \(tags)")
                #expect(!tags.contains("Artist"), "\(kind): \(tags)")
            }
        }
    }

    @Test("GPS is removed, losslessly, from originals downloaded by anyone but the shooter", arguments: TestEngine.allCases)
    func gpsStripping(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let f = try await UploadTests.fixture(app)
            let jpeg = try await TestImages.jpeg(
                width: 800, height: 600,
                exif: [
                    "-GPSLatitude=48.8584", "-GPSLatitudeRef=N", "-GPSLongitude=2.2945", "-GPSLongitudeRef=E", "-Make=Pixel",
                    "-XMP:GPSLatitude=48.8584N", "-XMP:GPSLongitude=2.2945E",
                ])
            let id = try #require(try await app.upload(jpeg, event: f.event, token: f.guest).string("id"))
            _ = try await app.waitUntilProcessed(id, token: f.guest)

            let mine = Data(buffer: try await app.call(.get, "/api/v1/photos/\(id)/original", token: f.guest).body)
            #expect(mine == jpeg, "the shooter gets their file back byte for byte")
            #expect(try await exifTags(mine).contains("GPS Latitude"))

            let theirs = try await app.call(.get, "/api/v1/photos/\(id)/original", token: f.organizer)
            let stripped = Data(buffer: theirs.body)
            let tags = try await exifTags(stripped)
            #expect(!tags.contains("GPS Latitude") && !tags.contains("GPS Longitude") && !tags.contains("48.8584"), "\(tags)")
            // The same in the event's ZIP.
            let archive = try await app.call(.get, "/api/v1/events/\(f.event)/archive.zip", token: f.organizer)
            #expect(archive.status == .ok)
            #expect(!Data(buffer: archive.body).contains(Data("GPSLatitude".utf8)), "the XMP property is blanked")
            #expect(tags.contains("Make"), "other EXIF stays")
            #expect(stripped.count == jpeg.count)
            // Lossless: every byte after the EXIF header region is untouched.
            #expect(stripped.suffix(from: 64 * 1024) == jpeg.suffix(from: 64 * 1024))
            let plainETag = "\"\(try await jpeg.sha256Hex)\""
            #expect(theirs.headers[.eTag] != nil && theirs.headers[.eTag] != plainETag)
        }
    }
}

/// The tag names exiftool finds in a file.
func exifTags(_ data: Data) async throws -> String {
    let file = try writeTemporaryFile(data, suffix: ".jpg")
    defer { try? FileManager.default.removeItem(at: file) }
    return try await runTool("/usr/bin/exiftool", ["-s0", "-G0", "-a", "-EXIF:all", "-GPS:all", "-XMP:all", "-IPTC:all", file.path]).output
}
