import DisposableAPI
import Foundation
import Testing

/// When a photo was taken: the offset a camera writes beside its clock (`OffsetTimeOriginal`)
/// makes the time exact; a clock without one is read in the owner's time zone, else as UTC.
@Suite("Capture times carry their offset")
struct CaptureTimeTests {
    static let paris = ["-DateTimeOriginal=2026:06:12 12:12:00", "-OffsetTimeOriginal=+02:00"]
    static let floating = ["-DateTimeOriginal=2026:06:12 12:12:00"]

    static func takenAt(_ app: TestApp, exif: [String], token: String) async throws -> Date {
        let uploaded = try await app.uploadToLibrary(try await TestImages.jpeg(width: 320, height: 240, exif: exif), token: token)
        #expect(uploaded.status == .created, "\(uploaded.text)")
        let id = try uploaded.decode(LibraryAssetJSON.self).id
        return try await app.waitUntilAssetProcessed(id, token: token).decode(LibraryAssetJSON.self).takenAt
    }

    @Test("Library: 12:12 at +02:00 is 10:12 UTC; a floating 12:12 is the owner's zone's, else UTC's")
    func library() async throws {
        try await TestApp.run(.sqlite) { app in
            let token = try await app.userToken()
            let utc = ISO8601DateFormatter()
            #expect(try await Self.takenAt(app, exif: Self.paris, token: token) == utc.date(from: "2026-06-12T10:12:00Z"))
            #expect(try await Self.takenAt(app, exif: Self.floating, token: token) == utc.date(from: "2026-06-12T12:12:00Z"))
            #expect(try await app.call(.patch, "/api/v1/me", json: ["timeZone": "America/New_York"], token: token).status == .ok)
            #expect(try await Self.takenAt(app, exif: Self.floating, token: token) == utc.date(from: "2026-06-12T16:12:00Z"))
            // The offset still wins over the owner's zone.
            #expect(try await Self.takenAt(app, exif: Self.paris, token: token) == utc.date(from: "2026-06-12T10:12:00Z"))
        }
    }

    @Test("Events: a photo with its offset is placed at its exact moment")
    func event() async throws {
        try await TestApp.run(.sqlite) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer, ["allowLibraryUploads": true])
            let guest = try await app.guestToken(code: event["code"] as! String)
            let data = try await TestImages.jpeg(width: 320, height: 240, exif: Self.paris)
            let uploaded = try await app.upload(data, event: event["id"] as! String, token: guest, source: "library")
            #expect(uploaded.status == .created, "\(uploaded.text)")
            let photo = try await app.waitUntilProcessed(try #require(uploaded.string("id")), token: guest)
            #expect(photo.string("takenAt")?.hasPrefix("2026-06-12T10:12:00") == true, "\(photo.text)")
        }
    }
}
