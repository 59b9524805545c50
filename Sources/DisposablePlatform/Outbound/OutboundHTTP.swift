import DisposableCore
import Foundation
import Logging
import Metrics
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// Every request this server makes to an address it was given — a browser's push service, a person's Maloja, the
/// OpenID provider's discovery, keys and token endpoint (the bucket's client, which only the operator configures,
/// stays its own). One place for the rules: the name is resolved here and each address checked against
/// `AddressPolicy` before connecting to *that* address (a name that resolves to a public address for the check and
/// to 127.0.0.1 for the connection cannot slip through); no redirect is followed; connect, whole-exchange and
/// size limits; a `User-Agent`; one failure for everything that went wrong, so that an answer never tells a
/// closed port from a silent one; counted in `/metrics`.
///
/// Written on SwiftNIO rather than async-http-client because that client resolves names itself, with no hook to
/// check the address it is about to connect to (DECISIONS). HTTP/1.1, one connection per request.
package struct OutboundHTTP: Sendable {
    package var policy: AddressPolicy
    package var connectTimeout: TimeAmount = .seconds(5)
    package let logger: Logger

    package init(policy: AddressPolicy, connectTimeout: TimeAmount = .seconds(5), logger: Logger) {
        self.policy = policy
        self.connectTimeout = connectTimeout
        self.logger = logger
    }

    package struct Request: Sendable {
        package var method: HTTPMethod = .GET
        package var url: URL
        package var headers: [(String, String)] = []
        package var body: Data? = nil

        package init(method: HTTPMethod = .GET, url: URL, headers: [(String, String)] = [], body: Data? = nil) {
            self.method = method
            self.url = url
            self.headers = headers
            self.body = body
        }
    }

    package struct Response: Sendable {
        package let status: Int
        package let body: Data

        package init(status: Int, body: Data) {
            self.status = status
            self.body = body
        }
    }

    /// Whatever went wrong, said once: the far end's answer, or its silence, is never passed on.
    package struct Failure: Error, CustomStringConvertible {
        /// For the log only.
        package let reason: String
        /// The connection ended before any answer came (worth one more try for a GET).
        package var beforeAnswer = false
        package var description: String { "The server at that address could not be reached." }
    }

    package static let userAgent = "Disposable/\(disposableVersion)"

    /// Sends `request` and reads its answer up to `maxBytes`, all within `timeout`.
    package func send(_ request: Request, timeout: Duration = .seconds(15), maxBytes: Int = 1 << 20, purpose: String) async throws -> Response {
        let started = ContinuousClock.now
        do {
            let response = try await withThrowingTaskGroup(of: Response.self) { group in
                group.addTask {
                    do {
                        return try await exchange(request, maxBytes: maxBytes)
                    } catch let failure as Failure where failure.beforeAnswer && request.method == .GET {
                        // A connection the far end dropped before answering: once more, as browsers do for a GET.
                        return try await exchange(request, maxBytes: maxBytes)
                    }
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    throw Failure(reason: "no answer within \(timeout)")
                }
                defer { group.cancelAll() }
                return try await group.next()!
            }
            count(purpose, outcome: "\(response.status / 100)xx", since: started)
            return response
        } catch {
            let failure = error as? Failure ?? Failure(reason: "\(error)")
            count(purpose, outcome: "failed", since: started)
            logger.info("An outbound request failed", metadata: ["purpose": "\(purpose)", "reason": "\(failure.reason)"])
            throw failure
        }
    }

    private func count(_ purpose: String, outcome: String, since started: ContinuousClock.Instant) {
        Counter(label: "disposable_outbound_requests_total", dimensions: [("purpose", purpose), ("outcome", outcome)]).increment()
        Timer(label: "disposable_outbound_request_seconds", dimensions: [("purpose", purpose)], preferredDisplayUnit: .seconds)
            .record(duration: ContinuousClock.now - started)
    }

    private func exchange(_ request: Request, maxBytes: Int) async throws -> Response {
        guard policy.check(request.url) == nil, let host = request.url.host, !host.isEmpty else {
            throw Failure(reason: "address refused before lookup")
        }
        let secure = request.url.scheme?.lowercased() == "https"
        let port = request.url.port ?? (secure ? 443 : 80)
        let name = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        let addresses = try await resolve(name, port: port)
        guard let address = addresses.first(where: { policy.allows($0.bytes) }) else {
            throw Failure(reason: "\(name) resolves to no public address")
        }
        let tls = secure ? try NIOSSLContext(configuration: .makeClientConfiguration()) : nil
        let serverName = IPAddress.bytes(name) == nil ? name : nil
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(connectTimeout)
            .connect(to: address.socket) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: tls, serverHostname: serverName)) }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var head = HTTPRequestHead(version: .http1_1, method: request.method, uri: Self.target(of: request.url))
            head.headers.add(name: "Host", value: request.url.port.map { "\(host):\($0)" } ?? host)
            head.headers.add(name: "User-Agent", value: Self.userAgent)
            head.headers.add(name: "Connection", value: "close")
            for (field, value) in request.headers { head.headers.add(name: field, value: value) }
            if let body = request.body { head.headers.add(name: "Content-Length", value: String(body.count)) }
            var parts: [HTTPClientRequestPart] = [.head(head)]
            if let body = request.body { parts.append(.body(.byteBuffer(ByteBuffer(data: body)))) }
            parts.append(.end(nil))
            // A server may answer and close before the last part is written: its answer is still read.
            do { try await outbound.write(contentsOf: parts) } catch {}
            var status = 0
            var collected = ByteBuffer()
            do {
                for try await part in inbound {
                    switch part {
                    case .head(let answer):
                        // 1xx interim answers are skipped; the final one's status is kept.
                        if answer.status.code >= 200 { status = Int(answer.status.code) }
                    case .body(var bytes):
                        guard collected.readableBytes + bytes.readableBytes <= maxBytes else {
                            throw Failure(reason: "answer over \(maxBytes) bytes")
                        }
                        collected.writeBuffer(&bytes)
                    case .end:
                        if status >= 200 { return Response(status: status, body: Data(collected.readableBytesView)) }
                    }
                }
            } catch let failure as Failure {
                throw failure
            } catch {
                throw Failure(reason: "\(error)", beforeAnswer: status == 0)
            }
            throw Failure(reason: "connection closed before the answer ended", beforeAnswer: status == 0)
        }
    }

    /// The path and query to ask for.
    private static func target(of url: URL) -> String {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let path = components?.percentEncodedPath ?? "/"
        return (path.isEmpty ? "/" : path) + (components?.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    private struct Resolved: Sendable {
        let bytes: [UInt8]
        let socket: SocketAddress
    }

    /// The name's addresses, from the system's resolver (on a thread: `getaddrinfo` blocks).
    private func resolve(_ name: String, port: Int) async throws -> [Resolved] {
        try await NIOThreadPool.singleton.runIfActive {
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            guard getaddrinfo(name, String(port), &hints, &list) == 0, let first = list else {
                throw Failure(reason: "\(name) does not resolve")
            }
            defer { freeaddrinfo(first) }
            var found: [Resolved] = []
            var entry: UnsafeMutablePointer<addrinfo>? = first
            while let current = entry {
                if let raw = current.pointee.ai_addr {
                    switch Int32(raw.pointee.sa_family) {
                    case AF_INET:
                        let v4 = raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee }
                        let bytes = withUnsafeBytes(of: v4.sin_addr) { Array($0) }
                        found.append(Resolved(bytes: bytes, socket: SocketAddress(v4, host: name)))
                    case AF_INET6:
                        let v6 = raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee }
                        let bytes = withUnsafeBytes(of: v6.sin6_addr) { Array($0) }
                        found.append(Resolved(bytes: bytes, socket: SocketAddress(v6, host: name)))
                    default: break
                    }
                }
                entry = current.pointee.ai_next
            }
            return found
        }
    }
}
