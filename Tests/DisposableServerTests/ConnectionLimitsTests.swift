import Foundation
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// Idle, slow-head and stalled-body connections are closed; one client's connections are
/// capped; the server keeps answering others meanwhile.
@Suite("Connection limits")
struct ConnectionLimitsTests {
    private static func configure(_ configuration: inout AppConfiguration) {
        configuration.connections = ConnectionLimits(
            idleTimeout: .seconds(2), headerTimeout: .seconds(1), bodyTimeout: .seconds(1), perClient: 20, liveStreamsPerToken: 8)
    }

    @Test("Idle connections, before and after a request, are closed")
    func idle() async throws {
        try await TestApp.run(.sqlite, live: true, configure: Self.configure) { app in
            let port = try #require(app.client.port)
            // Bounds far above the 2 s timeout: the whole suite shares two cores (one CI run needed more than 15 s).
            let silent = try RawConnection(port: port)
            #expect(!silent.isClosedByServer, "not before the deadline")
            let served = try await RawHTTP.exchangeKeepingOpen(port: port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(served.answer.status == 200)
            #expect(try await silent.closedByServer(within: .seconds(45)))
            #expect(try await served.connection.closedByServer(within: .seconds(45)))
        }
    }

    @Test("A head that trickles in and a body that stops are cut off, though bytes keep coming")
    func slowClients() async throws {
        try await TestApp.run(.sqlite, live: true, configure: Self.configure) { app in
            let port = try #require(app.client.port)
            let slowHead = try RawConnection(port: port)
            let slowBody = try RawConnection(port: port)
            slowHead.send("GET /healthz HTTP/1.1\r\n")
            slowBody.send("POST /api/v1/join HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"co")
            var closed = false
            // Bounds far above the 1 s deadlines, for a CI machine whose two cores run the whole suite at once
            // (one run needed more than 20 s); a server without deadlines never closes them at all.
            let deadline = ContinuousClock.now + .seconds(60)
            while !closed && ContinuousClock.now < deadline {
                slowHead.send("X-A: b\r\n")  // a header line every 300 ms: never idle, never complete
                try await Task.sleep(for: .milliseconds(300))
                closed = slowHead.isClosedByServer
            }
            #expect(closed)
            #expect(try await slowBody.closedByServer(within: .seconds(60)))
        }
    }

    @Test("One client's 300 connections are capped, and /healthz answers others at once")
    func perClientCap() async throws {
        try await TestApp.run(.sqlite, live: true, configure: Self.configure) { app in
            let port = try #require(app.client.port)
            var flood: [RawConnection] = []
            for _ in 0..<300 { flood.append(try RawConnection(port: port, from: "127.0.0.2")) }
            // Past the instance's connection limit another client would wait for ever; how fast it is answered is
            // a benchmark's business (under the whole suite on two cores it took 2.3 s once).
            let health = try await RawHTTP.exchange(port: port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", responses: 1, timeoutSeconds: 15)
            #expect(health.first?.status == 200)
            // Connections still in the kernel's accept queue look open until the server gets to them: give it time.
            var open = flood.count
            let deadline = ContinuousClock.now + .seconds(15)
            while open > 20 && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
                open = flood.filter { !$0.isClosedByServer }.count
            }
            #expect(open <= 20, "\(open) of the flood still open")
        }
    }
}
