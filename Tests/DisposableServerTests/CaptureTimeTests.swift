import DisposableAPI
import Foundation
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

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

    @Test("Library: a photo shows the clock where it was taken — 23:30 in Tokyo stays 23:30, a floating 18:00 stays 18:00")
    func localClock() async throws {
        try await TestApp.run(.sqlite) { app in
            let token = try await app.userToken()
            #expect(try await app.call(.patch, "/api/v1/me", json: ["timeZone": "Europe/Paris"], token: token).status == .ok)
            func asset(_ exif: [String]) async throws -> LibraryAssetJSON {
                let uploaded = try await app.uploadToLibrary(try await TestImages.jpeg(width: 320, height: 240, exif: exif), token: token)
                return try await app.waitUntilAssetProcessed(try uploaded.decode(LibraryAssetJSON.self).id, token: token)
                    .decode(LibraryAssetJSON.self)
            }
            let utc = ISO8601DateFormatter()
            // Tokyo, on the last evening of May: the moment is in May everywhere west, the photo's day is 31 May there
            let tokyo = try await asset(["-DateTimeOriginal=2026:05:31 23:30:00", "-OffsetTimeOriginal=+09:00"])
            #expect(tokyo.takenAt == utc.date(from: "2026-05-31T14:30:00Z"))
            #expect(tokyo.takenAtLocal == "2026-05-31T23:30:00" && tokyo.takenAtOffset == "+09:00" && tokyo.month == "2026-05")
            // New Year's first minutes in Sydney are still 31 December in UTC: the month is where it was taken
            let sydney = try await asset(["-DateTimeOriginal=2026:01:01 00:20:00", "-OffsetTimeOriginal=+11:00"])
            #expect(sydney.takenAtLocal == "2026-01-01T00:20:00" && sydney.month == "2026-01", "\(sydney.month)")
            // no offset: floating, kept as written (placed in the owner's zone only to sort the timeline)
            let floating = try await asset(["-DateTimeOriginal=2026:06:12 18:00:00"])
            #expect(floating.takenAtLocal == "2026-06-12T18:00:00" && floating.takenAtOffset == nil)
            #expect(floating.takenAt == utc.date(from: "2026-06-12T16:00:00Z"))
            // no time in the file: nothing local to show, the moment of its upload
            let none = try await asset([])
            #expect(none.takenAtLocal == nil && none.takenAtOffset == nil)
        }
    }

    @Test("Library: a photo is in its month from its upload, before its render reads the same time")
    func beforeRender() async throws {
        try await TestApp.run(.sqlite, configure: { $0.mediaWorkers = 0 }) { app in
            let token = try await app.userToken()
            #expect(try await app.call(.patch, "/api/v1/me", json: ["timeZone": "Europe/Paris"], token: token).status == .ok)
            let utc = ISO8601DateFormatter()
            let cases: [(exif: [String], moment: String, local: String, offset: String?)] = [
                (["-DateTimeOriginal=2026:05:31 23:30:00", "-OffsetTimeOriginal=+09:00"], "2026-05-31T14:30:00Z", "2026-05-31T23:30:00", "+09:00"),
                (Self.floating, "2026-06-12T10:12:00Z", "2026-06-12T12:12:00", nil),
            ]
            for taken in cases {
                let uploaded = try await app.uploadToLibrary(try await TestImages.jpeg(width: 320, height: 240, exif: taken.exif), token: token)
                let asset = try uploaded.decode(LibraryAssetJSON.self)
                #expect(asset.status == .processing && asset.takenAt == utc.date(from: taken.moment))
                #expect(asset.takenAtLocal == taken.local && asset.takenAtOffset == taken.offset && asset.month == String(taken.local.prefix(7)))
            }
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
