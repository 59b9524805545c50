import Foundation
import HTTPTypes
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// The second review's first finding: behind a real nginx configured the usual way, the client's
/// address is the one nginx saw, whatever headers the client adds — so guesses are counted, another client cannot be
/// locked out, and `/metrics` never answers a remote caller that claims to be the machine itself.
@Suite("Client address behind a real nginx")
struct ForwardedClientTests {
    /// nginx reaches the app from 127.0.0.2, the only trusted proxy; clients come from other loopback addresses.
    private func behindNginx(_ body: @escaping @Sendable (TestApp, Nginx) async throws -> Void) async throws {
        let configure: (inout AppConfiguration) -> Void = {
            $0.trustedProxies = try! TrustedProxies("127.0.0.2")
            $0.limits.join = .init(burst: 20, refillEvery: .seconds(3600))
        }
        try await TestApp.run(.sqlite, live: true, configure: configure) { app in
            let nginx = try Nginx(upstreamPort: try #require(app.client.port), upstreamSource: "127.0.0.2")
            try await withCleanup {
                try await nginx.ready()
                try await body(app, nginx)
            } cleanup: {
                await nginx.stop()
            }
        }
    }

    private static let wrongCode = #"{"code":"ZZZZ-ZZZZ","name":"Eve"}"#

    @Test("A new `Forwarded: for=` (or X-Forwarded-For) on every wrong code still reaches 429")
    func forgedAddressesAreCounted() async throws {
        try await behindNginx { _, nginx in
            var statuses: [Int] = []
            for index in 0..<25 {
                let forged = [("Forwarded", "for=10.0.0.\(index)"), ("X-Forwarded-For", "10.1.0.\(index)")]
                statuses.append(try await nginx.send(from: "127.0.0.5", "POST", "/api/v1/join", headers: forged, body: Self.wrongCode).status)
            }
            #expect(statuses.prefix(20).allSatisfy { $0 == 404 }, "\(statuses)")
            #expect(statuses.dropFirst(20).allSatisfy { $0 == 429 }, "\(statuses)")
        }
    }

    @Test("Naming another client's address does not lock that client out")
    func noLockingOutOthers() async throws {
        try await behindNginx { _, nginx in
            let victim = [("Forwarded", "for=127.0.0.8"), ("X-Forwarded-For", "127.0.0.8")]
            for _ in 0..<25 { _ = try await nginx.send(from: "127.0.0.6", "POST", "/api/v1/join", headers: victim, body: Self.wrongCode) }
            #expect(try await nginx.send(from: "127.0.0.6", "POST", "/api/v1/join", body: Self.wrongCode).status == 429)
            let own = try await nginx.send(from: "127.0.0.8", "POST", "/api/v1/join", body: Self.wrongCode)
            #expect(own.status == 404, "the real 127.0.0.8 was refused: \(String(decoding: own.body, as: UTF8.self))")
        }
    }

    @Test("/metrics answers a direct loopback connection, never one relayed by nginx, whatever it claims")
    func metricsOnlyDirect() async throws {
        try await behindNginx { app, nginx in
            let claims = [("Forwarded", "for=127.0.0.1"), ("X-Forwarded-For", "127.0.0.1"), ("X-Real-IP", "127.0.0.1")]
            #expect(try await nginx.send(from: "127.0.0.5", "GET", "/metrics", headers: claims).status == 403)
            // The machine itself, through the proxy, is relayed too.
            #expect(try await nginx.send(from: "127.0.0.1", "GET", "/metrics").status == 403)
            let direct = try await RawHTTP.exchange(
                port: try #require(app.client.port), "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", responses: 1)
            #expect(direct.first?.status == 200)
        }
    }

    @Test("The chain is read from the right up to the first untrusted address; only the configured header counts")
    func chainRules() throws {
        let xff = try TrustedProxies("10.0.0.0/8")
        let headers: HTTPFields = [
            .init("X-Forwarded-For")!: "127.0.0.1, 198.51.100.7, 10.0.0.3", .init("Forwarded")!: "for=192.0.2.1",
        ]
        #expect(xff.client(peer: "10.0.0.9", headers: headers) == "198.51.100.7")
        // From an untrusted peer nothing is read; a chain of proxies only leaves the peer.
        #expect(xff.client(peer: "203.0.113.1", headers: headers) == "203.0.113.1")
        #expect(xff.client(peer: "10.0.0.9", headers: [.init("X-Forwarded-For")!: "10.0.0.4"]) == "10.0.0.9")
        let forwarded = try TrustedProxies("10.0.0.0/8", header: .forwarded)
        let rfc: HTTPFields = [
            .init("Forwarded")!: #"for=127.0.0.1, for="[2001:db8::7]:4711";proto=https, for=10.0.0.3"#, .init("X-Forwarded-For")!: "192.0.2.1",
        ]
        #expect(forwarded.client(peer: "10.0.0.9", headers: rfc) == "2001:db8::7")
        // An entry that is no address stops the walk: it is not skipped to reach what the client wrote.
        #expect(forwarded.client(peer: "10.0.0.9", headers: [.init("Forwarded")!: "for=127.0.0.1, for=unknown"]) == "unknown")
    }
}
