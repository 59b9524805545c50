import Foundation
import NIOCore
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// Photos encrypted at rest (`--storage-key-file`): what lies in the folder or the bucket is not the photo, what
/// comes back is, byte for byte — whole, by range, zipped — and a key that does not open them never yields bytes.
@Suite("Photos encrypted at rest")
struct EncryptionAtRestTests {
    static func randomKey() -> StorageKey {
        StorageKey(bytes: Data((0..<32).map { _ in UInt8.random(in: 0...255) }))
    }

    @Test("Stored files are not the photos; originals, ranges, previews and the ZIP come back whole", arguments: TestEngine.allCases)
    func sealedAtRest(engine: TestEngine) async throws {
        // SQLite with the folder; PostgreSQL with a bucket (moto).
        let bucket = engine == .postgres ? try await TestS3.freshBucket(prefix: "sealed") : nil
        try await TestApp.run(
            engine,
            configure: {
                $0.storageKey = Self.randomKey()
                if let bucket { $0.storage = .s3(bucket) }
            }
        ) { app in
            let f = try await UploadTests.fixture(app)
            let jpeg = try await TestImages.jpeg(width: 1600, height: 1200)
            let id = try #require(try await app.upload(jpeg, event: f.event, token: f.guest).string("id"))
            _ = try await app.waitUntilProcessed(id, token: f.guest)

            // What the storage holds: no JPEG, nothing of the photo's bytes.
            let stored = try await Self.storedBytes(app)
            #expect(stored.count >= 3, "\(stored.keys.sorted())")
            let probe = jpeg[2000..<2064]
            for (key, bytes) in stored {
                #expect(!bytes.starts(with: [0xFF, 0xD8, 0xFF]), "\(key) is a readable JPEG")
                #expect(bytes.range(of: probe) == nil, "\(key) holds the photo's bytes")
            }

            // What comes back: the photo.
            let original = try await app.call(.get, "/api/v1/photos/\(id)/original", token: f.guest)
            #expect(Data(buffer: original.body) == jpeg)
            for range in ["bytes=0-99", "bytes=65530-131080", "bytes=-77", "bytes=100000-"] {
                let part = try await app.call(.get, "/api/v1/photos/\(id)/original", token: f.guest, headers: [.range: range])
                #expect(part.status == .partialContent, "\(range)")
                guard case .range(let bounds) = ByteRange.parse(range, size: Int64(jpeg.count)) else {
                    Issue.record("\(range) is not a range")
                    continue
                }
                #expect(Data(buffer: part.body) == jpeg[Int(bounds.lowerBound)...Int(bounds.upperBound)], "\(range)")
            }
            let photo = try await app.call(.get, "/api/v1/photos/\(id)", token: f.guest)
            let urls = try #require(photo["urls"] as? [String: String])
            for link in [try #require(urls["thumbnail"]), try #require(urls["preview"])] {
                let image = try await app.call(.get, link)
                #expect(image.status == .ok && Data(buffer: image.body).starts(with: [0xFF, 0xD8, 0xFF]), "\(link)")
            }
            let zip = try await app.call(.get, "/api/v1/events/\(f.event)/archive.zip", token: f.organizer)
            let file = try writeTemporaryFile(Data(buffer: zip.body), suffix: ".zip")
            defer { try? FileManager.default.removeItem(at: file) }
            let names = try await runTool("/usr/bin/unzip", ["-Z1", file.path]).output.split(separator: "\n").map(String.init)
            let photoName = try #require(names.first { $0.hasSuffix(".jpg") })
            #expect(try await extract(file, photoName) == jpeg)
        }
    }

    @Test("A swapped, changed or cut segment, or another key, is an error — never other bytes")
    func tamperingIsAnError() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sealed-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let local = try LocalBlobStore(root: folder.path)
        let key = Self.randomKey()
        let store = SealedBlobStore(inner: local, storageKey: key)
        let bytes = Data((0..<(3 * SealedBlob.segmentSize + 1000)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) })
        try await store.put(data: bytes, key: "events/e/p/original")
        #expect(try await store.contents(key: "events/e/p/original").map { Data(buffer: $0) } == bytes)
        let path = local.path("events/e/p/original")
        let sealed = try Data(contentsOf: URL(fileURLWithPath: path))

        /// Whether the changed file still gives bytes, read whole or by a range inside the changed part.
        func reads(_ changed: Data, with store: SealedBlobStore = store, range: ClosedRange<Int64> = 70_000...70_100) async throws -> Bool {
            try changed.write(to: URL(fileURLWithPath: path))
            var whole = false
            var ranged = false
            do { whole = try await store.contents(key: "events/e/p/original") != nil } catch {}
            do {
                try await store.read(key: "events/e/p/original", range: range) { _ in ranged = true }
            } catch { ranged = false }
            return whole || ranged
        }
        let segment = SealedBlob.sealedSegmentSize
        let header = SealedBlob.headerSize
        var swapped = sealed
        swapped.replaceSubrange(header..<(header + segment), with: sealed[(header + segment)..<(header + 2 * segment)])
        swapped.replaceSubrange((header + segment)..<(header + 2 * segment), with: sealed[header..<(header + segment)])
        var flipped = sealed
        flipped[header + segment + 10] ^= 0x01
        #expect(try await !reads(swapped))
        #expect(try await !reads(flipped))
        // Cut short: read whole, or where the cut is (what is left before it is still the photo's own bytes).
        let tail = Int64(bytes.count - 10)...Int64(bytes.count - 1)
        #expect(try await !reads(sealed.prefix(sealed.count - 500), range: tail))
        #expect(try await !reads(sealed.prefix(header + 2 * segment), range: tail))
        #expect(try await !reads(sealed, with: SealedBlobStore(inner: local, storageKey: Self.randomKey())))
        // Moved under another key (another photo's name): refused too.
        try sealed.write(to: URL(fileURLWithPath: path))
        try await local.put(data: sealed, key: "events/e/other/original")
        await #expect(throws: (any Error).self) { _ = try await store.contents(key: "events/e/other/original") }
    }

    @Test("A damaged original answers a clear error before any byte, never a 200 cut short", arguments: [TestEngine.sqlite])
    func damagedOriginal(engine: TestEngine) async throws {
        try await TestApp.run(engine, configure: { $0.storageKey = Self.randomKey() }) { app in
            // setup: a photo, then its stored original changed in its first segment
            let f = try await UploadTests.fixture(app)
            let jpeg = try await TestImages.jpeg(width: 1600, height: 1200)
            let id = try #require(try await app.upload(jpeg, event: f.event, token: f.guest).string("id"))
            _ = try await app.waitUntilProcessed(id, token: f.guest)
            guard case .localFolder(let root) = app.services.configuration.data.storage else { throw CancellationError() }
            let local = try LocalBlobStore(root: root)
            let path = local.path(BlobKey.original(f.event, id))
            var sealed = try Data(contentsOf: URL(fileURLWithPath: path))
            sealed[SealedBlob.headerSize + 10] ^= 0x01
            try sealed.write(to: URL(fileURLWithPath: path))

            // MUT
            for range in [nil, "bytes=0-99", "bytes=1000-"] {
                let answer = try await app.call(
                    .get, "/api/v1/photos/\(id)/original", token: f.guest, headers: range.map { [.range: $0] } ?? [:])

                // validate
                #expect(answer.status == .internalServerError, "\(range ?? "whole"): \(answer.status)")
                #expect(answer.headers[.contentType] == "application/problem+json" && answer.text.contains("damaged"), "\(answer.text)")
            }
        }
    }

    @Test("An unfinished upload sent in pieces and its first look are sealed on disk too; finished, the photo is whole")
    func stagedBytesSealed() async throws {
        let photo = try await TestImages.structured(width: 1600, height: 1200)
        let firstLook = try await TestImages.firstLook(of: photo)
        try await TestApp.run(.sqlite, configure: { $0.storageKey = Self.randomKey() }) { app in
            // setup
            let f = try await UploadTests.fixture(app)
            let tus = ResumableUploadLimitsTests.Tus(app: app)
            let created = try await tus.send(
                .post, "/api/v1/uploads", token: f.guest,
                ["Upload-Length": String(photo.count), "Upload-Metadata": ResumableUploadTests.metadata(["event": f.event, "source": "camera"])])
            let location = try #require(created.headers[.location], "\(created.text)")
            let stream = "application/offset+octet-stream"

            // MUT: pieces that do not end on a segment's edge, and the first look
            var offset = 0
            for size in [5000, 70_000, 131_072] {
                let piece = photo[offset..<(offset + size)]
                let sent = try await tus.send(
                    .patch, location, token: f.guest, ["Upload-Offset": String(offset), "Content-Type": stream], body: piece)
                #expect(sent.status == .noContent, "\(sent.text)")
                offset += size
            }
            #expect(
                try await tus.send(.put, location + "/first-look", token: f.guest, ["Content-Type": "image/jpeg"], body: firstLook).status
                    == .noContent)

            // validate: nothing in the uploads' folder is a JPEG or holds the photo's or the first look's bytes
            let folder = app.services.configuration.resumableUploadsDirectory
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            #expect(files.count == 2, "\(files)")
            for name in files {
                let bytes = try Data(contentsOf: folder.appendingPathComponent(name))
                #expect(!bytes.starts(with: [0xFF, 0xD8, 0xFF]), "\(name) is a readable JPEG")
                #expect(bytes.range(of: photo[100_000..<100_064]) == nil && bytes.range(of: photo[2000..<2064]) == nil, "\(name)")
                #expect(bytes.range(of: firstLook[1000..<1064]) == nil, "\(name)")
            }
            let head = try await tus.send(.head, location, token: f.guest)
            #expect(head.headers[.init("Upload-Offset")!] == String(offset))
            // The rest, and the photo is the one sent, byte for byte, shown at once with its first look
            let last = try await tus.send(
                .patch, location, token: f.guest, ["Upload-Offset": String(offset), "Content-Type": stream], body: photo.dropFirst(offset))
            let id = try #require(last.headers[.init("X-Photo-ID")!], "\(last.text)")
            #expect(Data(buffer: try await app.call(.get, "/api/v1/photos/\(id)/original", token: f.guest).body) == photo)
            #expect(try await app.call(.get, "/api/v1/photos/\(id)", token: f.guest).json["firstLook"] as? Bool == true)
        }
    }

    /// Every file of the instance's storage, by key, as stored.
    static func storedBytes(_ app: TestApp) async throws -> [String: Data] {
        let stored = try makeStoredBlobStore(app.services.configuration.data)
        var found: [String: Data] = [:]
        for key in try await stored.list(prefix: "", after: nil, limit: 1000) {
            found[key] = try await stored.contents(key: key).map { Data(buffer: $0) }
        }
        return found
    }
}
