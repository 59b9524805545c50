import Foundation

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

#if canImport(Glibc)
    import Glibc
#endif

/// A bare TCP connection to the app that a test drives byte by byte: to hold it idle, trickle a head, stall a
/// body, or open hundreds from another loopback address (127.0.0.2 is a different client to the server).
final class RawConnection: @unchecked Sendable {
    let socket: Int32

    /// `receiveBuffer`: a small one makes a client that stops reading stall the server's writes sooner.
    init(port: Int, from source: String = "127.0.0.1", receiveBuffer: Int32? = nil) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw RawHTTP.Failure(description: "socket: \(errno)") }
        if var size = receiveBuffer { setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        // No close here: every stored property is set, so a throw releases the object and `deinit` closes the
        // socket. Closing it here too closed it twice — and the second time, under parallel tests, it closed whatever
        // file had just been given that number (an app's SQLite database: "disk I/O error", "no such table").
        guard bound == 0, connected == 0 else { throw RawHTTP.Failure(description: "bind/connect: \(errno)") }
    }

    deinit { if socket >= 0 { close(socket) } }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = Glibc.send(socket, bytes, bytes.count, Int32(MSG_NOSIGNAL))
    }

    /// Whether the server has closed its end: a read that would not block returns end of stream or an error.
    var isClosedByServer: Bool {
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 0) > 0 else { return false }
        var byte: UInt8 = 0
        let count = recv(socket, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if count == 0 { return true }
        if count < 0 { return errno != EAGAIN && errno != EWOULDBLOCK }
        // Something to read (an answer): drain it and look again.
        var buffer = [UInt8](repeating: 0, count: 65536)
        _ = recv(socket, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        return isClosedByServer
    }

    /// Waits up to `timeout` for the server to close the connection.
    func closedByServer(within timeout: Duration) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if isClosedByServer { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return isClosedByServer
    }
}

extension RawHTTP {
    /// One request and its answer over a connection left open afterwards (to watch what the server does with it).
    static func exchangeKeepingOpen(port: Int, _ text: String, timeoutSeconds: Int = 30) async throws -> (connection: RawConnection, answer: Answer) {
        let connection = try RawConnection(port: port)
        connection.send(text)
        let answer = try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try connection.readAnswer(timeoutSeconds: timeoutSeconds) }) }
        }
        return (connection, answer)
    }
}

extension RawConnection {
    /// Blocks until one whole answer arrived (or the timeout passed).
    func readAnswer(timeoutSeconds: Int) throws -> RawHTTP.Answer {
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            if let (answer, _) = try RawHTTP.parse(received) { return answer }
            let count = recv(socket, &buffer, buffer.count, 0)
            guard count > 0 else { throw RawHTTP.Failure(description: "no answer (errno \(errno))") }
            received += buffer[0..<count]
        }
    }
}
