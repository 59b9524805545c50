import Foundation

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

#if canImport(Glibc)
    import Glibc
#endif

/// HTTP/1.1 over a bare socket, for what clients hide: several requests sent in one write (pipelined), and
/// the answers read back in the order they came.
enum RawHTTP {
    struct Answer {
        let status: Int
        let contentType: String?
        let body: [UInt8]
    }

    struct Failure: Error, CustomStringConvertible { let description: String }

    /// Sends `text` to 127.0.0.1:`port` — in one write, or in writes of `pieceSize` bytes a moment apart, so the
    /// server reads them one by one — and reads `responses` answers (each with a Content-Length).
    /// Runs on a thread of its own: blocked in `recv` on the test's pool thread, it could starve the server
    /// it waits for (an app under test shares that pool).
    static func exchange(port: Int, _ text: String, responses: Int, pieceSize: Int? = nil, timeoutSeconds: Int = 30) async throws -> [Answer] {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Result {
                        try blockingExchange(port: port, text, responses: responses, pieceSize: pieceSize, timeoutSeconds: timeoutSeconds)
                    })
            }
        }
    }

    private static func blockingExchange(port: Int, _ text: String, responses: Int, pieceSize: Int?, timeoutSeconds: Int) throws -> [Answer] {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "socket: \(errno)") }
        defer { close(socket) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "connect: \(errno)") }
        var noDelay: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        let bytes = Array(text.utf8)
        for start in stride(from: 0, to: bytes.count, by: pieceSize ?? bytes.count) {
            let piece = Array(bytes[start..<min(bytes.count, start + (pieceSize ?? bytes.count))])
            if start > 0 { usleep(2_000) }
            guard send(socket, piece, piece.count, 0) == piece.count else { throw Failure(description: "send: \(errno)") }
        }

        var received: [UInt8] = []
        var answers: [Answer] = []
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while answers.count < responses {
            if let (answer, length) = try parse(received) {
                answers.append(answer)
                received.removeFirst(length)
                continue
            }
            let count = recv(socket, &buffer, buffer.count, 0)
            guard count > 0 else { throw Failure(description: "connection ended after \(answers.count) answers (errno \(errno))") }
            received += buffer[0..<count]
        }
        return answers
    }

    /// The first complete answer in `bytes` and how many bytes it took; nil while incomplete.
    static func parse(_ bytes: [UInt8]) throws -> (Answer, Int)? {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let headEnd = (0...max(0, bytes.count - 4)).first(where: { bytes.count >= 4 && Array(bytes[$0..<$0 + 4]) == separator })
        else { return nil }
        let lines = String(decoding: bytes[0..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
        guard let status = lines.first?.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else {
            throw Failure(description: "not an HTTP answer: \(lines.first ?? "")")
        }
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        guard let length = fields["content-length"].flatMap({ Int($0) }) else { throw Failure(description: "answer without Content-Length") }
        let bodyStart = headEnd + 4
        guard bytes.count >= bodyStart + length else { return nil }
        return (Answer(status: status, contentType: fields["content-type"], body: Array(bytes[bodyStart..<bodyStart + length])), bodyStart + length)
    }
}
