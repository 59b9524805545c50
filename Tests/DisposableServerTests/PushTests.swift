import Crypto
import DisposableAPI
import Foundation
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// The bell's notices reach a phone with its pages closed (Web Push). A push service run by the test
/// decrypts each message with http_ece and checks its VAPID signature with py_vapid (PyPI): what it reads back must be
/// the notice, in the subscriber's language.
@Suite("Notifications on phones (Web Push)")
struct PushTests {
    /// The test's push service and the one browser subscription it stands for.
    final class PushEndpoint: Sendable {
        let process: ChildProcess
        let record: URL
        let subscription: [String: String]

        init() async throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("disposable-push-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            record = folder.appendingPathComponent("received.jsonl")
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("tools/push_endpoint.py").path
            let log = folder.appendingPathComponent("out.log").path
            process = try ChildProcess("/usr/bin/env", ["python3", script, record.path], log: log)
            let deadline = ContinuousClock.now + .seconds(20)
            var line: [String: String]? = nil
            while line == nil {
                guard ContinuousClock.now < deadline, process.isRunning else {
                    throw TestSetupError("the push endpoint did not start: \(process.logTail)")
                }
                try await Task.sleep(for: .milliseconds(100))
                let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                line = text.split(separator: "\n").first.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String] }
            }
            subscription = line!
        }

        /// The messages received so far.
        func received() -> [[String: Any]] {
            ((try? String(contentsOf: record, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }

        /// Sends what is due (the app's own loop may have sent it already) until `count` messages have arrived.
        func waitFor(_ count: Int, from app: TestApp) async throws -> [[String: Any]] {
            let deadline = ContinuousClock.now + .seconds(30)
            while received().count < count {
                guard ContinuousClock.now < deadline else { throw TestSetupError("\(count) pushes expected, \(received().count) arrived") }
                _ = try await app.services.push.sendDue()
                try await Task.sleep(for: .milliseconds(100))
            }
            return received()
        }

        func stop() async {
            process.signal(SIGKILL)
            await process.exited()
            try? FileManager.default.removeItem(at: record.deletingLastPathComponent())
        }
    }

    @Test(
        "A friend request reaches the subscribed phone, encrypted for it and signed by the server; kinds turned off stay off; a gone subscription is forgotten"
    )
    func friendRequestReachesPhone() async throws {
        let endpoint = try await PushEndpoint()
        try await withCleanup {
            try await TestApp.run(.sqlite) { app in
                let ana = try await app.userToken(email: "ana@example.com")
                let ben = try await app.userToken(email: "ben@example.com")
                let keys = ["p256dh": endpoint.subscription["p256dh"]!, "auth": endpoint.subscription["auth"]!]
                // The page asks for the key, then subscribes this browser (French, from an Android phone)
                let settings = try await app.call(.get, "/api/v1/push", token: ana)
                let publicKey = try #require(settings.string("publicKey"))
                #expect(WebPushMessage.fromBase64URL(publicKey)?.count == 65 && (settings["kinds"] as? [String])?.count == 12)
                let subscribed = try await app.call(
                    .post, "/api/v1/push/subscriptions",
                    json: ["endpoint": endpoint.subscription["endpoint"]!, "expirationTime": NSNull(), "keys": keys],
                    token: ana, headers: [.acceptLanguage: "fr-FR", .userAgent: "Mozilla/5.0 (Linux; Android 14) Chrome/131.0 Mobile Safari/537.36"])
                #expect(subscribed.status == .created && subscribed.string("device") == "Chrome on Android", "\(subscribed.text)")

                // MUT: Ben asks Ana to be friends; the sender's pass goes out
                #expect(try await app.call(.post, "/api/v1/friends", body: FriendRequest(email: "ana@example.com"), token: ben).status == .accepted)
                let message = try #require(try await endpoint.waitFor(1, from: app).last)

                // validate: decrypted by the phone's keys, signed with the key the page was given, worded in French
                let payload = try #require(message["payload"] as? [String: Any], "\(message)")
                #expect((payload["body"] as? String)?.hasSuffix(" veut être votre ami.") == true, "\(payload)")
                #expect(payload["url"] as? String == "/friends" && payload["title"] as? String == "Disposable")
                #expect(message["vapid_valid"] as? Bool == true, "\(message)")
                let claims = try #require(message["claims"] as? [String: Any])
                #expect(claims["aud"] as? String == "http://127.0.0.1:\(URL(string: endpoint.subscription["endpoint"]!)!.port!)")
                // RFC 8292: at most 24 hours ahead (the app's clock: the test's own)
                let expiry = (claims["exp"] as? Int ?? 0) - Int(app.clock.now.timeIntervalSince1970)
                #expect(expiry > 0 && expiry <= 86_400, "\(claims)")
                let headers = try #require(message["headers"] as? [String: String])
                #expect(headers["content-encoding"] == "aes128gcm" && headers["ttl"] == "86400")
                #expect(headers["authorization"]?.hasSuffix("k=\(publicKey)") == true)
                // nothing twice
                _ = try await app.services.push.sendDue()

                // Ana turns friend notices off: the bell still has them, the phone does not
                let off = try await app.call(.put, "/api/v1/push/kinds", json: ["kinds": ["liked", "commented"]], token: ana)
                #expect(off["kinds"] as? [String] == ["liked", "commented"], "\(off.text)")
                let cleo = try await app.userToken()
                #expect(try await app.call(.post, "/api/v1/friends", body: FriendRequest(email: "ana@example.com"), token: cleo).status == .accepted)
                _ = try await app.services.push.sendDue()
                #expect(try await app.call(.put, "/api/v1/push/kinds", json: ["kinds": ["nope"]], token: ana).status == .unprocessableContent)

                // A subscription its push service says is gone (410) is forgotten
                _ = try await app.call(.put, "/api/v1/push/kinds", json: ["kinds": PushSubscriptions.allKinds], token: ana)
                let gone = try await app.call(
                    .post, "/api/v1/push/subscriptions", json: ["endpoint": endpoint.subscription["gone"]!, "keys": keys], token: ana)
                #expect(gone.status == .created)
                let dan = try await app.userToken()
                #expect(try await app.call(.post, "/api/v1/friends", body: FriendRequest(email: "ana@example.com"), token: dan).status == .accepted)
                // the first phone gets it; the second's push service answers 410
                let all = try await endpoint.waitFor(3, from: app)
                #expect(
                    all.filter { $0["path"] as? String == "/push/ok" }.count == 2 && all.filter { $0["path"] as? String == "/push/gone" }.count == 1)
                var devices: [String] = []
                for _ in 0..<100 {
                    devices = ((try await app.call(.get, "/api/v1/push", token: ana))["devices"] as? [[String: Any]] ?? []).compactMap {
                        $0["id"] as? String
                    }
                    if devices.count == 1 { break }
                    try await Task.sleep(for: .milliseconds(100))
                }
                #expect(devices == [subscribed.string("id")!], "\(devices)")

                // hostile: keys that are not keys, an address that is not a push service, someone else's device
                for (body, field) in [
                    (["endpoint": "http://10.0.0.1/push", "keys": keys], "endpoint"),
                    (["endpoint": endpoint.subscription["endpoint"]!, "keys": ["p256dh": "AAAA", "auth": keys["auth"]!]], "p256dh"),
                    (["endpoint": endpoint.subscription["endpoint"]!, "keys": ["p256dh": keys["p256dh"]!, "auth": "AAAA"]], "auth"),
                ] as [([String: Any], String)] {
                    let refused = try await app.call(.post, "/api/v1/push/subscriptions", json: body, token: ana)
                    #expect(refused.expectProblem(.unprocessableContent).contains(field))
                }
                try await app.call(.delete, "/api/v1/push/subscriptions/\(subscribed.string("id")!)", token: ben).expectProblem(.notFound)
                #expect(try await app.call(.delete, "/api/v1/push/subscriptions/\(subscribed.string("id")!)", token: ana).status == .noContent)
            }
        } cleanup: {
            await endpoint.stop()
        }
    }

    @Test("A guest without an account subscribes her phone and is told there when the photos are revealed")
    func guestHearsTheReveal() async throws {
        let endpoint = try await PushEndpoint()
        try await withCleanup {
            try await TestApp.run(.sqlite) { app in
                let party = try await GuestbookTests.party(app, settings: ["reveal": ["mode": "at-end"]])
                let keys = ["p256dh": endpoint.subscription["p256dh"]!, "auth": endpoint.subscription["auth"]!]
                // Maggie's phone, from the event's bell: every kind (her bell shows them all), her own devices only
                let settings = try await app.call(.get, "/api/v1/push", token: party.maggie)
                #expect((settings["kinds"] as? [String])?.count == PushSubscriptions.allKinds.count, "\(settings.text)")
                let subscribed = try await app.call(
                    .post, "/api/v1/push/subscriptions", json: ["endpoint": endpoint.subscription["endpoint"]!, "keys": keys], token: party.maggie,
                    headers: [.acceptLanguage: "en-GB"])
                #expect(subscribed.status == .created, "\(subscribed.text)")
                #expect((try await app.call(.get, "/api/v1/push", token: party.tom)["devices"] as? [Any])?.isEmpty == true)
                try await app.call(.put, "/api/v1/push/kinds", json: ["kinds": ["liked"]], token: party.maggie).expectProblem(.forbidden)
                try await app.call(.delete, "/api/v1/push/subscriptions/\(subscribed.string("id")!)", token: party.tom).expectProblem(.notFound)

                // MUT: the event ends, its photos are revealed
                app.clock.advance(by: 24 * 3600 + 1)
                try await NotificationTests.announcer(app).announceDueMoments()
                let messages = try await endpoint.waitFor(2, from: app)

                // validate: the reveal (and the recap), decrypted on her phone, leading to the event
                let payloads = messages.compactMap { $0["payload"] as? [String: Any] }
                let reveal = try #require(payloads.first { ($0["body"] as? String)?.contains("are revealed") == true }, "\(payloads)")
                #expect(reveal["title"] as? String == "Ana & Ben's wedding" && (reveal["url"] as? String)?.hasPrefix("/e/") == true, "\(reveal)")
                #expect(messages.allSatisfy { $0["vapid_valid"] as? Bool == true })
            }
        } cleanup: {
            await endpoint.stop()
        }
    }

    @Test("The message format: RFC 8291's example encrypts to its ciphertext")
    func rfc8291Example() throws {
        // RFC 8291, section 5 (Appendix A's values).
        let serverKey = try P256.KeyAgreement.PrivateKey(
            rawRepresentation: try #require(WebPushMessage.fromBase64URL("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw")))
        let encrypted = try WebPushMessage.encrypt(
            Data("When I grow up, I want to be a watermelon".utf8),
            p256dh: try #require(
                WebPushMessage.fromBase64URL("BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4")),
            auth: try #require(WebPushMessage.fromBase64URL("BTBZMqHH6r4Tts7J_aSIgg")),
            salt: try #require(WebPushMessage.fromBase64URL("DGv6ra1nlYgDCS1FRnbzlw")), serverKey: serverKey)
        #expect(
            WebPushMessage.base64URL(encrypted)
                == "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
        )
    }
}
