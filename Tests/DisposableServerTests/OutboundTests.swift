import Foundation
import Logging
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// Every call out of the server goes through one service that refuses this machine's and its network's addresses
/// (the server is not a way into them), follows no redirect and says one sentence whatever went wrong.
@Suite("Outbound calls")
struct OutboundTests {
    private static let keys = [
        "p256dh": "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
        "auth": "BTBZMqHH6r4Tts7J_aSIgg",
    ]

    @Test("Push endpoints on loopback, private, link-local or numeric addresses are refused; a name that does not resolve is taken")
    func pushEndpoints() async throws {
        try await TestApp.run(.sqlite, configure: { $0.outboundAllowsLoopback = false }) { app in
            let ana = try await app.userToken()
            for endpoint in [
                "http://127.0.0.1:9/push", "https://127.0.0.1/push", "https://localhost/push", "https://push.localhost/x",
                "https://10.0.0.1/push", "https://192.168.1.1/push", "https://169.254.169.254/latest/meta-data", "https://[::1]/push",
                "https://[fd00::1]/push", "https://[fe80::1]/push", "https://2130706433/push", "https://0x7f.1/push",
                "http://push.example.org/x", "https://user@push.example.org/x", "https://metadata.google.internal/x",
                // A single label is found through this network's search domains; a trailing dot skips the suffix checks.
                "https://vm:9911/p", "https://router/p", "https://push.example.org./x", "https://metadata.google.internal./x",
            ] {
                let refused = try await app.call(.post, "/api/v1/push/subscriptions", json: ["endpoint": endpoint, "keys": Self.keys], token: ana)
                #expect(refused.expectProblem(.unprocessableContent).contains("endpoint"), "\(endpoint)")
            }
            // A push service's name that does not resolve now is not an error yet: each message is checked when sent.
            let taken = try await app.call(
                .post, "/api/v1/push/subscriptions", json: ["endpoint": "https://push.example.invalid/send/abc", "keys": Self.keys], token: ana)
            #expect(taken.status == .created, "\(taken.text)")
        }
    }

    @Test("A scrobbler on loopback or a private address is refused, and the listener there never hears from the server")
    func scrobblerAddresses() async throws {
        let listener = try LoopbackListener(answer: "HTTP/1.1 200 OK\r\nContent-Length: 15\r\n\r\n{\"status\":\"ok\"}")
        defer { listener.stop() }
        try await TestApp.run(.sqlite, configure: { $0.outboundAllowsLoopback = false }) { app in
            let ana = try await app.userToken()
            for url in [
                "http://127.0.0.1:\(listener.port)", "http://localhost:\(listener.port)", "http://[::ffff:127.0.0.1]:\(listener.port)",
                "http://10.1.2.3:\(listener.port)", "http://192.168.0.10", "http://169.254.169.254",
            ] {
                let refused = try await app.call(.put, "/api/v1/me/scrobbler", json: ["kind": "maloja", "url": url, "apiKey": "k"], token: ana)
                #expect(refused.expectProblem(.unprocessableContent).contains("url"), "\(url)")
            }
            // A name of this machine's (from /etc/hosts, or the machine's own name) resolves to a loopback or
            // private address: refused up front when it is a single label, after resolution when it passes the
            // first look. Either way the connection is never made.
            let name = try #require(Self.nameOfThisMachine())
            let linked = try await app.call(
                .put, "/api/v1/me/scrobbler", json: ["kind": "maloja", "url": "http://\(name):\(listener.port)", "apiKey": "k"], token: ana)
            let refusal = linked.expectProblem(.unprocessableContent)
            #expect(refusal.contains("No Maloja server answered") || refusal.contains("full name"), "\(name): \(refusal)")
            #expect(listener.connections == 0)
        }
    }

    @Test("A redirect is never followed: a Maloja address that redirects to another service leaves that one untouched")
    func redirectNotFollowed() async throws {
        let inside = try LoopbackListener(answer: "HTTP/1.1 200 OK\r\nContent-Length: 15\r\n\r\n{\"status\":\"ok\"}")
        defer { inside.stop() }
        let redirecting = try LoopbackListener(
            answer: "HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:\(inside.port)/apis/mlj_1/test\r\nContent-Length: 0\r\n\r\n")
        defer { redirecting.stop() }
        // The tests' loopback exception is on here: only the redirect is refused.
        try await TestApp.run(.sqlite) { app in
            let ana = try await app.userToken()
            let linked = try await app.call(
                .put, "/api/v1/me/scrobbler", json: ["kind": "maloja", "url": "http://127.0.0.1:\(redirecting.port)", "apiKey": "k"], token: ana)
            #expect(linked.expectProblem(.unprocessableContent).contains("No Maloja server answered"))
            #expect(redirecting.connections == 1 && inside.connections == 0)
        }
    }

    @Test("A closed port, a silent one and a refusing one all give the same failure")
    func oneFailureForEverything() async throws {
        let silent = try LoopbackListener()
        defer { silent.stop() }
        let outbound = OutboundHTTP(policy: AddressPolicy(allowsLoopback: true), logger: Logger(label: "test"))
        var sentences: Set<String> = []
        for url in ["http://127.0.0.1:\(try freePort())/", "http://127.0.0.1:\(silent.port)/", "http://10.0.0.1/"] {
            do {
                _ = try await outbound.send(.init(url: URL(string: url)!), timeout: .seconds(2), purpose: "test")
                Issue.record("\(url) answered")
            } catch {
                sentences.insert("\(error)")
            }
        }
        #expect(sentences == ["The server at that address could not be reached."])
    }

    @Test("Which resolved addresses are public")
    func publicAddresses() {
        let refused = [
            "127.0.0.1", "10.2.3.4", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0",
            "224.0.0.1", "255.255.255.255", "::1", "::", "fe80::1", "fc00::1", "fd12::1", "ff02::1", "::ffff:10.0.0.1", "64:ff9b::a00:1",
            "2002:a00:1::1", "2001:db8::1",
        ]
        for address in refused { #expect(!AddressPolicy.isPublic(IPAddress.bytes(address)!), "\(address)") }
        for address in ["93.184.216.34", "8.8.8.8", "172.32.0.1", "2606:4700::1111", "::ffff:8.8.8.8"] {
            #expect(AddressPolicy.isPublic(IPAddress.bytes(address)!), "\(address)")
        }
    }

    /// A name other than `localhost` that this machine resolves to one of its own addresses.
    private static func nameOfThisMachine() -> String? {
        let hosts = (try? String(contentsOfFile: "/etc/hosts", encoding: .utf8)) ?? ""
        for line in hosts.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard fields.count > 1, let bytes = IPAddress.bytes(fields[0]), bytes.count == 4, !AddressPolicy.isPublic(bytes) else { continue }
            if let name = fields.dropFirst().first(where: { $0 != "localhost" }) { return name }
        }
        let own = ProcessInfo.processInfo.hostName
        return own.isEmpty ? nil : own
    }
}
