import DisposableCore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which header the reverse proxy writes the client's address into (`--forwarded-header`). Only that one is read:
/// a proxy that sets `X-Forwarded-For` passes a client's own `Forwarded` header through untouched, so believing
/// both would let the client name its address.
public enum ForwardedHeader: String, Sendable, CaseIterable {
    case xForwardedFor = "x-forwarded-for"
    case forwarded
}

/// The networks whose forwarded header is believed (SEC-3): the reverse proxy in front of the instance. Anyone
/// else could write any address there, so for them the socket's address is the client.
public struct TrustedProxies: Sendable, Equatable {
    package struct Network: Sendable, Equatable {
        package let address: [UInt8]
        package let prefixLength: Int

        package init(address: [UInt8], prefixLength: Int) {
            self.address = address
            self.prefixLength = prefixLength
        }

        package func contains(_ other: [UInt8]) -> Bool {
            guard other.count == address.count else { return false }
            var bits = prefixLength
            for (a, b) in zip(address, other) where bits > 0 {
                let mask: UInt8 = bits >= 8 ? 0xFF : ~(0xFF >> UInt8(bits))
                if a & mask != b & mask { return false }
                bits -= 8
            }
            return true
        }
    }

    package let networks: [Network]
    /// The one header that names the client.
    public var header: ForwardedHeader = .xForwardedFor

    public static let none = TrustedProxies(networks: [])

    private init(networks: [Network]) {
        self.networks = networks
    }

    /// `10.0.0.0/8, 192.168.1.5, ::1` — addresses or CIDR blocks, separated by commas or spaces.
    public init(_ list: String, header: ForwardedHeader = .xForwardedFor) throws {
        var networks: [Network] = []
        for item in list.split(whereSeparator: { $0 == "," || $0 == " " }) {
            let parts = item.split(separator: "/", maxSplits: 1)
            guard let address = IPAddress.bytes(String(parts[0])) else {
                throw ConfigurationError("“\(item)” in the trusted proxies is not an IP address or a CIDR block.")
            }
            let bits = address.count * 8
            let prefix = parts.count == 2 ? Int(parts[1]) : bits
            guard let prefix, (0...bits).contains(prefix) else {
                throw ConfigurationError("“\(item)” in the trusted proxies has a prefix length outside 0…\(bits).")
            }
            networks.append(Network(address: address, prefixLength: prefix))
        }
        self.networks = networks
        self.header = header
    }

    package func contains(_ address: String) -> Bool {
        guard !networks.isEmpty, let bytes = IPAddress.bytes(address) else { return false }
        return networks.contains { $0.contains(bytes) }
    }

    /// The client behind the proxies. Each proxy appends the address it received the request from, so reading
    /// the chain from the right, every entry up to the first untrusted one was written by a trusted proxy; that
    /// first untrusted address is the client. Entries further left were written by the client itself and are
    /// never read. A chain of trusted addresses only (a request from the proxies' own network, or a proxy that
    /// does not write the header) leaves the socket's peer as the client. With an untrusted peer, the header is
    /// ignored.
    package func client(peer: String, headers: HTTPFields) -> String {
        guard contains(peer) else { return peer }
        for hop in chain(headers).reversed() where !contains(hop) { return hop }
        return peer
    }

    /// The addresses of the configured header, client first: `X-Forwarded-For`'s entries, or `Forwarded`'s
    /// `for=` values (RFC 7239). An entry that is not an address (`unknown`, an obfuscated name) stands as it
    /// is: untrusted, so the walk stops there rather than skipping to what the client wrote.
    package func chain(_ headers: HTTPFields) -> [String] {
        switch header {
        case .forwarded:
            return headers[values: HTTPField.Name("Forwarded")!].flatMap { $0.split(separator: ",") }.map { element in
                element.split(separator: ";").lazy.map { $0.trimmingCharacters(in: .whitespaces) }
                    .first { $0.lowercased().hasPrefix("for=") }
                    .map { IPAddress.withoutPort(String($0.dropFirst(4)).trimmingCharacters(in: CharacterSet(charactersIn: "\""))) }
                    ?? "unknown"
            }
        case .xForwardedFor:
            return headers[values: HTTPField.Name("X-Forwarded-For")!].flatMap { $0.split(separator: ",") }
                .map { IPAddress.withoutPort($0.trimmingCharacters(in: .whitespaces)) }.filter { !$0.isEmpty }
        }
    }
}

package enum IPAddress {
    /// 4 or 16 bytes; IPv4-mapped IPv6 addresses (`::ffff:1.2.3.4`) as their IPv4 address.
    package static func bytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF { return Array(bytes[12...]) }
        return bytes
    }

    /// What limits count one client by: an IPv4 address as it is, an IPv6 address by its /64 (`2001:db8:1:2::/64`),
    /// anything else as it is.
    package static func network(_ text: String) -> String {
        guard let bytes = bytes(text), bytes.count == 16 else { return text }
        return stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
            .joined(separator: ":") + "::/64"
    }

    /// `[2001:db8::1]:4711` → `2001:db8::1`, `192.0.2.1:80` → `192.0.2.1`; anything else as it is.
    package static func withoutPort(_ value: String) -> String {
        if value.hasPrefix("["), let end = value.firstIndex(of: "]") {
            return String(value[value.index(after: value.startIndex)..<end])
        }
        if value.filter({ $0 == ":" }).count == 1, let colon = value.firstIndex(of: ":") { return String(value[..<colon]) }
        return value
    }
}

/// Sets the request's client address from the forwarded headers when a trusted proxy sent it.
package struct ClientAddressMiddleware<Context: ClientRequestContext>: RouterMiddleware {
    package let trusted: TrustedProxies
    package let untrustedProxy: UntrustedProxyNotice

    package init(trusted: TrustedProxies, untrustedProxy: UntrustedProxyNotice) {
        self.trusted = trusted
        self.untrustedProxy = untrustedProxy
    }

    package func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard trusted.contains(context.clientAddress) else {
            if trusted.networks.isEmpty, Self.isForwarded(request) { untrustedProxy.forwarded(from: context.clientAddress) }
            return try await next(request, context)
        }
        var context = context
        context.viaTrustedProxy = true
        context.clientAddress = trusted.client(peer: context.clientAddress, headers: request.headers)
        return try await next(request, context)
    }

    /// Whether a proxy (or a client pretending) wrote forwarding headers.
    package static func isForwarded(_ request: Request) -> Bool {
        request.headers[.init("X-Forwarded-For")!] != nil || request.headers[.init("Forwarded")!] != nil
    }
}

/// What the HTTP plumbing reads and sets on a request's context: the application's context conforms.
package protocol ClientRequestContext: RequestContext {
    /// The key rate limits count against: the client's IP address, the socket's unless a trusted proxy forwarded it.
    var clientAddress: String { get set }
    /// The socket's peer is a trusted proxy: whatever its headers say, the request came from elsewhere.
    var viaTrustedProxy: Bool { get set }
    /// The connection's event loop: long downloads pace themselves on it (`PacedWriter`).
    var eventLoop: any EventLoop { get }
}
