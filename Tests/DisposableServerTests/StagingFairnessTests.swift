import Foundation
import HTTPTypes
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// Unfinished resumable uploads hold what they received plus a bounded allowance, capped per sender, network and
/// event: one guest's announcements cannot refuse another event's guests or a library backup.
@Suite("Resumable uploads: one sender cannot starve the others")
struct StagingFairnessTests {
    typealias Tus = ResumableUploadLimitsTests.Tus

    @Test("One guest's 220 announcements of 50 MB leave room for another event's guest and a library backup", arguments: TestEngine.allCases)
    func oneGuestCannotStarveOthers(engine: TestEngine) async throws {
        try await TestApp.run(
            engine, live: true,
            configure: {
                $0.maxStagedBytes = 400_000_000
                $0.trustedProxies = try! TrustedProxies("127.0.0.1")
            }
        ) { app in
            let tus = Tus(app: app)
            let from = { (address: String) in ["X-Forwarded-For": address] }
            func create(_ length: Int, _ target: String, _ token: String, _ address: String) async throws -> APIResponse {
                try await tus.send(
                    .post, "/api/v1/uploads", token: token,
                    from(address).merging([
                        "Upload-Length": String(length),
                        "Upload-Metadata": ResumableUploadTests.metadata(["target": target, "source": "camera"]),
                    ]) { $1 })
            }
            func patch(_ location: String, _ body: Data, _ token: String, _ address: String) async throws -> APIResponse {
                try await tus.send(
                    .patch, location, token: token,
                    from(address).merging(["Upload-Offset": "0", "Content-Type": "application/offset+octet-stream"]) { $1 }, body: body)
            }

            // The attacker: 11 guests of one event, from one address, 20 announcements of 50 MB each.
            let organizer = try await app.userToken()
            let party = try await app.createEvent(token: organizer, ["shotsPerGuest": 50])
            let partyTarget = "event:" + (try #require(party["id"] as? String))
            var created: [(location: String, token: String)] = []
            var refusals = 0
            for index in 0..<11 {
                let guest = try await app.guestToken(code: try #require(party["code"] as? String), name: "Guest \(index)")
                for _ in 0..<20 {
                    let answer = try await create(50_000_000, partyTarget, guest, "203.0.113.66")
                    if answer.status == .created {
                        created.append((try #require(answer.headers[.location]), guest))
                    } else {
                        #expect(answer.status.code == 507 || answer.status == .forbidden, "\(answer.text)")
                        refusals += 1
                    }
                }
            }
            // What they hold: 16 MB each, within the network's and the event's share (a quarter of 400 MB).
            #expect(created.count >= 1 && created.count <= 6, "\(created.count) created")
            // Sending bytes does not buy more than the share either.
            let (location, token) = try #require(created.first)
            #expect(try await patch(location, Data(count: 50_000_000), token, "203.0.113.66").status.code == 507)

            // Another event's guest, from her phone, and a library backup from a home: each starts and finishes.
            let photo = try await TestImages.jpeg(width: 2400, height: 1800)
            let other = try await app.createEvent(token: try await app.userToken())
            let otherTarget = "event:" + (try #require(other["id"] as? String))
            let maggie = try await app.guestToken(code: try #require(other["code"] as? String))
            let backup = try await app.userToken(email: "rita@example.com")
            for (target, token, address) in [(otherTarget, maggie, "198.51.100.7"), ("library", backup, "2001:db8:5::1")] {
                let started = try await create(photo.count, target, token, address)
                #expect(started.status == .created, "\(started.text)")
                let sent = try await patch(try #require(started.headers[.location]), photo, token, address)
                #expect(sent.status == .noContent && sent.headers[.init("Disposable-Media-Id")!] != nil, "\(sent.text)")
            }

            // Announced and left without a byte: given up after five minutes, the room free again.
            app.clock.advance(by: ResumableUploadService.idleLimit + 1)
            let empty = try #require(created.last)
            #expect(try await tus.send(.head, empty.location, token: empty.token).status == .notFound)
            let fresh = try await app.guestToken(code: try #require(party["code"] as? String), name: "Late")
            #expect(try await create(50_000_000, partyTarget, fresh, "203.0.113.66").status == .created)
            #expect(try await app.services.resumableUploads.sweep() >= created.count - 1)
        }
    }

    @Test(
        "Nine guests on two networks announcing 50 MB uploads leave room for a third guest; removed, they hold nothing at once",
        arguments: TestEngine.allCases)
    func twoNetworksCannotFillAnEvent(engine: TestEngine) async throws {
        try await TestApp.run(engine, live: true, configure: { $0.trustedProxies = try! TrustedProxies("127.0.0.1") }) { app in
            // setup: the production's staging room (10 GB: 2.5 GB an event), one event
            let tus = Tus(app: app)
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer, ["shotsPerGuest": 50])
            let (eventID, code) = (try #require(event["id"] as? String), try #require(event["code"] as? String))
            let target = "event:" + eventID
            func create(_ length: Int, _ token: String, _ address: String) async throws -> APIResponse {
                try await tus.send(
                    .post, "/api/v1/uploads", token: token,
                    [
                        "X-Forwarded-For": address, "Upload-Length": String(length),
                        "Upload-Metadata": ResumableUploadTests.metadata(["target": target, "source": "camera"]),
                    ])
            }
            func patch(_ location: String, _ body: Data, _ token: String, _ address: String) async throws -> APIResponse {
                try await tus.send(
                    .patch, location, token: token,
                    ["X-Forwarded-For": address, "Upload-Offset": "0", "Content-Type": "application/offset+octet-stream"], body: body)
            }

            // MUT: seven guests from 127.0.0.2 and two from 127.0.0.3, 20 announcements of 50 MB each, a byte sent to each
            var attackers: [String] = []
            var created = 0
            for (index, address) in (Array(repeating: "127.0.0.2", count: 7) + ["127.0.0.3", "127.0.0.3"]).enumerated() {
                let guest = try await app.guestToken(code: code, name: "Guest \(index)")
                attackers.append(guest)
                for _ in 0..<20 {
                    let answer = try await create(52_428_800, guest, address)
                    guard answer.status == .created, let location = answer.headers[.location] else {
                        #expect(answer.status.code == 507, "\(answer.text)")
                        continue
                    }
                    created += 1
                    #expect(try await patch(location, Data([0xFF]), guest, address).status == .noContent)
                }
            }
            #expect(created > 0)

            // validate: a third guest, from another address, sends 500 KB, 3 MB and 8 MB
            let iris = try await app.guestToken(code: code, name: "Iris")
            let photo = try await TestImages.jpeg(width: 2400, height: 1800)
            for size in [500_000, 3_000_000, 8_000_000] {
                let body = photo + Data(count: max(0, size - photo.count))
                let started = try await create(body.count, iris, "127.0.0.1")
                #expect(started.status == .created, "\(size): \(started.text)")
                guard let location = started.headers[.location] else { continue }
                let sent = try await patch(location, body, iris, "127.0.0.1")
                #expect(sent.status == .noContent, "\(size): \(sent.text)")
            }

            // The organizer removes the nine: their unfinished uploads hold nothing from that moment, and are swept
            let guests = try await app.call(.get, "/api/v1/events/\(eventID)/guests", token: organizer)
            let items = try #require(guests.json["items"] as? [[String: Any]], "\(guests.text)")
            for item in items where (item["name"] as? String)?.hasPrefix("Guest ") == true {
                let id = try #require(item["id"] as? String)
                #expect(try await app.call(.delete, "/api/v1/events/\(eventID)/guests/\(id)", token: organizer).status == .noContent)
            }
            let held = try await app.services.database.read { db in
                try await ResumableUploadRepository.held(
                    besides: nil, uploaderID: "", network: "127.0.0.2", eventID: eventID,
                    live: ResumableUploadRepository.live(app.clock.now, idle: ResumableUploadService.idleLimit), in: db)
            }
            #expect(held.event == 0 && held.network == 0, "\(held)")
            #expect(try await app.services.resumableUploads.sweep() == created)
        }
    }
}
