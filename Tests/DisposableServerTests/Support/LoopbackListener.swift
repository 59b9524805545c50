import Foundation
import NIOConcurrencyHelpers

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP listener on every IPv4 address of this machine, counting the connections it gets and answering each with
/// `answer` (an HTTP response), or holding it open in silence: the internal service an attacker would aim the
/// server at.
final class LoopbackListener: @unchecked Sendable {
    let port: Int
    private let socket: Int32
    private let accepted = NIOLockedValueBox(0)

    init(answer: String? = nil) throws {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = INADDR_ANY
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else { throw TestSetupError("The test listener could not listen.") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        socket = fd
        let socket = fd
        let accepted = self.accepted
        Thread.detachNewThread {
            while true {
                let client = accept(socket, nil, nil)
                guard client >= 0 else { return }
                accepted.withLockedValue { $0 += 1 }
                guard let answer else { continue }  // silent: the connection stays open, unanswered
                var buffer = [UInt8](repeating: 0, count: 4096)
                _ = read(client, &buffer, buffer.count)
                _ = answer.withCString { write(client, $0, strlen($0)) }
                close(client)
            }
        }
    }

    /// How many connections reached it.
    var connections: Int { accepted.withLockedValue { $0 } }

    func stop() {
        shutdown(socket, Int32(SHUT_RDWR))
        close(socket)
    }
}
